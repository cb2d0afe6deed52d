"""Reductions: sum, mean, var, std, max, min, amax, amin, argmax, argmin.

Each takes ``dim`` (None for all, an int, or a tuple) and ``keepdim``. Their backward
first restores the reduced axes (as size 1) and then broadcasts over them.
"""

from __future__ import annotations

import builtins
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad import return_types
from minigrad.autograd.function import Function
from minigrad.ops._util import product, reduction_axes, wrap, xp_of
from minigrad.tensor import Tensor


def _expand_back(grad: Tensor, ctx: Any) -> Any:
    """The output gradient broadcast back over the input's shape."""
    xp = xp_of(grad)
    g = grad.array
    if not ctx.keepdim:
        g = g.reshape(ctx.kept_shape)
    return xp.broadcast_to(g, ctx.input_shape)


def _remember_shapes(ctx: Any, a: Tensor, axes: tuple | None, keepdim: bool) -> None:
    ctx.input_shape = a.array.shape
    ctx.keepdim = keepdim
    ctx.kept_shape = tuple(1 if axes is None or i in axes else n for i, n in enumerate(a.array.shape))


class Sum(Function):
    """y = Σ a over ``dim``;   dy/da = 1 (the gradient is broadcast back)."""

    @staticmethod
    def forward(ctx, a, axes, keepdim, dtype):
        _remember_shapes(ctx, a, axes, keepdim)
        array = a.array
        if dtype is None and not a.dtype.is_floating_point:
            dtype = _dtypes.int64  # integer and bool sums are int64, as in PyTorch
        return wrap(array.sum(axis=axes, keepdims=keepdim, dtype=None if dtype is None else dtype.numpy))

    @staticmethod
    def backward(ctx, grad):
        return wrap(_expand_back(grad, ctx)), None, None, None


