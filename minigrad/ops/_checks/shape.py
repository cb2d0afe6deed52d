"""Argument checks of the shape operations (``ops/shape.py``), with PyTorch's exceptions and messages,
and the list of tensors that ``cat``, ``stack``, ``hstack`` ... take."""

from __future__ import annotations

import math
import operator
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad._arguments import int_argument
from minigrad.ops._util import TORCH_TYPE_NAMES
from minigrad.tensor import Tensor, _normalize_dim


def sizes_argument(args: tuple) -> tuple:
    """``f(2, 3)`` or ``f((2, 3))`` or ``f([2, 3])`` -> (2, 3); a float size is a TypeError, as in PyTorch."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    try:
        sizes = tuple(operator.index(n) for n in args)
    except TypeError:
        raise TypeError(f"sizes must be a tuple of ints, but got {list(args)}") from None
    for position, n in enumerate(sizes, start=1):
        if not -2**63 <= n < 2**63:  # PyTorch's sizes are int64
            raise TypeError(f"argument 'size' failed to unpack the object at pos {position} with error "
                            f"\"Overflow when unpacking long long\" ({n})")
    return sizes


def infer_shape(shape: tuple, numel: int) -> tuple:
    """``shape`` for ``numel`` elements, its one ``-1`` (if any) resolved."""
    unknown = [i for i, n in enumerate(shape) if n == -1]
    known = 1
    for n in shape:
        if n != -1:
            known *= n
    if len(unknown) > 1:
        raise RuntimeError(f"only one dimension can be inferred (shape {list(shape)})")
    for index, n in enumerate(shape):
        if n < -1:
            raise RuntimeError(f"invalid shape dimension {n} at index {index} of shape {list(shape)}")
    if unknown and known == 0 and numel == 0:
        raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                           f"unspecified dimension size -1 can be any value and is ambiguous")
    if (not unknown and known != numel) or (unknown and (known == 0 or numel % known != 0)):
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    if unknown:
        shape = tuple(numel // known if n == -1 else n for n in shape)
    return shape


def check_view_as_dtype(a: Tensor, target: _dtypes.dtype) -> None:
    """PyTorch's conditions for reading ``a``'s bytes as ``target`` elements of another size."""
    if target.itemsize == a.dtype.itemsize:
        return
    array = a.array
    names = f"to view {TORCH_TYPE_NAMES[a.dtype.name]} as {TORCH_TYPE_NAMES[target.name]} " \
            f"(different element sizes)"
    if a.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {names}")
    stride = array.strides[-1] // array.itemsize
    if stride != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {names}, but got {stride}")
    ratio = target.itemsize // a.dtype.itemsize
    if ratio > 1 and a.shape[-1] % ratio:
        raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {names}, but got {a.shape[-1]}")
    for dim, step in enumerate(array.strides[:-1]):  # PyTorch counts strides in elements of the new dtype
        if ratio > 1 and (step // array.itemsize) % ratio:
            raise RuntimeError(f"self.stride({dim}) must be divisible by {ratio} {names}, "
                               f"but got {step // array.itemsize}")


def permute_axes(a: Tensor, dims: tuple) -> tuple:
    """``dims`` as axes of ``a``: one entry per dimension, each dimension once."""
    if len(dims) != a.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = {a.ndim} "
                           f"is not equal to len(dims) = {len(dims)}")
    axes = tuple(_normalize_dim(d, a.ndim) for d in dims)
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"permute(): duplicate dims are not allowed: {list(dims)}")
    return axes


def expanded_shape(a: Tensor, sizes: tuple) -> tuple:
    """The shape ``a.expand(*sizes)`` has: ``-1`` keeps a size, only size-1 dimensions may grow."""
    if len(sizes) < a.ndim:
        raise RuntimeError(f"expand(tensor of shape {list(a.shape)}, size={list(sizes)}): the number of "
                           f"sizes provided ({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({a.ndim})")
    lead = len(sizes) - a.ndim
    shape = []
    for i, size in enumerate(sizes):
        current = a.shape[i - lead] if i >= lead else None
        if size == -1:
            if current is None:
                raise RuntimeError(f"expand: -1 is not allowed in a leading, non-existing dimension {i}")
            size = current
        elif size < 0:
            raise RuntimeError(f"expand: invalid size {size} at dimension {i}: sizes must be non-negative "
                               f"(or -1 to keep a size).  Target sizes: {list(sizes)}")
        elif current is not None and current != 1 and current != size:
            raise RuntimeError(f"The expanded size of the tensor ({size}) must match the existing size "
                               f"({current}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                               f"Tensor sizes: {list(a.shape)}")
        shape.append(size)
    if math.prod(shape) >= 2**63:  # a view of no memory, but its element count is an int64
        raise RuntimeError(f"numel: integer multiplication overflow (expand to {shape})")
    return tuple(shape)


def tensor_list(tensors: Any, name: str) -> list:
    """``tensors`` (a tuple or list of Tensors, as ``cat``, ``stack``, ``hstack`` ... take) as a list."""
    if not isinstance(tensors, (tuple, list)):
        raise TypeError(f"{name}(): argument 'tensors' must be a sequence of Tensors, not "
                        f"{type(tensors).__name__}")
    for number, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {number} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def nonempty_tensor_list(tensors: Any, name: str) -> list:
    """:func:`tensor_list`, with at least one tensor (``stack``, ``hstack``, ``vstack``)."""
    tensors = tensor_list(tensors, name)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def movedim_axes(a: Tensor, source: Any, destination: Any) -> tuple[list, list]:
    """``source`` and ``destination`` as equally many distinct axes of ``a``."""
    sources = list(source) if isinstance(source, (list, tuple)) else [source]
    targets = list(destination) if isinstance(destination, (list, tuple)) else [destination]
    if len(sources) != len(targets):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({sources} dims) should "
                           f"contain the same number of dims as destination ({targets} dims)")
    sources = [_normalize_dim(int_argument(d, "movedim", "source"), a.ndim) for d in sources]
    targets = [_normalize_dim(int_argument(d, "movedim", "destination"), a.ndim) for d in targets]
    for name, dims in (("source", sources), ("destination", targets)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    return sources, targets
