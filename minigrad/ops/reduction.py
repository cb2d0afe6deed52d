"""Reductions: sum, mean, var, std, max, min, amax, amin, argmax, argmin, prod, cumsum, logsumexp, norm.

Each takes ``dim`` (None for all, an int, or a tuple) and ``keepdim``. Their backward
first restores the reduced axes (as size 1) and then broadcasts over them (an ``expand``), in
minigrad operations, so that it can itself be differentiated.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import _GradMode
from minigrad.backend import get_array_module
from minigrad.compat import return_types
from minigrad.ops._checks import reduction as checks
from minigrad.ops._util import TORCH_TYPE_NAMES, grad_where, ieee_results, product, reduction_axes
from minigrad.ops.elementwise import Where
from minigrad.ops.padding import ConstantPad
from minigrad.ops.shape import Expand, Unsqueeze, View
from minigrad.tensor import ALL_DIMS, Tensor


def _expand_back(reduced: Tensor, ctx: Any) -> Tensor:
    """A reduced tensor (the output gradient, or the output) broadcast back over the input's shape:
    the reduced axes restored as size 1 where broadcasting alone would not line them up, then an
    ``expand`` (a view)."""
    if ctx.restore_axes:
        reduced = View.apply(reduced, ctx.kept_shape)
    return Expand.apply(reduced, ctx.input_shape)


def _remember_shapes(ctx: Any, a: Tensor, axes: tuple | None, keepdim: bool) -> None:
    ctx.input_shape = a.array.shape
    ctx.keepdim = keepdim
    ctx.kept_shape = tuple(1 if axes is None or i in axes else n for i, n in enumerate(a.array.shape))
    # without keepdim, only leading reduced axes (or all of them) broadcast back without a reshape
    ctx.restore_axes = not keepdim and axes is not None and axes != tuple(range(len(axes)))


def _reduced_count(shape: tuple, axes: tuple | None) -> int:
    """N, the number of elements each output value is reduced from (0 when a reduced dim is empty)."""
    return product(tuple(n for i, n in enumerate(shape) if axes is None or i in axes))


class Sum(Function):
    """y = Σ a over ``dim``;   dy/da = 1 (the gradient is broadcast back)."""

    @staticmethod
    def forward(ctx, a, axes, keepdim, dtype):
        _remember_shapes(ctx, a, axes, keepdim)
        array = a.array
        if dtype is None and not a.dtype.is_floating_point:
            dtype = _dtypes.int64  # integer and bool sums are int64, as in PyTorch
        with ieee_results():  # inf + (-inf) = nan, silently as in PyTorch
            return Tensor(array.sum(axis=axes, keepdims=keepdim,
                                    dtype=None if dtype is None else dtype.numpy))

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx), None, None, None


class SumDims(Sum):
    """``sum(a, dim)``: PyTorch's overload with dims (also the backward of expand, repeat, ...)."""

    node_name = "SumBackward1"


