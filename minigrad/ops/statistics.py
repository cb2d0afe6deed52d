"""Order statistics and paired summaries: ``median``, ``nanmedian``, ``kthvalue``, ``mode``, ``quantile``,
``nanquantile``, ``nanmean``, ``std_mean``, ``var_mean`` and ``aminmax``.

Each order statistic *selects* an element of every line along ``dim``, so its gradient goes back to the
element selected, and nowhere else: ``da = zeros`` with ``dvalues`` put at ``indices`` (a ``scatter``,
whose own backward gathers again). The selection is one stable argsort of every line (NaN sorts last,
as the largest value), no loop over lines:

    kthvalue(k):  the line's k-th smallest value          (position k − 1; ties: ``kthvalue_ties.py``)
    median:       its lower median                          (position ⌊(n − 1) / 2⌋; NaN if the line has one)
    nanmedian:    the lower median of its non-NaN values   (position ⌊(c − 1) / 2⌋ of c valid values)
    mode:         its most frequent value (the smallest, if several), and where it last occurs

``median()`` of a whole tensor spreads its gradient evenly over the elements equal to the median, as
PyTorch's does. ``quantile`` interpolates between two sorted neighbours: it is written in the ops it
uses (``sort``, ``gather``, ``lerp``), so its gradient is theirs.
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

import math
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad._arguments import bool_argument, int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.compat import return_types
from minigrad.ops import extremes, reduction
from minigrad.ops._checks import reduction as checks
from minigrad.ops._checks.reduction import check_int_dim, one_axis
from minigrad.ops._util import (
    TORCH_TYPE_NAMES,
    check_tensor_arguments,
    ieee_results,
    not_implemented_for,
    reduction_axes,
)
from minigrad.ops.elementwise import where
from minigrad.ops.kthvalue_ties import kthvalue_index
from minigrad.ops.scan import _doubling_scan
from minigrad.tensor import Tensor

_INT64 = _dtypes.int64.numpy


def _sorted_positions(xp: Any, array: Any, axis: int) -> Any:
    """The stable ascending order of each line (NaN last, as the largest value, as in PyTorch)."""
    return xp.argsort(array, axis=axis, kind="stable")


def _at(xp: Any, order: Any, axis: int, position: Any) -> Any:
    """``order`` at ``position`` (a number, or one per line with ``axis`` of size 1) along ``axis``."""
    if not hasattr(position, "shape"):
        shape = list(order.shape)
        shape[axis] = 1
        position = xp.full(shape, position, dtype=_INT64)
    return xp.take_along_axis(order, position, axis=axis)


def _pick_kth(k: int) -> Any:
    def pick(xp: Any, array: Any, axis: int) -> Any:
        return kthvalue_index(xp, array, axis, k)  # among equal values, PyTorch's choice
    return pick


def _pick_median(xp: Any, array: Any, axis: int) -> Any:
    """The lower median's position; in a line with a NaN, its first NaN (the median is NaN)."""
    median = _at(xp, _sorted_positions(xp, array, axis), axis, (array.shape[axis] - 1) // 2)
    if array.dtype.kind != "f":
        return median
    nans = xp.isnan(array)
    first_nan = xp.argmax(nans, axis=axis, keepdims=True)
    return xp.where(nans.any(axis=axis, keepdims=True), first_nan, median)


def _pick_nanmedian(xp: Any, array: Any, axis: int) -> Any:
    """The lower median of the line's c non-NaN values: sorted position ⌊(c − 1) / 2⌋ (NaNs sort last)."""
    order = _sorted_positions(xp, array, axis)
    if array.dtype.kind != "f":
        return _at(xp, order, axis, (array.shape[axis] - 1) // 2)
    valid = (~xp.isnan(array)).sum(axis=axis, keepdims=True)
    return _at(xp, order, axis, xp.maximum(valid - 1, 0) // 2)


def _pick_mode(xp: Any, array: Any, axis: int) -> Any:
    """The most frequent value's last position (the smallest such value if several are as frequent).

    In the stably sorted line each run of equal values keeps its original order; ``count`` numbers the
    elements of each run 1, 2, 3 ...; the first place where the count reaches the line's largest count
    ends the smallest most frequent value's run, and a run's last element is its last occurrence."""
    order = _sorted_positions(xp, array, axis)
    ordered = xp.take_along_axis(array, order, axis=axis)
    n = array.shape[axis]
    position = xp.arange(n).reshape((n,) + (1,) * (array.ndim - 1 - axis))
    starts = xp.ones(ordered.shape, dtype=bool)
    later = [slice(None)] * array.ndim
    earlier = [slice(None)] * array.ndim
    later[axis], earlier[axis] = slice(1, None), slice(None, -1)
    starts[tuple(later)] = ordered[tuple(later)] != ordered[tuple(earlier)]
    run_start = _doubling_scan(xp, xp.maximum, xp.where(starts, position, 0), axis)
    count = position - run_start + 1
    end_of_mode = xp.argmax(count == count.max(axis=axis, keepdims=True), axis=axis, keepdims=True)
    return xp.take_along_axis(order, end_of_mode, axis=axis)


def _no_bool(input: Tensor, kernel: str) -> None:
    if input.dtype is _dtypes.bool:
        raise not_implemented_for(kernel, input)


def _select(input: Tensor, dim: Any, keepdim: Any, pick: Any, function: str, name: str) -> tuple:
    check_int_dim(dim, function)
    keepdim = bool_argument(keepdim, function, "keepdim")
    axis = one_axis(dim, input.ndim)
    size = input.shape[axis] if input.ndim else 1
    if size == 0:
        raise IndexError(f"{function}(): Expected reduction dim {axis} to have non-zero size.")
    return extremes.SelectAlong.apply(input, axis, keepdim, pick, name)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """Named tuple (values, indices): the k-th smallest element of each line along ``dim``."""
    check_tensor_arguments("kthvalue", {"input": input})
    _no_bool(input, "kthvalue_cpu")
    k = int_argument(k, "kthvalue", "k", position=2)
    check_int_dim(dim, "kthvalue")
    axis = one_axis(dim, input.ndim)
    size = input.shape[axis] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis} "
                           f"(k = {k}, size {size})")
    values, indices = _select(input, dim, keepdim, _pick_kth(k), "kthvalue", "KthvalueBackward0")
    return return_types.kthvalue(values, indices)


class Median(Function):
    """y = the lower median of all elements (NaN if there is one);   dy/da is spread evenly over the elements
    equal to y: 1/m on each of the m of them, 0 elsewhere (PyTorch's choice at ties)."""

    @staticmethod
    def forward(ctx, a, ignore_nan):
        ctx._name = "NanmedianBackward0" if ignore_nan else "MedianBackward0"
        xp = get_array_module(a)
        flat = a.array.reshape(-1)
        if flat.size == 0:
            out = xp.full((), math.nan, dtype=a.array.dtype)
        else:
            pick = _pick_nanmedian if ignore_nan else _pick_median
            out = flat[pick(xp, flat, 0)].reshape(())
        result = Tensor(out)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        x, y = a.array, result.array
        xp = get_array_module(x)
        chosen = (x == y) | (xp.isnan(x) & xp.isnan(y))  # NaN: the NaNs share it
        count = max(int(chosen.sum()), 1)
        return where(Tensor(chosen), grad.expand(a.shape) / count, 0.0), None


def _median(input: Tensor, dim: Any, keepdim: Any, ignore_nan: bool) -> Any:
    function = "nanmedian" if ignore_nan else "median"
    check_tensor_arguments(function, {"input": input})
    _no_bool(input, "median_cpu")
    if dim is None:
        return Median.apply(input, ignore_nan)
    pick = _pick_nanmedian if ignore_nan else _pick_median
    values, indices = _select(input, dim, keepdim, pick, function,
                              "NanmedianBackward1" if ignore_nan else "MedianBackward1")
    return getattr(return_types, function)(values, indices)


def median(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median: of all elements (a 0-d tensor), or of each line along ``dim`` as a named tuple
    (values, indices). A line with a NaN has median NaN."""
    return _median(input, dim, keepdim, ignore_nan=False)


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """``median`` of the non-NaN values (NaN only where all are NaN)."""
    return _median(input, dim, keepdim, ignore_nan=True)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """Named tuple (values, indices): each line's most frequent value (the smallest of equally frequent
    ones) and the index of its last occurrence, as PyTorch's CPU kernel."""
    check_tensor_arguments("mode", {"input": input})
    values, indices = _select(input, dim, keepdim, _pick_mode, "mode", "ModeBackward0")
    return return_types.mode(values, indices)


# --- quantile: interpolating between sorted neighbours ------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _q_values(function: str, input: Tensor, q: Any, interpolation: str) -> Any:
    """PyTorch's checks of quantile's arguments; the q values as an array of input's dtype."""
    check_tensor_arguments(function, {"input": input})
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{function}() interpolation must be one of linear, lower, higher, midpoint or "
                           f"nearest. Got {interpolation}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{function}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{function}() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{function}() q tensor must be same dtype as the input tensor")
        qs = q.array.reshape(-1)
    else:
        qs = get_array_module(input).asarray([float(q)], dtype=input.array.dtype)
    if qs.size and not bool(((qs >= 0) & (qs <= 1)).all()):
        raise RuntimeError(f"{function}() q values must be in the range [0, 1]")
    if input.numel() == 0:
        raise RuntimeError(f"{function}() input tensor must be non-empty")
    return qs


