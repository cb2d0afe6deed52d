"""Activation functions: relu, leaky_relu, tanh, sigmoid (the smooth ones, gelu, silu, elu and
softplus, are in ``smooth_activations.py``). Each Function states its derivative; where the
derivative is a computation of its own, it is a Function right below (PyTorch's
``threshold_backward``, ``tanh_backward``, ...), whose own backward gives the second derivative."""

from __future__ import annotations

import numbers
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import inplace as _inplace
from minigrad.ops._util import (
    ieee_results,
    not_implemented_for,
    zero_where,
)
from minigrad.ops.elementwise import _floating
from minigrad.ops.rounding import _zero_gradient
from minigrad.performance import parallel
from minigrad.tensor import Tensor


class Tanh(Function):
    """y = tanh a;   dy/da = 1 - y²."""

    @staticmethod
    def forward(ctx, a):
        out = Tensor(get_array_module(a).tanh(_floating(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return TanhBackward.apply(grad, out)


class TanhBackward(Function):
    """tanh's backward, da = dy · (1 - y²), as a Function of (dy, y);
    d(da)/d(dy) = 1 - y²,  d(da)/dy = -2y · dy."""

    @staticmethod
    def forward(ctx, grad, out):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, out)
        y = out.array
        return Tensor(grad.array * (1 - y * y))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, out = ctx.saved_tensors
        d_grad = TanhBackward.apply(grad_grad, out) if ctx.needs_input_grad[0] else None
        d_out = grad_grad * grad * out * -2 if ctx.needs_input_grad[1] else None
        return d_grad, d_out


class Sigmoid(Function):
    """y = 1 / (1 + e⁻ᵃ);   dy/da = y (1 - y).  Computed without overflow for large |a|."""

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        x = _floating(a)
        e = xp.exp(-xp.abs(x))  # in (0, 1]: never overflows
        out = Tensor(xp.where(x >= 0, 1 / (1 + e), e / (1 + e)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return SigmoidBackward.apply(grad, out)


class SigmoidBackward(Function):
    """sigmoid's backward, da = dy · y(1 - y), as a Function of (dy, y);
    d(da)/d(dy) = y(1 - y),  d(da)/dy = (1 - 2y) · dy."""

    @staticmethod
    def forward(ctx, grad, out):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, out)
        y = out.array
        return Tensor(grad.array * y * (1 - y))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, out = ctx.saved_tensors
        d_grad = SigmoidBackward.apply(grad_grad, out) if ctx.needs_input_grad[0] else None
        d_out = grad_grad * grad * (1 - 2 * out) if ctx.needs_input_grad[1] else None
        return d_grad, d_out


class Relu(Function):  # PyTorch names its node ReluBackward0
    """y = max(a, 0);   da = dy where y > 0, else 0 (also where y is nan: nan passes, as in PyTorch).

    The backward is PyTorch's ``threshold_backward``, the Function below: what a second derivative
    differentiates (its node is PyTorch's ``ThresholdBackwardBackward0``).
    """

    @staticmethod
    def forward(ctx, a):
        if a.dtype is _dtypes.bool:  # max(True, 0) has no meaning PyTorch accepts
            raise RuntimeError("Boolean inputs not supported for relu")

        def relu(x: Any, out: Any) -> Any:  # x, 0 where negative: keeps -0.0 and nan, as PyTorch's
            return zero_where(x < 0, x, out=out)

        x = a.array
        # speed: a large batch is computed in pieces on minigrad's threads, with the same numbers
        y = Tensor(parallel.map_into(relu, get_array_module(a).empty_like(x), x, passes=3))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return ThresholdBackward.apply(grad, y)


class ThresholdBackward(Function):
    """relu's backward, da = dy where y > 0, else 0; linear in dy and flat in y:
    d(da)/d(dy) = the same selection,  d(da)/dy = 0."""

    @staticmethod
    def forward(ctx, grad, y):
        def threshold_backward(out_y: Any, dy: Any, out: Any) -> Any:  # y <= 0 is false for nan: dy passes
            return zero_where(out_y <= 0, dy, out=out)

        ctx.save_for_backward(y)
        g = grad.array  # in pieces on minigrad's threads, as relu's forward
        return Tensor(parallel.map_into(threshold_backward, get_array_module(grad).empty_like(g), y.array, g,
                                        passes=3))

    @staticmethod
    def backward(ctx, grad_grad):
        (y,) = ctx.saved_tensors
        # flat in y: an exact zero, not None, so that y's graph is used (PyTorch's double backward)
        d_y = _zero_gradient(y) if ctx.needs_input_grad[1] else None
        return ThresholdBackward.apply(grad_grad, y), d_y


class LeakyRelu(Function):  # PyTorch names its node LeakyReluBackward0 (LeakyReluBackward1 in place)
    """y = a where a > 0, else s·a;   dy/da = 1 where a > 0, else s (so s at a = 0, as PyTorch)."""

    @staticmethod
    def forward(ctx, a, negative_slope, in_place):
        if not a.dtype.is_floating_point:
            raise not_implemented_for("leaky_relu_cpu", a)
        ctx.save_for_backward(a)
        ctx.negative_slope, ctx.in_place = negative_slope, in_place
        if in_place:
            ctx._name = "LeakyReluBackward1"
        x = a.array
        with ieee_results():  # -inf · 0 is nan, as PyTorch's
            return Tensor(get_array_module(a).where(x > 0, x, x * negative_slope).astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        if ctx.in_place and ctx.negative_slope < 0:
            # PyTorch's in-place node keeps only y, from which a cannot be told when s < 0.
            raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope "
                               f"({ctx.negative_slope}) which is not supported. This is caused by calling "
                               "in-place forward function with a negative slope, please call out-of-place "
                               "version instead.")
        (a,) = ctx.saved_tensors
        return LeakyReluBackward.apply(grad, a, ctx.negative_slope), None, None


class LeakyReluBackward(Function):
    """leaky_relu's backward, da = dy where a > 0, else s·dy; linear in dy and flat in a:
    d(da)/d(dy) = the same (1 or s),  d(da)/da = 0."""

    graph_inputs = (0, 1)

    @staticmethod
    def forward(ctx, grad, a, negative_slope):
        ctx.save_for_backward(a)
        ctx.negative_slope = negative_slope
        g = grad.array
        grad_a = get_array_module(grad).where(a.array > 0, g, g * negative_slope)
        return Tensor(grad_a.astype(g.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad_grad):
        (a,) = ctx.saved_tensors
        d_a = _zero_gradient(a) if ctx.needs_input_grad[1] else None   # flat in a: zero, as PyTorch
        return LeakyReluBackward.apply(grad_grad, a, ctx.negative_slope), d_a, None


def tanh(a: Tensor) -> Tensor:
    return Tanh.apply(a)


def sigmoid(a: Tensor) -> Tensor:
    return Sigmoid.apply(a)


def relu(a: Tensor) -> Tensor:
    return Relu.apply(a)


def leaky_relu(a: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """a where a > 0, else negative_slope·a; ``inplace=True`` overwrites ``a`` (as ``leaky_relu_``)."""
    if not isinstance(a, Tensor):
        raise TypeError(f"leaky_relu(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}")
    slope = _slope(negative_slope)
    if inplace:
        return _inplace.apply(a, "leaky_relu_", lambda t: LeakyRelu.apply(t, slope, True))
    return LeakyRelu.apply(a, slope, False)


def _slope(value: Any) -> numbers.Real:
    """``negative_slope`` as a Python number: PyTorch takes a real number or a 0-dim tensor."""
    if isinstance(value, Tensor) and value.ndim == 0:
        return value.item()
    if isinstance(value, numbers.Real):
        return value
    if isinstance(value, numbers.Number):
        raise RuntimeError(f"leaky_relu(): negative_slope {value!r} cannot be converted to type float "
                           "without overflow")
    raise TypeError(f"leaky_relu(): argument 'negative_slope' (position 2) must be Number, not "
                    f"{type(value).__name__}")
