"""Reductions: sum, mean, var, std and prod (max, min and their kin are in ``extremes.py``; cumsum in
``scan.py``; norm in ``distance.py``).

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
from minigrad.ops._checks import reduction as checks
from minigrad.ops._util import (
    ieee_results,
    opmath,
    product,
    reduction_axes,
)
from minigrad.ops.elementwise import Where
from minigrad.ops.padding import ConstantPad
from minigrad.ops.shape import Expand, View
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


def _var_forward(ctx: Any, a: Tensor, axes: tuple | None, keepdim: bool, correction: float,
                 root: bool = False) -> Any:
    """Σ (a - ā)² / max(N - correction, 0) as an array; nan or inf (no warning) when that is 0.
    ``root``: its square root, the standard deviation (taken before a float16 result is rounded)."""
    _remember_shapes(ctx, a, axes, keepdim)
    ctx.axes, ctx.correction = axes, correction
    ctx.count = _reduced_count(a.array.shape, axes)
    x = opmath(a.array)  # float16 in float32, as PyTorch's
    with ieee_results():  # N - correction <= 0 divides by 0, and inf - inf = nan: PyTorch stays silent
        centred = x - x.sum(axis=axes, keepdims=True) / ctx.count
        out = (centred * centred).sum(axis=axes, keepdims=keepdim) / builtins.max(ctx.count - correction, 0)
        if root:
            out = get_array_module(a).sqrt(out)
        return out.astype(a.array.dtype, copy=False)


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
        out = Tensor(_var_forward(ctx, a, axes, keepdim, correction, root=True))
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