def _lines(function: str, input: Tensor, dim: Any, keepdim: bool) -> tuple:
    """(the lines to reduce, as the last dimension of a tensor; the result's shape for one q)."""
    if dim is None:
        return input.reshape(-1), (1,) * input.ndim if keepdim else ()
    check_int_dim(dim, function)
    axis = one_axis(dim, input.ndim)
    if input.ndim == 0:
        return input.reshape(1), ()
    kept = (1,) if keepdim else ()
    return input.movedim(axis, -1), tuple(input.shape[:axis]) + kept + tuple(input.shape[axis + 1:])


def _quantile(input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str, ignore_nan: bool) -> Tensor:
    """For each line of n sorted values s₀ ≤ … ≤ sₙ₋₁ (c of them not NaN) and each q: the rank
    r = q·(n − 1) (q·(c − 1) for nanquantile), and s at r between s⌊r⌋ and s⌈r⌉: s⌊r⌋ + w·(s⌈r⌉ − s⌊r⌋)
    with w = r − ⌊r⌋ ('linear'), ½ ('midpoint'), or one of the two ('lower', 'higher', 'nearest').
    A line whose answer is NaN (a NaN in it; for nanquantile, nothing but NaNs) takes rank n − 1: NaN."""
    function = "nanquantile" if ignore_nan else "quantile"
    qs = _q_values(function, input, q, interpolation)
    lines, out_shape = _lines(function, input, dim, keepdim)
    ordered = lines.sort(-1).values  # (..., n), NaN last
    xp = get_array_module(input)
    n, dtype = ordered.shape[-1], ordered.array.dtype
    nan = xp.isnan(ordered.array)
    count = (~nan).sum(axis=-1, keepdims=True) if ignore_nan else xp.full(nan.shape[:-1] + (1,), n)
    nan_answer = Tensor(count == 0 if ignore_nan else nan.any(axis=-1, keepdims=True))
    q_column = (q if isinstance(q, Tensor) else Tensor(qs)).reshape((-1,) + (1,) * ordered.ndim)  # (Q, 1, …)
    rank = where(nan_answer, n - 1.0, q_column * Tensor((count - 1).astype(dtype)))  # (Q, ..., 1)
    position = xp.round(rank.array) if interpolation == "nearest" else rank.array  # halves to even
    below, above = xp.floor(position).astype(_INT64), xp.ceil(position).astype(_INT64)
    if interpolation == "lower":
        above = below
    elif interpolation == "higher":
        below = above
    if interpolation == "linear":
        weight = rank - Tensor(below.astype(dtype))  # differentiable in q, as PyTorch's
    else:
        weight = Tensor(xp.full(below.shape, 0.5 if interpolation == "midpoint" else 0.0, dtype=dtype))
    expanded = ordered.unsqueeze(0).expand((qs.size,) + tuple(ordered.shape))  # (Q, ..., n)
    low, high = expanded.gather(-1, Tensor(below)), expanded.gather(-1, Tensor(above))
    result = low.lerp(high, weight).reshape((qs.size, *out_shape))
    return result if isinstance(q, Tensor) and q.ndim == 1 else result.squeeze(0)


