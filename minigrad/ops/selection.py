"""Choosing elements by index, mask or position: index_select, masked_fill, tril/triu, diag.
Each is a copy; its backward puts the gradient back where the chosen elements came from (zero
elsewhere). Indexing with ``a[key]`` is in ``indexing.py``."""

from __future__ import annotations

from typing import Any

from minigrad._arguments import int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import indexing, inplace
from minigrad.ops._checks import selection as checks
from minigrad.ops._util import converted_scalar
from minigrad.ops.joining import _along
from minigrad.tensor import Tensor


class IndexSelect(Function):
    """y = a's entries ``index`` along ``axis``;   da = dy added back at those entries (repeats add up)."""

    graph_inputs = (0,)  # the indices carry no gradient: PyTorch's node has one input

    @staticmethod
    def forward(ctx, a, index, axis):
        ctx.key, ctx.input_shape = _along(axis, index.array.reshape(-1)), a.array.shape
        return Tensor(get_array_module(a).take(a.array, index.array.reshape(-1), axis=axis) if a.ndim else
                    a.array.reshape(1)[index.array.reshape(-1)].reshape(()))

    @staticmethod
    def backward(ctx, grad):
        if not ctx.input_shape:
            return grad, None, None
        return indexing.GetItemBackward.apply(grad, ctx.input_shape, ctx.key, False, ctx.name()), None, None


def index_select(a: Tensor, dim: int, index: Tensor) -> Tensor:
    """The entries ``index`` (a 1-D int64/int32 tensor) of ``a`` along ``dim``, in that order (a copy)."""
    axis = checks.index_select_axis(a, dim, index)
    return IndexSelect.apply(a, index, axis)


class MaskedFill(Function):
    """y = value where mask, else a;   da = dy where not mask (0 where mask: itself a masked_fill),
    summed to a's shape by the engine."""

    graph_inputs = (0,)  # the mask carries no gradient: PyTorch's node has one input

    @staticmethod
    def forward(ctx, a, mask, value):
        ctx.mask = mask
        xp = get_array_module(a)
        return Tensor(xp.where(mask.array, xp.asarray(value, dtype=a.array.dtype), a.array))

    @staticmethod
    def backward(ctx, grad):
        return MaskedFill.apply(grad, ctx.mask, 0), None, None


def masked_fill(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    """A copy of ``a`` with ``value`` (a number or 0-d tensor) where the bool ``mask`` (broadcast) is True."""
    from minigrad.ops.elementwise import where  # noqa: PLC0415

    checks.check_mask(a, mask)
    checks.check_fill_value(value)
    if isinstance(value, Tensor):
        if value.requires_grad:  # differentiable in value too: where(mask, value, a)
            return where(mask, value.to(a.dtype), a)
        value = value.item()
    return MaskedFill.apply(a, mask, converted_scalar(value, a.dtype))  # uint8 takes -1 as 255, as PyTorch


def masked_fill_(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    """In-place :func:`masked_fill`, recorded as the other in-place ops are."""
    return inplace.apply(a, "masked_fill_", lambda t: masked_fill(t, mask, value), value)


class Triangle(Function):
    """y = a with the entries above (tril) or below (triu) diagonal ``k`` of the last two dims zeroed;
    da = dy zeroed the same way."""

    @staticmethod
    def forward(ctx, a, k, lower):
        ctx.k, ctx.lower = k, lower
        ctx._name = "TrilBackward0" if lower else "TriuBackward0"
        xp = get_array_module(a)
        return Tensor((xp.tril if lower else xp.triu)(a.array, k))

    @staticmethod
    def backward(ctx, grad):
        return Triangle.apply(grad, ctx.k, ctx.lower), None, None


def tril(a: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (j - i <= diagonal) of the last two dims; the rest zero."""
    checks.check_matrices(a, "tril")
    return Triangle.apply(a, int_argument(diagonal, "tril", "diagonal"), True)


def triu(a: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (j - i >= diagonal) of the last two dims; the rest zero."""
    checks.check_matrices(a, "triu")
    return Triangle.apply(a, int_argument(diagonal, "triu", "diagonal"), False)


def _diagonal_key(xp: Any, shape: tuple, k: int) -> tuple:
    """(rows, cols) of diagonal ``k`` of a matrix of ``shape``."""
    rows, cols = shape
    length = max(min(rows, cols - k) if k >= 0 else min(rows + k, cols), 0)
    start = xp.arange(length)
    return (start - min(k, 0), start + max(k, 0))


class Diag(Function):
    """1-D v -> the square matrix with v on diagonal k;  2-D m -> its diagonal k.
    Backward: the other way round (the diagonal of dy, or dy placed on the diagonal of zeros)."""

    @staticmethod
    def forward(ctx, a, k):
        xp = get_array_module(a)
        ctx.k, ctx.input_shape = k, a.array.shape
        if a.ndim == 1:
            n = a.shape[0] + abs(k)
            out = xp.zeros((n, n), dtype=a.array.dtype)
            out[_diagonal_key(xp, (n, n), k)] = a.array
            return Tensor(out)
        return Tensor(a.array[_diagonal_key(xp, a.array.shape, k)])

    @staticmethod
    def backward(ctx, grad):
        if len(ctx.input_shape) == 1:
            return Diag.apply(grad, ctx.k), None
        xp = get_array_module(grad)
        zeros = Tensor(xp.zeros(ctx.input_shape, dtype=grad.array.dtype))
        return indexing.IndexPut.apply(zeros, _diagonal_key(xp, ctx.input_shape, ctx.k), grad), None


def diag(a: Tensor, diagonal: int = 0) -> Tensor:
    """A vector to a square matrix with it on diagonal ``diagonal``; a matrix to that diagonal (a copy)."""
    checks.check_diag(a)
    return Diag.apply(a, int_argument(diagonal, "diag", "diagonal"))
