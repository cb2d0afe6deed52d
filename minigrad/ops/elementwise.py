"""Elementwise functions: exp, log, sqrt, sin, cos, tanh, sigmoid, relu, leaky_relu, abs,
clamp, maximum, minimum and where. Each backward multiplies the incoming gradient by the
function's derivative at the input (or, where cheaper, at the saved output)."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.ops import inplace as _inplace
from minigrad.ops._util import (
    apply_broadcasting,
    array_of,
    as_operand,
    first_tensor,
    ieee_results,
    not_implemented_for,
    wrap,
    xp_of,
)
from minigrad.tensor import Tensor


def _floating(a: Tensor) -> Any:
    """The input's array, as the default float dtype if it is an integer or bool tensor."""
    array = a.array
    if a.dtype.is_floating_point:
        return array
    return array.astype(_dtypes.get_default_dtype().numpy)


class Exp(Function):
    """y = eᵃ;   dy/da = y."""

    @staticmethod
    def forward(ctx, a):
        with ieee_results():
            out = wrap(xp_of(a).exp(_floating(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return wrap(grad.array * out.array)


class Log(Function):
    """y = ln a;   dy/da = 1 / a."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with ieee_results():
            return wrap(xp_of(a).log(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        with ieee_results():
            return wrap(grad.array / a.array)


class Sqrt(Function):
    """y = √a;   dy/da = 1 / (2y)."""

    @staticmethod
    def forward(ctx, a):
        with ieee_results():
            out = wrap(xp_of(a).sqrt(_floating(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        with ieee_results():
            return wrap(grad.array / (2 * out.array))


class Sin(Function):
    """y = sin a;   dy/da = cos a."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return wrap(xp_of(a).sin(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return wrap(grad.array * xp_of(a).cos(a.array))


class Cos(Function):
    """y = cos a;   dy/da = -sin a."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return wrap(xp_of(a).cos(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return wrap(-grad.array * xp_of(a).sin(a.array))


class Tanh(Function):
    """y = tanh a;   dy/da = 1 - y²."""

    @staticmethod
    def forward(ctx, a):
        out = wrap(xp_of(a).tanh(_floating(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        y = out.array
        return wrap(grad.array * (1 - y * y))


class Sigmoid(Function):
    """y = 1 / (1 + e⁻ᵃ);   dy/da = y (1 - y).  Computed without overflow for large |a|."""

    @staticmethod
    def forward(ctx, a):
        xp = xp_of(a)
        x = _floating(a)
        e = xp.exp(-xp.abs(x))  # in (0, 1]: never overflows
        out = wrap(xp.where(x >= 0, 1 / (1 + e), e / (1 + e)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        y = out.array
        return wrap(grad.array * y * (1 - y))


class Relu(Function):  # PyTorch names its node ReluBackward0
    """y = max(a, 0);   dy/da = 1 where a > 0, else 0."""

    @staticmethod
    def forward(ctx, a):
        if a.dtype is _dtypes.bool:  # max(True, 0) has no meaning PyTorch accepts
            raise RuntimeError("Boolean inputs not supported for relu")
        out = wrap(xp_of(a).maximum(a.array, 0).astype(a.array.dtype, copy=False))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return wrap(grad.array * (out.array > 0))


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
            return wrap(xp_of(a).where(x > 0, x, x * negative_slope).astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        if ctx.in_place and ctx.negative_slope < 0:
            # PyTorch's in-place node keeps only y, from which a cannot be told when s < 0.
            raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope "
                               f"({ctx.negative_slope}) which is not supported. This is caused by calling "
                               "in-place forward function with a negative slope, please call out-of-place "
                               "version instead.")
        (a,) = ctx.saved_tensors
        g = grad.array
        with ieee_results():
            grad_a = xp_of(grad).where(a.array > 0, g, g * ctx.negative_slope).astype(g.dtype, copy=False)
        return wrap(grad_a), None, None


class Abs(Function):
    """y = |a|;   dy/da = sign(a) (0 at 0)."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return wrap(xp_of(a).abs(a.array))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return wrap(grad.array * xp_of(a).sign(a.array))


class Clamp(Function):
    """y = min(max(a, low), high);   dy/da = 1 where low ≤ a ≤ high, else 0."""

    @staticmethod
    def forward(ctx, a, low, high):
        if low is None and high is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        ctx.save_for_backward(a)
        ctx.low, ctx.high = low, high
        dtype = _dtypes.result_type(a, *(v for v in (low, high) if v is not None))
        out = array_of(a, dtype)
        xp = xp_of(a)
        if low is not None:
            out = xp.maximum(out, low)
        if high is not None:
            out = xp.minimum(out, high)
        return wrap(out.astype(dtype.numpy, copy=False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        inside = True
        if ctx.low is not None:
            inside = inside & (a.array >= ctx.low)
        if ctx.high is not None:
            inside = inside & (a.array <= ctx.high)
        return wrap(grad.array * inside), None, None


class Maximum(Function):
    """y = max(a, b) elementwise; the gradient goes to the larger input, half to each on a tie."""

    @staticmethod
    def forward(ctx, a, b):
        return _extremum(ctx, a, b, "maximum")

    @staticmethod
    def backward(ctx, grad):
        return _extremum_backward(ctx, grad)


class Minimum(Function):
    """y = min(a, b) elementwise; the gradient goes to the smaller input, half to each on a tie."""

    @staticmethod
    def forward(ctx, a, b):
        return _extremum(ctx, a, b, "minimum")

    @staticmethod
    def backward(ctx, grad):
        return _extremum_backward(ctx, grad)


def _extremum(ctx: Any, a: Tensor, b: Tensor, name: str) -> Tensor:
    dtype = _dtypes.result_type(a, b)
    x, y = array_of(a, dtype), array_of(b, dtype)
    ctx.save_for_backward(a, b)
    ctx.name = name
    return wrap(getattr(xp_of(a), name)(x, y))


def _extremum_backward(ctx: Any, grad: Tensor) -> tuple:
    a, b = ctx.saved_tensors
    x, y = a.array, b.array
    a_wins = (x > y) if ctx.name == "maximum" else (x < y)
    share_a = a_wins + 0.5 * (x == y)  # 1 where a wins, 0.5 on a tie, 0 where b wins
    return wrap(grad.array * share_a), wrap(grad.array * (1 - share_a))


class Where(Function):
    """y = a where condition else b;   dy/da = condition,  dy/db = not condition."""

    @staticmethod
    def forward(ctx, condition, a, b):
        dtype = _dtypes.result_type(a, b)
        ctx.condition = condition.array
        out = xp_of(condition).where(condition.array, array_of(a, dtype), array_of(b, dtype))
        return wrap(out.astype(dtype.numpy, copy=False))

    @staticmethod
    def backward(ctx, grad):
        g = grad.array
        zero = g.dtype.type(0)
        xp = xp_of(grad)
        grad_a = wrap(xp.where(ctx.condition, g, zero)) if ctx.needs_input_grad[1] else None
        grad_b = wrap(xp.where(ctx.condition, zero, g)) if ctx.needs_input_grad[2] else None
        return None, grad_a, grad_b


def exp(a: Tensor) -> Tensor:
    return Exp.apply(a)


def log(a: Tensor) -> Tensor:
    return Log.apply(a)


def sqrt(a: Tensor) -> Tensor:
    return Sqrt.apply(a)


def sin(a: Tensor) -> Tensor:
    return Sin.apply(a)


def cos(a: Tensor) -> Tensor:
    return Cos.apply(a)


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
    negative_slope = _slope(negative_slope)
    if inplace:
        return _inplace.apply(a, "leaky_relu_", lambda t: LeakyRelu.apply(t, negative_slope, True))
    return LeakyRelu.apply(a, negative_slope, False)


def _slope(value: Any) -> float:
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


def abs(a: Tensor) -> Tensor:  # noqa: A001 (PyTorch's name)
    if a.dtype is _dtypes.bool:
        raise not_implemented_for("abs_cpu", a)
    return Abs.apply(a)


def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 (PyTorch's names)
    if isinstance(min, Tensor) or isinstance(max, Tensor):  # tensor bounds: compose with where
        # Not maximum/minimum: where a equals a bound, PyTorch sends the whole gradient to a.
        out = a
        if min is not None:
            out = where(out < min, min, out)
        if max is not None:
            out = where(out > max, max, out)
        return out
    return Clamp.apply(a, min, max)


def _tensor_operands(a: Any, b: Any, name: str) -> tuple:
    """``a`` and ``b``, which must both be Tensors (PyTorch's maximum and minimum take no numbers)."""
    for position, (argument, value) in enumerate((("input", a), ("other", b)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be Tensor, not "
                            f"{type(value).__name__}")
    return a, b


def maximum(a: Tensor, b: Tensor) -> Tensor:
    return apply_broadcasting(Maximum, *_tensor_operands(a, b, "maximum"))


def minimum(a: Tensor, b: Tensor) -> Tensor:
    return apply_broadcasting(Minimum, *_tensor_operands(a, b, "minimum"))


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:  # noqa: A002 (PyTorch's names)
    """``where(cond, input, other)`` picks elementwise; ``where(cond)`` returns the indices of True."""
    if input is None and other is None:
        from minigrad.ops.comparison import nonzero  # noqa: PLC0415

        return nonzero(condition, as_tuple=True)
    like = first_tensor(condition, input, other)
    condition = as_operand(condition, like)
    if condition.dtype is _dtypes.uint8:
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be "
                      "removed in a future version of PyTorch. Use a boolean condition instead.", UserWarning,
                      stacklevel=2)
        condition = condition != 0
    if condition.dtype is not _dtypes.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with "
                           f"dtype {condition.dtype.name}")
    return apply_broadcasting(Where, condition, as_operand(input, like), as_operand(other, like))