def sum(a: Tensor, dim: Any = ALL_DIMS, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    axes = reduction_axes(checks.dims_given(dim, keepdim, "sum"), a.ndim)
    op = Sum if dim is ALL_DIMS else SumDims
    return op.apply(a, axes, keepdim, None if dtype is None else _dtypes.dtype_argument(dtype, "sum"))


class Mean(Function):
    """y = (1/N) Σ a over ``dim``;   dy/da = 1/N."""

    @staticmethod
    def forward(ctx, a, axes, keepdim):
        _remember_shapes(ctx, a, axes, keepdim)
        ctx.count = _reduced_count(a.array.shape, axes)
        with ieee_results():  # nan from inf − inf or from 0/0 (no elements) comes silently, as in PyTorch
            if a.array.size == 0:
                out = a.array.sum(axis=axes, keepdims=keepdim) / ctx.count
            else:
                out = a.array.mean(axis=axes, keepdims=keepdim)
        return Tensor(out.astype(a.array.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx) / builtins.max(ctx.count, 1), None, None


class MeanDims(Mean):
    """``mean(a, dim)``: PyTorch's overload with dims."""

    node_name = "MeanBackward1"


def mean(a: Tensor, dim: Any = ALL_DIMS, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    dim = checks.dims_given(dim, keepdim, "mean")
    if dtype is not None:
        a = a.to(_dtypes.dtype_argument(dtype, "mean"))
    checks.check_mean_dtype(a)
    return (Mean if dim is None else MeanDims).apply(a, reduction_axes(dim, a.ndim), keepdim)


def _var_forward(ctx: Any, a: Tensor, axes: tuple | None, keepdim: bool, correction: float) -> Any:
    """Σ (a - ā)² / max(N - correction, 0) as an array; nan or inf (no warning) when that is 0."""
    _remember_shapes(ctx, a, axes, keepdim)
    ctx.axes, ctx.correction = axes, correction
    ctx.count = _reduced_count(a.array.shape, axes)
    x = a.array
    with ieee_results():  # N - correction <= 0 divides by 0, and inf - inf = nan: PyTorch stays silent
        centred = x - x.sum(axis=axes, keepdims=True) / ctx.count
        out = (centred * centred).sum(axis=axes, keepdims=keepdim) / builtins.max(ctx.count - correction, 0)
    return out.astype(x.dtype, copy=False)


def _var_backward(ctx: Any, grad: Tensor, a: Tensor) -> Tensor:
    """d var / da = 2 (a - ā) / (N - correction), with PyTorch's values when N - correction <= 0."""
    g = _expand_back(grad, ctx)
    dof = ctx.count - ctx.correction
    centred = a - (Sum if ctx.axes is None else SumDims).apply(a, ctx.axes, True, None) / ctx.count
    if dof <= 0 and ctx.axes is None:  # PyTorch's convention for a full reduction: nan at ā, else inf
        x = centred.array
        xp = get_array_module(x)
        return g * Tensor(xp.where(x == 0, x.dtype.type(math.nan), x.dtype.type(math.inf)))
    return g * centred * (2 / dof if dof != 0 else math.inf)


class Var(Function):
    """y = Σ (a - ā)² / (N - correction);   dy/da = 2 (a - ā) / (N - correction)."""

    @staticmethod
    def forward(ctx, a, axes, keepdim, correction):
        ctx.save_for_backward(a)
        return Tensor(_var_forward(ctx, a, axes, keepdim, correction))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return _var_backward(ctx, grad, a), None, None, None


class Std(Function):
    """y = sqrt(var(a));   dy/da = dvar/da / (2y), taken as 0 where y = 0 (constant data), as PyTorch."""

    @staticmethod
    def forward(ctx, a, axes, keepdim, correction):
        xp = get_array_module(a)
        out = Tensor(xp.sqrt(_var_forward(ctx, a, axes, keepdim, correction)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        grad_var = Where.apply(Tensor(out.array == 0), 0, grad / (2 * out))
        return _var_backward(ctx, grad_var, a), None, None, None


def _var_or_std(function: type[Function], name: str, a: Tensor, dim: Any, unbiased: Any, keepdim: bool,
                correction: Any) -> Tensor:
    if isinstance(dim, bool):  # var(unbiased) positional form
        dim, unbiased = None, dim
    checks.check_var_dtype(a)
    axes, correction = reduction_axes(dim, a.ndim), checks.correction_argument(unbiased, correction)
    checks.check_degrees_of_freedom(a, axes, correction, name)
    return function.apply(a, axes, keepdim, correction)


def var(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    return _var_or_std(Var, "var", a, dim, unbiased, keepdim, correction)


def std(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    return _var_or_std(Std, "std", a, dim, unbiased, keepdim, correction)


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


class MaxDim(Function):
    """(values, indices) = max of a along one ``dim``; the gradient goes to the chosen index
    (da = zeros with dvalues scattered to the indices along ``dim``)."""

    @staticmethod
    def forward(ctx, a, axis, keepdim, name):
        array = a.array
        if array.shape and array.shape[axis] == 0:
            raise IndexError(checks.EMPTY_DIM.format(name, axis, list(array.shape)))
        xp = get_array_module(a)
        arg = array.argmax(axis=axis) if name == "max" else array.argmin(axis=axis)
        arg = xp.expand_dims(arg, axis) if array.ndim else arg
        values = xp.take_along_axis(array, arg, axis=axis) if array.ndim else array.copy()
        ctx.axis, ctx.keepdim, ctx.input_shape, ctx.index = axis, keepdim, array.shape, arg
        ctx._name = "MaxBackward0" if name == "max" else "MinBackward0"
        if not keepdim and array.ndim:
            values, arg = values.squeeze(axis), arg.squeeze(axis)
        indices = Tensor(arg.astype(_dtypes.int64.numpy, copy=False))
        ctx.mark_non_differentiable(indices)
        return Tensor(values), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        from minigrad.ops.scatter import Scatter  # noqa: PLC0415 (scatter builds on the shape ops)

        if not ctx.input_shape:
            return grad, None, None, None
        if not ctx.keepdim:
            grad = Unsqueeze.apply(grad, ctx.index.shape)
        zeros = Tensor(get_array_module(grad).zeros(ctx.input_shape, dtype=grad.array.dtype))
        return Scatter.apply(zeros, Tensor(ctx.index), grad, ctx.axis, None), None, None, None


def _max_or_min(a: Tensor, dim: Any, keepdim: bool, name: str) -> Any:
    from minigrad.ops import elementwise  # noqa: PLC0415

    if isinstance(dim, Tensor):  # max(a, b): elementwise
        return elementwise.maximum(a, dim) if name == "max" else elementwise.minimum(a, dim)
    if dim is None:
        checks.check_all_dims(a, keepdim, name)
        return Amax.apply(a, None, False, name)
    checks.check_int_dim(dim, name)
    values, indices = MaxDim.apply(a, checks.one_axis(dim, a.ndim), keepdim, name)
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


class Prod(Function):
    """y = Π a over ``dim``;   dy/daᵢ = Π_{j≠i} aⱼ.

    As PyTorch computes it: y / aᵢ when no element of a is 0; otherwise the products of the elements
    before and after aᵢ (exclusive prefix products, no division, so exact at the zeros and
    differentiable again), and for a product of all elements with two or more zeros, 0 when no graph
    of the backward is recorded (PyTorch's shortcut). (The route decides where a nan or inf ends up.)
    """

    @staticmethod
    def forward(ctx, a, axes, keepdim, dtype):
        _remember_shapes(ctx, a, axes, keepdim)
        ctx.axes = axes
        if dtype is None and not a.dtype.is_floating_point:
            dtype = _dtypes.int64  # integer and bool products are int64, as in PyTorch
        out = Tensor(a.array.prod(axis=axes, keepdims=keepdim, dtype=None if dtype is None else dtype.numpy))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        if a.ndim == 0:
            return grad, None, None, None
        zeros = int((a.array == 0).sum())
        if zeros == 0:
            return _expand_back(grad, ctx) * (_expand_back(out.to(a.dtype), ctx) / a), None, None, None
        if ctx.axes is None and zeros > 1 and not _GradMode.enabled:
            # no element's gradient survives two zeros, whatever δ is
            xp = get_array_module(a)
            return Tensor(xp.zeros_like(a.array, dtype=grad.array.dtype)), None, None, None
        if ctx.axes is None:
            flat = _exclusive_products(View.apply(a, (-1,)), 0)
            without_self = View.apply(flat, a.shape)
        else:
            without_self = _exclusive_products(a, ctx.axes[0])
        return _expand_back(grad, ctx) * without_self, None, None, None


def _exclusive_products(a: Tensor, axis: int) -> Tensor:
    """Π_{j≠i} aⱼ along ``axis`` without division: (the product of those before i) · (of those after)."""
    from minigrad.ops.rearrange import Flip  # noqa: PLC0415 (rearrange builds on this module)

    before = _prefix_products(_shifted(a, axis, 1), axis)
    after = Flip.apply(_prefix_products(_shifted(Flip.apply(a, (axis,)), axis, 1), axis), (axis,))
    return before * after


def _prefix_products(x: Tensor, axis: int) -> Tensor:
    """Π_{j≤i} xⱼ along ``axis``, in log₂ n steps: each element times the one ``shift`` places before it,
    for shift = 1, 2, 4, ... Products only, so exact where x has zeros, and differentiable to any order."""
    shift = 1
    while shift < x.shape[axis]:
        x = x * _shifted(x, axis, shift)
        shift *= 2
    return x


def _shifted(x: Tensor, axis: int, shift: int) -> Tensor:
    """x moved ``shift`` places along ``axis`` (the last ones drop off), 1s coming in at the front."""
    return ConstantPad.apply(x, tuple((shift, -shift) if d == axis else (0, 0) for d in range(x.ndim)), 1)


def prod(a: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The product of all elements, or along the one ``dim`` (an int, as in PyTorch)."""
    if dim is None and keepdim:
        raise TypeError("prod() received keepdim=True without a dim: pass the dim to reduce")
    if dim is not None:
        checks.check_int_dim(dim, "prod")
    axes = None if dim is None else reduction_axes(dim, a.ndim)
    return Prod.apply(a, axes, keepdim, None if dtype is None else _dtypes.dtype_argument(dtype, "prod"))


class Cumsum(Function):
    """yᵢ = Σ_{j≤i} aⱼ along ``dim``;   dL/daⱼ = Σ_{i≥j} dL/dyᵢ (the reversed cumulative sum)."""

    @staticmethod
    def forward(ctx, a, axis, dtype):
        ctx.axis = axis
        if dtype is None and not a.dtype.is_floating_point:
            dtype = _dtypes.int64
        x = a.array.reshape(1) if a.ndim == 0 else a.array
        out = get_array_module(a).cumsum(x, axis=axis, dtype=None if dtype is None else dtype.numpy)
        return Tensor(out.reshape(a.array.shape))

    @staticmethod
    def backward(ctx, grad):
        from minigrad.ops.rearrange import Flip  # noqa: PLC0415 (rearrange builds on this module)

        if grad.ndim == 0:
            return grad, None, None
        axes = (ctx.axis,)
        return Flip.apply(Cumsum.apply(Flip.apply(grad, axes), ctx.axis, None), axes), None, None


def cumsum(a: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    checks.check_int_dim(dim, "cumsum")
    dtype = None if dtype is None else _dtypes.dtype_argument(dtype, "cumsum")
    return Cumsum.apply(a, checks.one_axis(dim, a.ndim), dtype)


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


class LinalgVectorNorm(Function):  # PyTorch's node: LinalgVectorNormBackward0
    """y = (Σ |a|ᵖ)^(1/p) over ``dim`` (max |a| for p = inf, min for -inf, the count of non-zeros for 0);
    dy/da = sign(a) |a|ᵖ⁻¹ / yᵖ⁻¹ (a / y for p = 2), 0 where y = 0; for ±inf shared among the extremes."""

    @staticmethod
    def forward(ctx, a, p, axes, keepdim):
        _remember_shapes(ctx, a, axes, keepdim)
        ctx.p = p
        xp = get_array_module(a)
        x = xp.abs(a.array)
        with ieee_results():
            if p == math.inf or p == -math.inf:
                if x.size == 0:
                    raise RuntimeError(f"linalg.vector_norm cannot compute the {p} norm on an empty tensor "
                                       f"because the operation does not have an identity")
                out = x.max(axis=axes, keepdims=keepdim) if p > 0 else x.min(axis=axes, keepdims=keepdim)
            elif p == 0:
                out = (x != 0).sum(axis=axes, keepdims=keepdim).astype(x.dtype)
            elif p == 1:
                out = x.sum(axis=axes, keepdims=keepdim)
            elif p == 2:
                out = xp.sqrt((x * x).sum(axis=axes, keepdims=keepdim))
            else:
                out = (x ** p).sum(axis=axes, keepdims=keepdim) ** (1 / p)
        out = Tensor(xp.asarray(out).astype(x.dtype, copy=False))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        xp = get_array_module(a)
        x, p = a.array, ctx.p
        y = _expand_back(out, ctx)
        g = _expand_back(grad, ctx)
        if p == math.inf or p == -math.inf:  # piecewise linear: the slope is constant
            hits = xp.abs(x) == y.array
            axes = tuple(i for i, n in enumerate(ctx.kept_shape) if n == 1 and ctx.input_shape[i] != 1)
            count = hits.sum(axis=axes, keepdims=True) if axes else 1
            slope = Tensor(xp.sign(x) * hits / count)
        elif p == 0:  # a count is flat (PyTorch leaves the gradient undefined: None)
            slope = Tensor(xp.zeros_like(x))
        elif p == 1:
            slope = Tensor(xp.sign(x))
        elif p == 2:
            slope = Where.apply(Tensor(y.array == 0), 0, a / y)
        else:
            power = Tensor(xp.sign(x)) * a.abs() ** (p - 1) / y ** (p - 1)
            slope = Where.apply(Tensor(y.array == 0), 0, power)
        return g * slope, None, None, None


def norm(a: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """The vector p-norm of all elements or over ``dim`` (``'fro'``: the 2-norm; over two dims, the
    Frobenius norm of those matrices)."""
    if dtype is not None:
        a = a.to(_dtypes.dtype_argument(dtype, "norm"))
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{TORCH_TYPE_NAMES[a.dtype.name]}")
    if isinstance(p, str):
        if p != "fro":
            raise RuntimeError(f"norm(): p={p!r} is not supported by minigrad (only numbers and 'fro')")
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
        p = 2
    return LinalgVectorNorm.apply(a, float(p), reduction_axes(dim, a.ndim), keepdim)