def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The q-th quantiles of all elements, or of each line along ``dim`` (q a number or a 1-D tensor, whose
    values form a new first dimension); a line with a NaN gives NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """``quantile`` of the non-NaN values of each line (NaN only where all are NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


# --- NaN-skipping and paired summaries ------------------------------------------------------------

def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean of the non-NaN values: Σ (NaNs as 0) / (number of non-NaN values); the NaNs get no
    gradient."""
    check_tensor_arguments("nanmean", {"input": input})
    if dtype is not None:
        input = input.to(_dtypes.dtype_argument(dtype, "nanmean"))  # noqa: A001
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{TORCH_TYPE_NAMES[input.dtype.name]}")
    nan = Tensor(get_array_module(input).isnan(input.array))
    total = reduction.sum(where(nan, 0.0, input), _all_dims(dim), keepdim)
    count = reduction.sum(~nan, _all_dims(dim), keepdim)
    return total / count


def _all_dims(dim: Any) -> Any:
    return reduction.ALL_DIMS if dim is None else dim


class VarMean(Function):
    """(v, m) = (var a, mean a) over ``axes`` in one node (or (std a, mean a));
    da = dvar/da · dv + dm / N, with dvar/da = 2 (a − ā) / (N − correction) and dv = ds / (2s) for the std
    (0 where s = 0, as ``std``'s)."""

    @staticmethod
    def forward(ctx, a, axes, keepdim, correction, root):
        ctx._name = "StdMeanBackward0" if root else "VarMeanBackward0"
        ctx.root = root
        xp = get_array_module(a)
        variance = reduction._var_forward(ctx, a, axes, keepdim, correction)  # sets ctx.count, the shapes
        spread = Tensor(xp.sqrt(variance) if root else variance)
        with ieee_results():  # 0/0 for no elements: nan, as PyTorch's
            mean = a.array.sum(axis=axes, keepdims=keepdim) / ctx.count
        ctx.save_for_backward(a, spread)
        return spread, Tensor(mean.astype(a.array.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad_spread, grad_mean):
        a, spread = ctx.saved_tensors
        grad_var = grad_spread
        if ctx.root:
            grad_var = where(Tensor(spread.array == 0), 0.0, grad_spread / (2 * spread))
        grad_a = reduction._var_backward(ctx, grad_var, a)
        grad_a = grad_a + reduction._expand_back(grad_mean, ctx) / max(ctx.count, 1)
        return grad_a, None, None, None, None


def _moments(function: str, input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any,
             root: bool) -> tuple:
    check_tensor_arguments(function, {"input": input})
    if isinstance(dim, bool):  # std_mean(x, unbiased) positional form
        dim, unbiased = None, dim
    checks.check_var_dtype(input)
    axes, correction = reduction_axes(dim, input.ndim), checks.correction_argument(unbiased, correction)
    checks.check_degrees_of_freedom(input, axes, correction, function)
    return VarMean.apply(input, axes, keepdim, correction, root)


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    """(std, mean) over ``dim`` in one call and one graph node (``StdMeanBackward0``)."""
    return _moments("std_mean", input, dim, unbiased, keepdim, correction, root=True)


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    """(var, mean) over ``dim`` in one call and one graph node (``VarMeanBackward0``)."""
    return _moments("var_mean", input, dim, unbiased, keepdim, correction, root=False)


class Aminmax(Function):
    """(min a, max a) over ``axes`` in one node; each gradient is shared evenly among the elements equal to
    its extreme (``amin``'s and ``amax``'s backward, added)."""

    @staticmethod
    def forward(ctx, a, axes, keepdim):
        ctx.axes, ctx.keepdim = axes, keepdim
        low = Tensor(a.array.min(axis=axes, keepdims=keepdim))
        high = Tensor(a.array.max(axis=axes, keepdims=keepdim))
        ctx.save_for_backward(a, low, high)
        return low, high

    @staticmethod
    def backward(ctx, grad_low, grad_high):
        a, low, high = ctx.saved_tensors
        axes, keepdim = ctx.axes, ctx.keepdim
        share_low = extremes.AmaxBackward.apply(grad_low, a.array, low.array, "amin", axes, keepdim)
        share_high = extremes.AmaxBackward.apply(grad_high, a.array, high.array, "amax", axes, keepdim)
        return share_low + share_high, None, None


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """Named tuple (min, max) over all elements or ``dim``, in one node (``AminmaxBackward0``)."""
    check_tensor_arguments("aminmax", {"input": input})
    if dim is not None:
        check_int_dim(dim, "aminmax")
    axes = reduction_axes(dim, input.ndim)
    if input.numel() == 0 and (axes is None or any(input.shape[a] == 0 for a in axes)):
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                           "has no identity.")
    low, high = Aminmax.apply(input, axes, keepdim)
    return return_types.aminmax(low, high)
