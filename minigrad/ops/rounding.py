"""Clamping and rounding: clamp (clamp_min, clamp_max), sign, round, floor, ceil and trunc.
Rounding is flat almost everywhere: its gradient is 0; clamp passes the gradient where the input
lies inside the bounds."""

from __future__ import annotations

import math
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._util import (
    array_of,
    converted_scalar,
    ieee_results,
    not_implemented_for,
    sign_array,
)
from minigrad.ops.elementwise import Where, where
from minigrad.tensor import Tensor


class Clamp(Function):
    """y = min(max(a, low), high);   dy/da = 1 where low ≤ a ≤ high, else 0 (0 at a nan a)."""

    node_name = "ClampBackward1"  # PyTorch's overload with number bounds

    @staticmethod
    def forward(ctx, a, low, high):
        if low is None and high is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        dtype = _dtypes.result_type(a, *(v for v in (low, high) if v is not None))
        if dtype is _dtypes.bool:
            kernel = "clamp_scalar_cpu" if low is not None and high is not None else \
                "clamp_min_scalar_cpu" if low is not None else "clamp_max_scalar_cpu"
            raise not_implemented_for(kernel, a)
        # the bounds as elements of the result's type: int8 refuses 300, uint8 takes -1 as 255
        low, high = (None if v is None else converted_scalar(v, dtype) for v in (low, high))
        ctx.save_for_backward(a)
        ctx.low, ctx.high = low, high
        out = array_of(a, dtype)
        xp = get_array_module(a)
        # Selected as PyTorch's min(max(a, low), high): a itself unless beyond a bound, so -0.0 and nan
        # stay; a nan bound gives nan.
        if low is not None:
            out = xp.where((out < low) | (low != low), low, out)
        if high is not None:
            out = xp.where((out > high) | (high != high), high, out)
        return Tensor(out.astype(dtype.numpy, copy=False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        x = a.array
        inside = (x >= ctx.low) if ctx.low is not None else None   # a constant mask: flat in a
        if ctx.high is not None:
            inside = (x <= ctx.high) if inside is None else inside & (x <= ctx.high)
        return Where.apply(Tensor(inside), grad, 0.0), None, None


def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 (PyTorch's names)
    if isinstance(min, Tensor) or isinstance(max, Tensor):  # tensor bounds: compose with where
        # Not maximum/minimum: where a equals a bound, PyTorch sends the whole gradient to a.
        out = a
        if min is not None:
            out = where(out < min, min, out)
        if max is not None:
            out = where(out > max, max, out)
        # a nan bound gives nan, and no gradient to a or the bound there (PyTorch's clamp_backward)
        for bound in (min, max):
            if isinstance(bound, Tensor) and bound.dtype.is_floating_point and bool(bound.isnan().any()):
                out = where(bound.isnan(), math.nan, out)
        return out
    return Clamp.apply(a, min, max)


def _unchanged_or_refused(a: Tensor, kernel: str) -> Tensor | None:
    """Rounding an integer tensor leaves it as it is (PyTorch returns a copy); bool has no kernel."""
    if a.dtype is _dtypes.bool:
        raise not_implemented_for(kernel, a)
    return None if a.dtype.is_floating_point else Tensor(a.array.copy())


def _zero_gradient(grad: Tensor) -> Tensor:
    """Step functions are flat almost everywhere: PyTorch's gradient is 0, even at the steps."""
    return Tensor(get_array_module(grad).zeros_like(grad.array))


class Sign(Function):
    """y = -1, 0 or 1 as a is negative, zero or positive (0 for nan, as PyTorch);   dy/da = 0."""

    @staticmethod
    def forward(ctx, a):
        if a.dtype is _dtypes.bool:
            return Tensor(a.array.copy())
        return Tensor(sign_array(get_array_module(a), a.array))

    @staticmethod
    def backward(ctx, grad):
        return _zero_gradient(grad)


class Round(Function):
    """y = a rounded to ``decimals`` places, halves to even;   dy/da = 0."""

    @staticmethod
    def forward(ctx, a, decimals):
        if decimals:
            if not a.dtype.is_floating_point:
                raise not_implemented_for("round_cpu", a)
            with ieee_results():
                return Tensor(get_array_module(a).round(a.array, decimals))
        same = _unchanged_or_refused(a, "round_vml_cpu")
        return same if same is not None else Tensor(get_array_module(a).round(a.array))

    @staticmethod
    def backward(ctx, grad):
        return _zero_gradient(grad), None


class Floor(Function):
    """y = ⌊a⌋;   dy/da = 0."""

    @staticmethod
    def forward(ctx, a):
        same = _unchanged_or_refused(a, "floor_vml_cpu")
        return same if same is not None else Tensor(get_array_module(a).floor(a.array))

    @staticmethod
    def backward(ctx, grad):
        return _zero_gradient(grad)


class Ceil(Function):
    """y = ⌈a⌉;   dy/da = 0."""

    @staticmethod
    def forward(ctx, a):
        same = _unchanged_or_refused(a, "ceil_vml_cpu")
        return same if same is not None else Tensor(get_array_module(a).ceil(a.array))

    @staticmethod
    def backward(ctx, grad):
        return _zero_gradient(grad)


class Trunc(Function):
    """y = a rounded towards 0;   dy/da = 0."""

    @staticmethod
    def forward(ctx, a):
        same = _unchanged_or_refused(a, "trunc_vml_cpu")
        return same if same is not None else Tensor(get_array_module(a).trunc(a.array))

    @staticmethod
    def backward(ctx, grad):
        return _zero_gradient(grad)


class ClampMin(Function):
    """y = max(a, low);   dy/da = 1 where a ≥ low, else 0."""

    @staticmethod
    def forward(ctx, a, low):
        return Clamp.forward(ctx, a, low, None)

    @staticmethod
    def backward(ctx, grad):
        return Clamp.backward(ctx, grad)[:2]


class ClampMax(Function):
    """y = min(a, high);   dy/da = 1 where a ≤ high, else 0."""

    @staticmethod
    def forward(ctx, a, high):
        return Clamp.forward(ctx, a, None, high)

    @staticmethod
    def backward(ctx, grad):
        return Clamp.backward(ctx, grad)[::2]


def sign(a: Tensor) -> Tensor:
    return Sign.apply(a)


def round(a: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001 (PyTorch's name)
    return Round.apply(a, decimals)


def floor(a: Tensor) -> Tensor:
    return Floor.apply(a)


def ceil(a: Tensor) -> Tensor:
    return Ceil.apply(a)


def trunc(a: Tensor) -> Tensor:
    return Trunc.apply(a)


def clamp_min(a: Tensor, min: Any) -> Tensor:  # noqa: A002 (PyTorch's name)
    if min is None:
        raise TypeError("clamp_min(): argument 'min' must be Tensor or Number, not NoneType")
    return clamp(a, min=min) if isinstance(min, Tensor) else ClampMin.apply(a, min)


def clamp_max(a: Tensor, max: Any) -> Tensor:  # noqa: A002 (PyTorch's name)
    if max is None:
        raise TypeError("clamp_max(): argument 'max' must be Tensor or Number, not NoneType")
    return clamp(a, max=max) if isinstance(max, Tensor) else ClampMax.apply(a, max)