def sum(a: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    axes = reduction_axes(dim, a.ndim)
    return Sum.apply(a, axes, keepdim, None if dtype is None else _dtypes.as_dtype(dtype))


class Mean(Function):
    """y = (1/N) Σ a over ``dim``;   dy/da = 1/N."""

    @staticmethod
    def forward(ctx, a, axes, keepdim):
        _remember_shapes(ctx, a, axes, keepdim)
        out = a.array.mean(axis=axes, keepdims=keepdim)
        ctx.count = a.array.size // builtins.max(out.size, 1) if a.array.size else 0
        return wrap(out.astype(a.array.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        return wrap(_expand_back(grad, ctx) / builtins.max(ctx.count, 1)), None, None


def mean(a: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if dtype is not None:
        a = a.to(_dtypes.as_dtype(dtype))
    if not a.dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {a.dtype.name}")
    return Mean.apply(a, reduction_axes(dim, a.ndim), keepdim)


class Var(Function):
    """y = Σ (a - ā)² / (N - correction);   dy/da = 2 (a - ā) / (N - correction)."""

    @staticmethod
    def forward(ctx, a, axes, keepdim, correction):
        _remember_shapes(ctx, a, axes, keepdim)
        ctx.save_for_backward(a)
        ctx.axes, ctx.correction = axes, correction
        out = a.array.var(axis=axes, ddof=correction, keepdims=keepdim)
        return wrap(out.astype(a.array.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        x = a.array
        centred = x - x.mean(axis=ctx.axes, keepdims=True)
        count = x.size // product(ctx.kept_shape)
        return wrap(_expand_back(grad, ctx) * centred * (2 / (count - ctx.correction))), None, None, None


def _correction(unbiased: Any, correction: Any) -> int:
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


def var(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    if isinstance(dim, bool):  # var(unbiased) positional form
        dim, unbiased = None, dim
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"std and var only support floating point and complex dtypes, got {a.dtype.name}")
    return Var.apply(a, reduction_axes(dim, a.ndim), keepdim, _correction(unbiased, correction))


def std(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    return var(a, dim, unbiased, keepdim, correction=correction).sqrt()


class Amax(Function):
    """y = max of a over ``dim``; the gradient is shared evenly among the maxima (ties)."""

    @staticmethod
    def forward(ctx, a, axes, keepdim, name):
        if a.array.size == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        _remember_shapes(ctx, a, axes, keepdim)
        out = getattr(a.array, "max" if name in ("amax", "max") else "min")(axis=axes, keepdims=keepdim)
        out = wrap(out)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        extreme = out.array if ctx.keepdim else out.array.reshape(ctx.kept_shape)
        hits = a.array == extreme
        axes = tuple(i for i, n in enumerate(ctx.kept_shape) if n == 1 and ctx.input_shape[i] != 1) or None
        count = hits.sum(axis=axes, keepdims=True) if axes else 1
        return wrap(_expand_back(grad, ctx) * hits / count), None, None, None


class MaxDim(Function):
    """(values, indices) = max of a along one ``dim``; the gradient goes to the chosen index."""

    @staticmethod
    def forward(ctx, a, axis, keepdim, name):
        array = a.array
        if array.shape and array.shape[axis] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
        xp = xp_of(a)
        arg = array.argmax(axis=axis) if name == "max" else array.argmin(axis=axis)
        arg = xp.expand_dims(arg, axis) if array.ndim else arg
        values = xp.take_along_axis(array, arg, axis=axis) if array.ndim else array.copy()
        ctx.axis, ctx.keepdim, ctx.input_shape, ctx.index = axis, keepdim, array.shape, arg
        if not keepdim and array.ndim:
            values, arg = values.squeeze(axis), arg.squeeze(axis)
        indices = wrap(arg.astype(_dtypes.int64.numpy, copy=False))
        ctx.mark_non_differentiable(indices)
        return wrap(values), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        xp = xp_of(grad)
        g = grad.array
        if not ctx.input_shape:
            return wrap(g.copy()), None, None, None
        if not ctx.keepdim:
            g = xp.expand_dims(g, ctx.axis)
        positions = xp.arange(ctx.input_shape[ctx.axis]).reshape(
            [-1 if i == ctx.axis else 1 for i in range(len(ctx.input_shape))])
        chosen = positions == ctx.index  # one True per slice along ``axis``
        return wrap(xp.where(chosen, g, g.dtype.type(0))), None, None, None


def _max_or_min(a: Tensor, dim: Any, keepdim: bool, name: str) -> Any:
    from minigrad.ops import elementwise  # noqa: PLC0415

    if isinstance(dim, Tensor):  # max(a, b): elementwise
        return elementwise.maximum(a, dim) if name == "max" else elementwise.minimum(a, dim)
    if dim is None:
        return Amax.apply(a, None, False, name)
    axis = reduction_axes(dim, a.ndim)[0] if a.ndim else 0
    values, indices = MaxDim.apply(a, axis, keepdim, name)
    return getattr(return_types, name)(values, indices)


def max(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """``max(a)``: the largest value; ``max(a, dim)``: named tuple (values, indices); ``max(a, b)``."""
    return _max_or_min(a, dim, keepdim, "max")


def min(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    return _max_or_min(a, dim, keepdim, "min")


def amax(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    axes = None if dim in ((), [], None) else reduction_axes(dim, a.ndim)
    return Amax.apply(a, axes, keepdim, "amax")


def amin(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    axes = None if dim in ((), [], None) else reduction_axes(dim, a.ndim)
    return Amax.apply(a, axes, keepdim, "amin")


def _check_reducible(a: Tensor, dim: Any, name: str) -> None:
    """An arg-reduction of an empty tensor raises PyTorch's IndexError unless ``dim`` has a size."""
    if dim is None:
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0 "
                         f"(input of shape {list(a.shape)}).")
    axis = reduction_axes(dim, a.ndim)[0] if a.ndim else 0
    if a.ndim == 0 or a.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size "
                         f"(input of shape {list(a.shape)}).")


def _arg_extreme(a: Tensor, dim: Any, keepdim: bool, name: str) -> Tensor:
    array = a.array
    if array.size == 0:
        _check_reducible(a, dim, name)
    if dim is None:
        out = getattr(array.reshape(-1), name)()
        if keepdim:
            out = out.reshape((1,) * array.ndim)
    else:
        axis = reduction_axes(dim, a.ndim)[0] if a.ndim else None
        out = getattr(array, name)(axis=axis, keepdims=keepdim) if array.ndim else getattr(array, name)()
    return wrap(xp_of(a).asarray(out).astype(_dtypes.int64.numpy, copy=False))


def argmax(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Index of the largest value (of the flattened tensor when ``dim`` is None); no gradient."""
    return _arg_extreme(a, dim, keepdim, "argmax")


def argmin(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(a, dim, keepdim, "argmin")
