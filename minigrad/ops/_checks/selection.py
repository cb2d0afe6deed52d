"""Argument checks of the selection operations (``ops/selection.py``: index_select, masked_fill,
tril/triu, diag), with PyTorch's exceptions and messages."""

from __future__ import annotations

from numbers import Number
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad._arguments import int_argument
from minigrad.ops._util import check_broadcast_shapes
from minigrad.tensor import Tensor, _normalize_dim


def index_select_axis(a: Tensor, dim: Any, index: Any) -> int:
    """The axis of ``a.index_select(dim, index)``, after PyTorch's checks of ``index``: a 1-D int64/int32
    tensor on ``a``'s device, every entry in range."""
    if not isinstance(index, Tensor):
        raise TypeError(f"index_select(): argument 'index' (position 2) must be Tensor, not "
                        f"{type(index).__name__}")
    axis = _normalize_dim(int_argument(dim, "index_select", "dim"), a.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector (got index of shape "
                         f"{list(index.shape)})")
    if index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(f"index_select(): Expected dtype int32 or int64 for index (got "
                           f"{index.dtype.name})")
    if index.device != a.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found {a.device} and "
                           f"{index.device} (index_select)")
    size = a.shape[axis] if a.ndim else 1
    if a.ndim == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} "
                           f"value(s)")
    array = index.array
    bad = (array < 0) | (array >= size)
    if bool(bad.any()):  # checked here, since CuPy would wrap an out-of-range index around
        first = int(array[bad].reshape(-1)[0])
        if axis == 1:  # PyTorch's CPU kernel for dim 1 raises a RuntimeError, the others an IndexError
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={first} axis_dim={size}")
        raise IndexError(f"index out of range in self: index {first} for dimension {axis} with size {size}")
    return axis


def check_mask(a: Tensor, mask: Any) -> None:
    """``masked_fill``'s mask: a bool tensor on ``a``'s device that broadcasts to ``a``'s shape."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_fill(): argument 'mask' (position 1) must be Tensor, not "
                        f"{type(mask).__name__}")
    if mask.dtype is not _dtypes.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.name}")
    if mask.device != a.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found {a.device} and "
                           f"{mask.device} (masked_fill)")
    check_broadcast_shapes(tuple(a.shape), tuple(mask.shape))


def check_fill_value(value: Any) -> None:
    """``masked_fill``'s value: a number or a 0-d tensor."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                               f"with {value.ndim} dimension(s).")
    elif not isinstance(value, Number):
        raise TypeError(f"masked_fill(): argument 'value' must be Number, not {type(value).__name__}")


def check_matrices(a: Tensor, function: str) -> None:
    """tril and triu act on the last two dimensions."""
    if a.ndim < 2:
        raise RuntimeError(f"{function}: input tensor must have at least 2 dimensions (got shape "
                           f"{list(a.shape)})")


def check_diag(a: Tensor) -> None:
    if a.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {a.ndim}D")
