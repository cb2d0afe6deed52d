"""Argument checks of the extremes (``ops/extremes.py``: max, min, amax, amin, argmax, argmin), with
PyTorch's exceptions and messages."""

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.ops._checks.reduction import check_int_dim, one_axis
from minigrad.tensor import Tensor

NO_DIM = "{}(): Expected reduction dim to be specified for input.numel() == 0 (input of shape {}). " \
          "Specify the reduction dim with the 'dim' argument."
EMPTY_DIM = "{}(): Expected reduction dim {} to have non-zero size (input of shape {})."


def check_not_empty(a: Tensor, dim: Any, axes: tuple | None, name: str) -> None:
    """A max or min over no elements has no value: PyTorch raises (RuntimeError without a dim,
    IndexError naming the first empty reduced dim as given); reducing the other dims is fine."""
    if axes is None and a.numel() == 0:
        raise RuntimeError(NO_DIM.format(name, list(a.shape)))
    given = dim if isinstance(dim, (tuple, list)) else (dim,)
    for d, axis in zip(given, axes or ()):
        if a.shape[axis] == 0:
            raise IndexError(EMPTY_DIM.format(name, d, list(a.shape)))


def check_all_dims(a: Tensor, keepdim: bool, name: str) -> None:
    """max() or min() of all elements: no keepdim (PyTorch has no such signature), some elements."""
    if keepdim:  # PyTorch has no max(keepdim=True) without a dim
        raise TypeError(f"{name}() received keepdim=True without a dim: pass the dim to reduce")
    check_not_empty(a, None, None, name)


def dim_or_other(dim: Any, other: Any, name: str) -> Any:
    """``max(a, other=b)`` is ``max(a, b)``; a dim as well is no signature PyTorch has."""
    if other is None:
        return dim
    if dim is not None or not isinstance(other, Tensor):
        raise TypeError(f"{name}() takes a dim or another Tensor (other=), not "
                        f"dim={dim!r} and other={type(other).__name__}")
    return other


def check_reducible(a: Tensor, dim: Any, name: str) -> None:
    """An arg-reduction of an empty tensor raises PyTorch's IndexError unless ``dim`` has a size."""
    if dim is None:
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0 "
                         f"(input of shape {list(a.shape)}).")
    axis = one_axis(dim, a.ndim)
    if a.ndim == 0 or a.shape[axis] == 0:
        raise IndexError(EMPTY_DIM.format(name, dim, list(a.shape)))


def check_arg_extreme(a: Tensor, dim: Any, name: str) -> None:
    """argmax or argmin: not of bools, along one int dim, of something that has elements there."""
    if a.dtype == _dtypes.bool:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is not None:
        check_int_dim(dim, name)
    if a.numel() == 0:
        check_reducible(a, dim, name)
