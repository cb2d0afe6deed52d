"""Checks and normalisation of an index key (``ops/indexing.py``), with PyTorch's exceptions and messages."""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from minigrad import backend
from minigrad.backend import get_array_module
from minigrad.tensor import Tensor


def key_parts(a: Tensor, key: Any) -> tuple[list, bool]:
    """``a[key]``'s key as a list of parts, Tensors and lists turned into arrays of ``a``'s module, and
    whether it is basic (only ints, slices, None and Ellipsis: a view, no repeated elements).

    Every part is checked against the dimension it indexes; integer arrays here because CuPy would
    wrap an out-of-range index around instead of raising.
    """
    xp = get_array_module(a)
    parts = _single_ellipsis(a, tuple(key) if _sequence_as_tuple(key) else (key,))
    prepared, basic = [], True
    dim = 0  # the dimension of ``a`` the next part indexes
    explicit = sum(1 for p in parts if p is not None and p is not Ellipsis and not _is_bool_part(p))
    explicit += sum(_bool_ndim(p) for p in parts if _is_bool_part(p))
    for part in parts:
        if isinstance(part, Tensor):
            part = _on_device_of(a, part.array)
        elif isinstance(part, (list, tuple, range)):   # ``a[range(n), target]``, as PyTorch's tutorials do
            part = xp.asarray(list(part) if isinstance(part, range) else part)
            # PyTorch reads a list as int64 unless it holds bools: ``a[[]]`` selects nothing (NumPy
            # would make a float array of it) and ``a[[0.0, 1.7]]`` is ``a[[0, 1]]``
            if part.size == 0 or part.dtype.kind == "f":
                part = part.astype(numpy.int64)
        elif isinstance(part, numpy.ndarray) or backend.device_of(part) != backend.CPU:
            part = _on_device_of(a, part)  # a NumPy index array, as PyTorch accepts
        if hasattr(part, "dtype") and part.dtype == numpy.uint8:  # a byte tensor is a mask, as in PyTorch
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                          "instead.", UserWarning, stacklevel=5)
            part = part.astype(bool)
        if part is Ellipsis:
            dim += a.ndim - explicit
        elif part is None:
            pass
        elif isinstance(part, slice):
            if part.step is not None and part.step < 0:  # NumPy would reverse; PyTorch refuses
                raise ValueError(f"step must be greater than zero (got {part.step})")
            dim += 1
        elif hasattr(part, "dtype"):
            basic = False
            if part.dtype == bool:
                _check_mask(a, part, dim)
                dim += part.ndim
            elif part.dtype in (numpy.int64, numpy.int32) or (part.dtype.kind == "i" and part.ndim == 0):
                _check_bounds(a, part, dim)
                dim += 1
            else:
                raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, "
                                 f"got {part.dtype}")
        elif isinstance(part, int):
            if dim >= a.ndim:
                raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
            size = a.shape[dim]
            if not -size <= part < size:
                raise IndexError(f"index {part} is out of bounds for dimension {dim} with size {size}")
            dim += 1
        elif isinstance(part, str):
            raise TypeError(f"a tensor cannot be indexed by a string ({part!r})")
        else:
            raise IndexError(f"only integers, slices, None, Ellipsis and integer or boolean tensors are "
                             f"valid indices (got {type(part).__name__})")
        prepared.append(part)
    if dim > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    if not basic:
        _check_index_shapes(prepared)
    return prepared, basic


def _sequence_as_tuple(key: Any) -> bool:
    """PyTorch's rule for a key that is not a tuple: a list (any sequence but a string or a tensor)
    of fewer than 32 parts is a tuple of indices when a part is a sequence, a slice, a Tensor, None or
    Ellipsis (``x[[[1], [0]]]`` is ``x[[1], [0]]``); otherwise it is one index (``x[[1, 0]]``)."""
    if isinstance(key, tuple):
        return True
    if not isinstance(key, (list, range)) or len(key) >= 32:
        return False
    return any(isinstance(part, (list, tuple, range, slice, Tensor, numpy.ndarray)) or part is None
               or part is Ellipsis for part in key)


def _single_ellipsis(a: Tensor, parts: tuple) -> tuple:
    """PyTorch lets each ``...`` stand for the dimensions the key does not name: after the first,
    that leaves none, so a later one is dropped (``x[..., 0, ...]`` is ``x[..., 0]``); NumPy refuses two.
    An index after a later ``...`` would be past the last dimension, as in PyTorch."""
    ellipses = [i for i, part in enumerate(parts) if part is Ellipsis]
    if len(ellipses) < 2:
        return parts
    explicit = sum(1 for p in parts if p is not None and p is not Ellipsis)
    after_second = any(p is not None and p is not Ellipsis for p in parts[ellipses[1]:])
    if after_second and a.ndim > explicit:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}: each '...' of the key "
                         f"stands for {a.ndim - explicit} dimension(s)")
    return tuple(p for i, p in enumerate(parts) if p is not Ellipsis or i == ellipses[0])


def _on_device_of(a: Tensor, index: Any) -> Any:
    """An index array on ``a``'s device. As in PyTorch, CPU indices may index a tensor on any
    device (they are copied over); indices on a GPU can only index a tensor on that GPU."""
    device = backend.device_of(index)
    if device == a.device:
        return index
    if device != backend.CPU:
        raise RuntimeError(f"indices should be either on cpu or on the same device as the indexed tensor "
                           f"({a.device}), but got indices on {device}")
    return backend.from_host(index, a.device)


def _is_bool_part(part: Any) -> bool:
    array = part.array if isinstance(part, Tensor) else part
    return hasattr(array, "dtype") and array.dtype == bool


def _bool_ndim(part: Any) -> int:
    return (part.array if isinstance(part, Tensor) else part).ndim


def _check_bounds(a: Tensor, index: Any, dim: int) -> None:
    if dim >= a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    size = a.shape[dim]
    if index.size and bool(((index < -size) | (index >= size)).any()):
        bad = index[(index < -size) | (index >= size)].reshape(-1)[0]
        raise IndexError(f"index {int(bad)} is out of bounds for dimension {dim} with size {size}")


def _check_mask(a: Tensor, mask: Any, dim: int) -> None:
    if dim + mask.ndim > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim} (a mask of shape "
                         f"{list(mask.shape)} at dimension {dim} of a tensor of shape {list(a.shape)})")
    for i, (n, m) in enumerate(zip(mask.shape, a.shape[dim:])):
        if n != m:
            raise IndexError(f"The shape of the mask {list(mask.shape)} at index {i} does not match the "
                             f"shape of the indexed tensor {list(a.shape)} at index {dim + i}")


def _check_index_shapes(parts: list) -> None:
    """The index arrays (a mask counts as one index per dimension) must broadcast together."""
    arrays = [part for part in parts if hasattr(part, "dtype") and part.ndim]
    if len(arrays) < 2:
        return  # one array (even a mask of several dims) is consistent with itself
    shapes = []
    for part in arrays:
        if part.dtype == bool:
            shapes += [(int(part.sum()),)] * part.ndim
        else:
            shapes.append(tuple(part.shape))
    try:
        numpy.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(str(list(shape)) for shape in shapes)) from None
