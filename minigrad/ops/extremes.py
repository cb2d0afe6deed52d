"""The extremes of a tensor: max, min, amax, amin, argmax, argmin, and the soft maximum logsumexp.

Each takes ``dim`` and ``keepdim`` as the other reductions (``reduction.py``). The gradient of a
maximum goes to the elements that attain it: ``max(dim)`` picks one (the index it returns),
``amax`` shares it evenly among ties, as PyTorch's; logsumexp's is the softmax.
"""

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.compat import return_types
from minigrad.ops._checks import extremes as checks
from minigrad.ops._util import (
    grad_where,
    ieee_results,
    reduction_axes,
)
from minigrad.ops.elementwise import Where
from minigrad.ops.reduction import Sum, SumDims, _expand_back, _remember_shapes
from minigrad.ops.scatter import Scatter
from minigrad.tensor import Tensor

_INT64 = _dtypes.int64.numpy
# PyTorch's node names: max() and min() of all elements are the second overloads of max and min.
_AMAX_NODE_NAMES = {"amax": "AmaxBackward0", "amin": "AminBackward0", "max": "MaxBackward1",
                    "min": "MinBackward1"}


class Amax(Function):
    """y = max of a over ``dim``; the gradient is shared evenly among the maxima (ties).

    A nan is the maximum of anything it is in. ``max()``/``min()`` give the gradient to the nans;
    ``amax``/``amin`` find no element equal to nan and give nan everywhere, both as PyTorch.
    ``max()``/``min()`` select the maxima (a nan or inf δ reaches only them); ``amax``/``amin``
    multiply δ by the 0/1 mask, as PyTorch's ``scale_grad_by_count`` does.
    """

    @staticmethod
    def forward(ctx, a, axes, keepdim, name):
        _remember_shapes(ctx, a, axes, keepdim)
        ctx.axes = axes
        ctx.kind = name
        ctx._name = _AMAX_NODE_NAMES[name]
        out = getattr(a.array, "max" if name in ("amax", "max") else "min")(axis=axes, keepdims=keepdim)
        out = Tensor(out)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return AmaxBackward.apply(grad, a.array, out.array, ctx.kind, ctx.axes, ctx.keepdim), None, None, None


class AmaxBackward(Function):
    """da = dy / count at the ``count`` elements equal to the extreme (the hits), 0 elsewhere: the
    backward of :class:`Amax` (``max()``/``min()`` select by the hits, ``amax``/``amin`` multiply
    by the 0/1 mask). It is linear in dy: d(da)/d(dy) sums dx·hits / count back over the reduced axes.
    """

    node_name = "AmaxBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, a, out, kind, axes, keepdim):
        xp = get_array_module(a)
        kept_shape = tuple(1 if axes is None or i in axes else n for i, n in enumerate(a.shape))
        extreme = out if keepdim else out.reshape(kept_shape)
        hits = a == extreme
        if kind in ("max", "min") and a.dtype.kind == "f":
            hits = hits | (xp.isnan(a) & xp.isnan(extreme))
        count = hits.sum(axis=axes if axes is not None else tuple(range(a.ndim)), keepdims=True)
        ctx.hits, ctx.count, ctx.kind, ctx.axes, ctx.keepdim = hits, count, kind, axes, keepdim
        g = grad.array if keepdim else grad.array.reshape(kept_shape)
        # amax over a nan: no hits, 0/0 = nan, as PyTorch's
        share = (xp.broadcast_to(g, a.shape) / count).astype(grad.array.dtype, copy=False)
        if kind in ("max", "min"):
            return Tensor(grad_where(hits, share))
        return Tensor(share * hits)

    @staticmethod
    def backward(ctx, grad):
        hits = Tensor(ctx.hits)
        routed = Where.apply(hits, grad, 0) if ctx.kind in ("max", "min") else grad * hits
        grad_grad = (Sum if ctx.axes is None else SumDims).apply(routed / Tensor(ctx.count), ctx.axes,
                                                                 ctx.keepdim, None)
        return grad_grad, None, None, None, None, None


class SelectAlong(Function):
    """(values, indices) = the elements ``pick`` chooses in every line along ``axis``: one for
    ``max(dim)``, ``kthvalue``, ``median(dim)``, ``mode``; k for ``topk``; the line in order for ``sort``.

    da = zeros with dvalues put back at indices (zeros.scatter(axis, indices, dvalues)). Each caller
    names the node as PyTorch does (``MaxBackward0``, ``TopkBackward0``, ``MedianBackward1`` ...).
    """

    @staticmethod
    def forward(ctx, a, axis, keepdim, pick, name):
        ctx._name = name
        xp = get_array_module(a)
        array = a.array.reshape(1) if a.ndim == 0 else a.array  # a 0-d tensor: a line of its one value
        index = pick(xp, array, axis) if a.ndim else xp.zeros(1, dtype=_INT64)  # axis kept: the picks
        index = index.astype(_INT64, copy=False)
        values = xp.take_along_axis(array, index, axis=axis)
        ctx.input_shape, ctx.axis, ctx.index, ctx.keepdim = a.shape, axis, index, keepdim
        if a.ndim == 0 or not keepdim:  # one pick per line: its dimension goes
            shape = tuple(n for d, n in enumerate(index.shape) if d != axis) if a.ndim else ()
            values, index = values.reshape(shape), index.reshape(shape)
        indices = Tensor(index)
        ctx.mark_non_differentiable(indices)
        return Tensor(values), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        if not ctx.input_shape:  # a 0-d tensor: its one value
            return grad, None, None, None, None
        if not ctx.keepdim:
            grad = grad.unsqueeze(ctx.axis)
        zeros = Tensor(get_array_module(grad).zeros(ctx.input_shape, dtype=grad.array.dtype))
        return Scatter.apply(zeros, Tensor(ctx.index), grad, ctx.axis, None), None, None, None, None


