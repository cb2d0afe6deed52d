"""Scans along one dimension: ``cumprod``, ``cummax``, ``cummin``, ``logcumsumexp``; and ``diff``.

A scan's i-th output combines the inputs 0 … i of its line (``cumsum`` too, at the end of this file):

    cumprod:       yᵢ = Π_{j≤i} aⱼ
    cummax:        yᵢ = max_{j≤i} aⱼ, and the index of the (last) element that is the maximum
    logcumsumexp:  yᵢ = log Σ_{j≤i} e^{aⱼ}

An input aⱼ reaches every output i ≥ j, so its gradient sums over those outputs: a reversed cumulative
sum (``flip ∘ cumsum ∘ flip``). The backwards are written in tensor operations, so they can be
differentiated again.
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

import math
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad._arguments import int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.compat import return_types
from minigrad.ops._checks import reduction as checks
from minigrad.ops._checks.reduction import check_int_dim, one_axis
from minigrad.ops._util import check_tensor_arguments, ieee_results, not_implemented_for, opmath
from minigrad.ops.elementwise import where
from minigrad.ops.rearrange import flip
from minigrad.ops.scatter import ScatterAdd
from minigrad.tensor import Tensor

_INT64 = _dtypes.int64.numpy


def _reversed_cumsum(x: Tensor, axis: int) -> Tensor:
    """zⱼ = Σ_{i≥j} xᵢ along ``axis``: what every output i ≥ j sends back to input j."""
    return flip(cumsum(flip(x, axis), axis), axis)


def _positions(xp: Any, n: int, axis: int, ndim: int) -> Any:
    """0, 1, …, n − 1 laid along ``axis`` of an ``ndim``-dimensional array (to broadcast)."""
    return xp.arange(n).reshape((n,) + (1,) * (ndim - 1 - axis))


def _doubling_scan(xp: Any, combine: Any, x: Any, axis: int) -> Any:
    """combine(x₀, …, xᵢ) for every i along ``axis``, for an associative ``combine`` (max, min, logaddexp):
    log₂ n passes, each combining every element with the one ``shift`` places before it."""
    out = x.copy()
    n, shift = x.shape[axis], 1
    while shift < n:
        later = [slice(None)] * x.ndim
        earlier = [slice(None)] * x.ndim
        later[axis], earlier[axis] = slice(shift, None), slice(None, n - shift)
        out[tuple(later)] = combine(out[tuple(later)], out[tuple(earlier)].copy())
        shift *= 2
    return out


def _axis(input: Tensor, dim: Any, function: str) -> int:
    check_tensor_arguments(function, {"input": input})
    check_int_dim(dim, function)
    return one_axis(dim, input.ndim)


# --- cumprod ------------------------------------------------------------------------------------

class Cumprod(Function):
    """yᵢ = Π_{j≤i} aⱼ;   dL/daⱼ = Σ_{i≥j} gᵢ · Π_{k≤i, k≠j} aₖ.

    Without zeros that is (Σ_{i≥j} gᵢyᵢ) / aⱼ: a reversed cumulative sum. With a zero the division is
    impossible, and the sum is taken as written: for each j, the running product of the line with aⱼ
    replaced by 1 (an n × n array per line), weighted by g where i ≥ j.
    """

    @staticmethod
    def forward(ctx, a, axis, dtype):
        if dtype is None and not a.dtype.is_floating_point:
            dtype = _dtypes.int64
        ctx.axis = axis
        x = a.array.reshape(1) if a.ndim == 0 else a.array
        out = get_array_module(a).cumprod(x, axis=axis, dtype=None if dtype is None else dtype.numpy)
        out = Tensor(out.reshape(a.array.shape))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if a.ndim == 0:
            return grad, None, None
        axis = ctx.axis
        xp = get_array_module(a.array)
        if not bool((a.array == 0).any()):
            return _reversed_cumsum(grad * out, axis) / a, None, None
        n = a.shape[axis]
        lines, g = a.movedim(axis, -1), grad.movedim(axis, -1)             # (..., n)
        rows = lines.unsqueeze(-2).expand(lines.shape[:-1] + (n, n))      # row j: the line (k along -1)
        eye = Tensor(xp.eye(n, dtype=bool))
        products = Cumprod.apply(where(eye, 1.0, rows), -1 % rows.ndim, None)  # [j, i] = Π_{k≤i, k≠j} aₖ
        later = Tensor(xp.triu(xp.ones((n, n), dtype=bool)))                 # i ≥ j
        grad_a = where(later, g.unsqueeze(-2) * products, 0.0).sum(-1)
        return grad_a.movedim(-1, axis), None, None


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """yᵢ = a₀·a₁·…·aᵢ along ``dim`` (integers and bool count in int64 unless ``dtype`` says otherwise)."""
    axis = _axis(input, dim, "cumprod")
    dtype = None if dtype is None else _dtypes.dtype_argument(dtype, "cumprod")
    if dtype is not None and dtype is not input.dtype:
        input = input.to(dtype)  # noqa: A001
    return Cumprod.apply(input, axis, dtype)


# --- cummax and cummin --------------------------------------------------------------------------

class CumExtreme(Function):
    """yᵢ = max_{j≤i} aⱼ (or min) and iᵢ = the index of the last element equal to it (once a NaN is met,
    NaN and that NaN's index); dL/daⱼ = Σ of gᵢ over the outputs i whose index iᵢ is j (a scatter-add)."""

    @staticmethod
    def forward(ctx, a, axis, largest):
        ctx._name = "CummaxBackward0" if largest else "CumminBackward0"
        xp = get_array_module(a)
        x = a.array.reshape(1) if a.ndim == 0 else a.array
        with ieee_results():
            values = _doubling_scan(xp, xp.maximum if largest else xp.minimum, x, axis)  # NaN spreads
        position = _positions(xp, x.shape[axis], axis, x.ndim)
        hit = x == values
        if x.dtype.kind == "f":  # the first NaN of a line is the extreme from there on
            nan = xp.isnan(x)
            hit |= nan & (xp.cumsum(nan, axis=axis) == 1)
        index = _doubling_scan(xp, xp.maximum, xp.where(hit, position, 0), axis).astype(_INT64)
        ctx.axis, ctx.index = axis, index
        indices = Tensor(index.reshape(a.array.shape))
        ctx.mark_non_differentiable(indices)
        return Tensor(values.reshape(a.array.shape)), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        if grad.ndim == 0:
            return grad, None, None
        zeros = Tensor(get_array_module(grad).zeros(grad.shape, dtype=grad.array.dtype))
        return ScatterAdd.apply(zeros, Tensor(ctx.index), grad, ctx.axis), None, None


def cummax(input: Tensor, dim: int) -> Any:
    """Named tuple (values, indices): the running maximum along ``dim`` and where it was found."""
    values, indices = CumExtreme.apply(input, _axis(input, dim, "cummax"), True)
    return return_types.cummax(values, indices)


def cummin(input: Tensor, dim: int) -> Any:
    """Named tuple (values, indices): the running minimum along ``dim`` and where it was found."""
    values, indices = CumExtreme.apply(input, _axis(input, dim, "cummin"), False)
    return return_types.cummin(values, indices)


# --- logcumsumexp -------------------------------------------------------------------------------

def _log_positive_part(g: Tensor) -> Tensor:
    """log max(g, 0), with −∞ where g ≤ 0 (and no warning)."""
    positive = Tensor(g.array > 0)
    return where(positive, where(positive, g, 1.0).log(), -math.inf)


class Logcumsumexp(Function):
    """yᵢ = log Σ_{j≤i} e^{aⱼ};   dL/daⱼ = Σ_{i≥j} gᵢ e^{aⱼ − yᵢ}.

    Computed without overflow as a running log-add-exp; the gradient likewise in logarithms, the
    positive and negative parts of g apart: e^{aⱼ + log Σ_{i≥j} g⁺ᵢ e^{−yᵢ}} − (the same for g⁻)."""

    @staticmethod
    def forward(ctx, a, axis):
        xp = get_array_module(a)
        x = a.array.reshape(1) if a.ndim == 0 else a.array
        with ieee_results():
            out = Tensor(_doubling_scan(xp, xp.logaddexp, x, axis).reshape(a.array.shape))
        ctx.axis = axis
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if a.ndim == 0:
            return grad, None
        axis = ctx.axis

        def reversed_logcumsumexp(x: Tensor) -> Tensor:
            return flip(Logcumsumexp.apply(flip(x, axis), axis), axis)

        # where yᵢ = −∞ (every aⱼ before it is −∞) its terms are 0: selected, so no −∞ − (−∞) = NaN
        empty = Tensor(out.array == -math.inf)
        finite_out = where(empty, 0.0, out)

        def log_terms(g: Tensor) -> Tensor:  # log(g⁺ᵢ e^{−yᵢ})
            return where(empty, -math.inf, _log_positive_part(g) - finite_out)

        positive = (a + reversed_logcumsumexp(log_terms(grad))).exp()
        negative = (a + reversed_logcumsumexp(log_terms(-grad))).exp()
        return positive - negative, None


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """yᵢ = log(e^{a₀} + … + e^{aᵢ}) along ``dim``, without overflow; floating point only."""
    axis = _axis(input, dim, "logcumsumexp")
    if not input.dtype.is_floating_point:
        raise not_implemented_for("logcumsumexp_out_cpu", input)
    return Logcumsumexp.apply(input, axis)


# --- diff ---------------------------------------------------------------------------------------

def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The n-th forward difference along ``dim``: out[i] = a[i + 1] − a[i], n times (bool: a[i + 1] xor
    a[i]), after ``prepend`` and ``append`` are joined to the ends. Written with slices and ``sub``, so its
    gradient is theirs."""
    check_tensor_arguments("diff", {"input": input})
    n = int_argument(n, "diff", "n")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    check_int_dim(dim, "diff")
    axis = one_axis(dim, input.ndim)
    from minigrad.ops.joining import cat  # noqa: PLC0415

    pieces = [t for t in (prepend, input, append) if t is not None]
    x = cat(pieces, axis) if len(pieces) > 1 else input
    for _ in range(n):
        size = x.shape[axis]
        if size == 0:
            break
        later, earlier = x.narrow(axis, 1, size - 1), x.narrow(axis, 0, size - 1)
        x = later.logical_xor(earlier) if x.dtype is _dtypes.bool else later - earlier
    return x


class Cumsum(Function):
    """yᵢ = Σ_{j≤i} aⱼ along ``dim``;   dL/daⱼ = Σ_{i≥j} dL/dyᵢ (the reversed cumulative sum)."""

    @staticmethod
    def forward(ctx, a, axis, dtype):
        ctx.axis = axis
        if dtype is None and not a.dtype.is_floating_point:
            dtype = _dtypes.int64
        x = a.array.reshape(1) if a.ndim == 0 else a.array
        target = x.dtype if dtype is None else dtype.numpy
        with ieee_results():  # a float16 running sum (in float32) beyond float16's range is inf, silently
            out = get_array_module(a).cumsum(opmath(x), axis=axis, dtype=None if dtype is None else target)
            return Tensor(out.reshape(a.array.shape).astype(target, copy=False))

    @staticmethod
    def backward(ctx, grad):
        if grad.ndim == 0:
            return grad, None, None
        return _reversed_cumsum(grad, ctx.axis), None, None


def cumsum(a: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    checks.check_int_dim(dim, "cumsum")
    dtype = None if dtype is None else _dtypes.dtype_argument(dtype, "cumsum")
    return Cumsum.apply(a, checks.one_axis(dim, a.ndim), dtype)