def _first_max(xp: Any, array: Any, axis: int) -> Any:
    """Where each line's maximum first is (its first NaN, if it has one), ``axis`` kept."""
    return xp.expand_dims(array.argmax(axis=axis), axis)


def _first_min(xp: Any, array: Any, axis: int) -> Any:
    return xp.expand_dims(array.argmin(axis=axis), axis)


def _max_or_min(a: Tensor, dim: Any, keepdim: bool, name: str) -> Any:
    from minigrad.ops import elementwise  # noqa: PLC0415

    if isinstance(dim, Tensor):  # max(a, b): elementwise
        return elementwise.maximum(a, dim) if name == "max" else elementwise.minimum(a, dim)
    if dim is None:
        checks.check_all_dims(a, keepdim, name)
        return Amax.apply(a, None, False, name)
    checks.check_int_dim(dim, name)
    axis = checks.one_axis(dim, a.ndim)
    if a.ndim and a.shape[axis] == 0:
        raise IndexError(checks.EMPTY_DIM.format(name, axis, list(a.shape)))
    pick, node_name = (_first_max, "MaxBackward0") if name == "max" else (_first_min, "MinBackward0")
    values, indices = SelectAlong.apply(a, axis, keepdim, pick, node_name)
    return getattr(return_types, name)(values, indices)


def max(a: Tensor, dim: Any = None, keepdim: bool = False, *, other: Tensor | None = None) -> Any:  # noqa: A001
    """``max(a)``: the largest value; ``max(a, dim)``: named tuple (values, indices); ``max(a, b)``."""
    return _max_or_min(a, checks.dim_or_other(dim, other, "max"), keepdim, "max")


def min(a: Tensor, dim: Any = None, keepdim: bool = False, *, other: Tensor | None = None) -> Any:  # noqa: A001
    return _max_or_min(a, checks.dim_or_other(dim, other, "min"), keepdim, "min")


def amax(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    axes = None if dim in ((), [], None) else reduction_axes(dim, a.ndim)
    checks.check_not_empty(a, dim, axes, "amax")
    return Amax.apply(a, axes, keepdim, "amax")


def amin(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    axes = None if dim in ((), [], None) else reduction_axes(dim, a.ndim)
    checks.check_not_empty(a, dim, axes, "amin")
    return Amax.apply(a, axes, keepdim, "amin")


def _arg_extreme(a: Tensor, dim: Any, keepdim: bool, name: str) -> Tensor:
    checks.check_arg_extreme(a, dim, name)
    array = a.array
    if dim is None:
        out = getattr(array.reshape(-1), name)()
        if keepdim:
            out = out.reshape((1,) * array.ndim)
    else:
        axis = checks.one_axis(dim, a.ndim)
        out = getattr(array, name)(axis=axis, keepdims=keepdim) if array.ndim else getattr(array, name)()
    return Tensor(get_array_module(a).asarray(out).astype(_dtypes.int64.numpy, copy=False))


def argmax(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Index of the largest value (of the flattened tensor when ``dim`` is None); no gradient."""
    return _arg_extreme(a, dim, keepdim, "argmax")


def argmin(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(a, dim, keepdim, "argmin")


class Logsumexp(Function):  # PyTorch's node: LogsumexpBackward0
    """y = log Σ eᵃ over ``dim``, as m + log Σ e^(a - m) with m = max a (no overflow);
    dy/da = e^(a - y) (the softmax)."""

    @staticmethod
    def forward(ctx, a, axes, keepdim):
        _remember_shapes(ctx, a, axes, keepdim)
        xp = get_array_module(a)
        x = a.array if a.dtype.is_floating_point else a.array.astype(_dtypes.get_default_dtype().numpy)
        if x.size:
            m = x.max(axis=axes, keepdims=True)
            m = xp.where(xp.isinf(m), x.dtype.type(0), m)  # all -inf (or an inf): shifting would give nan
        else:  # an empty slice sums to 0: log 0 = -inf
            m = xp.zeros(ctx.kept_shape, dtype=x.dtype)
        with ieee_results():
            out = xp.log(xp.exp(x - m).sum(axis=axes, keepdims=True)) + m
        if not keepdim:
            out = out.reshape(tuple(n for i, n in enumerate(x.shape) if axes is not None and i not in axes))
        out = Tensor(out)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        # all -inf: -inf - (-inf) = nan, as PyTorch's
        softmax = (a - _expand_back(out, ctx)).exp()
        return _expand_back(grad, ctx) * softmax, None, None


def logsumexp(a: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return Logsumexp.apply(a, reduction_axes(dim, a.ndim), keepdim)
