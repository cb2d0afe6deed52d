"""Elementwise functions: exp, log, sqrt, sin, cos, tanh, sigmoid, relu, leaky_relu, abs,
clamp, maximum, minimum and where; rounding (sign, round, floor, ceil, trunc), log1p, expm1,
rsqrt, reciprocal, tan, asin, acos, atan, atan2, sinh, cosh, log2, log10, erf, nan_to_num and
lerp. Each backward multiplies the incoming gradient by the function's derivative at the input
(or, where cheaper, at the saved output)."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import inplace as _inplace
from minigrad.ops._util import (
    apply_broadcasting,
    array_of,
    as_operand,
    converted_scalar,
    first_tensor,
    grad_where,
    ieee_results,
    not_implemented_for,
    sign_array,
    zero_where,
)
from minigrad.performance.parallel import map_into
from minigrad.tensor import Tensor


def _floating(a: Tensor) -> Any:
    """The input's array, as the default float dtype if it is an integer or bool tensor."""
    array = a.array
    if a.dtype.is_floating_point:
        return array
    return array.astype(_dtypes.get_default_dtype().numpy)


class Exp(Function):
    """y = eᵃ;   dy/da = y."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        with ieee_results():
            out = Tensor(get_array_module(a).exp(_floating(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out


class Log(Function):
    """y = ln a;   dy/da = 1 / a."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with ieee_results():
            return Tensor(get_array_module(a).log(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / a


class Sqrt(Function):
    """y = √a;   dy/da = 1 / (2y)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        with ieee_results():
            out = Tensor(get_array_module(a).sqrt(_floating(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad / (2 * out)


class Sin(Function):
    """y = sin a;   dy/da = cos a."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return Tensor(get_array_module(a).sin(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a.cos()


class Cos(Function):
    """y = cos a;   dy/da = -sin a."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return Tensor(get_array_module(a).cos(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return -grad * a.sin()


class Tanh(Function):
    """y = tanh a;   dy/da = 1 - y²."""

    differentiable_backward = True

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

    differentiable_backward = True

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

    differentiable_backward = True

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

    differentiable_backward = True

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
    """y = max(a, 0);   dy/da = 1 where a > 0 (also where a is nan), else 0."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        if a.dtype is _dtypes.bool:  # max(True, 0) has no meaning PyTorch accepts
            raise RuntimeError("Boolean inputs not supported for relu")
        x = a.array
        # x where it is not negative: keeps -0.0 and nan, as PyTorch's (the backward's selection).
        # Large arrays go in pieces on minigrad's threads (performance/parallel.py): the same numbers.
        out = Tensor(map_into(_relu, get_array_module(a).empty_like(x), x, passes=3))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return ThresholdBackward.apply(grad, out)


class ThresholdBackward(Function):
    """relu's backward (PyTorch's threshold_backward), da = dy where y > 0, else 0 (a nan y passes dy);
    linear in dy and flat in y:  d(da)/d(dy) = the same selection,  d(da)/dy = 0."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, grad, out):
        ctx.save_for_backward(out)
        g = grad.array
        return Tensor(map_into(_relu_backward, get_array_module(grad).empty_like(g), out.array, g, passes=3))

    @staticmethod
    def backward(ctx, grad_grad):
        (out,) = ctx.saved_tensors
        # flat in y: an exact zero, not None, so that y's graph is used (PyTorch's double backward)
        d_out = _zero_gradient(out) if ctx.needs_input_grad[1] else None
        return ThresholdBackward.apply(grad_grad, out), d_out


def _relu(x: Any, out: Any) -> Any:
    return zero_where(x < 0, x, out=out)


def _relu_backward(y: Any, grad: Any, out: Any) -> Any:
    return zero_where(y <= 0, grad, out=out)   # PyTorch's threshold_backward: nan passes


class LeakyRelu(Function):  # PyTorch names its node LeakyReluBackward0 (LeakyReluBackward1 in place)
    """y = a where a > 0, else s·a;   dy/da = 1 where a > 0, else s (so s at a = 0, as PyTorch)."""

    differentiable_backward = True

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

    differentiable_backward = True
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


class Abs(Function):
    """y = |a|;   dy/da = sign(a) (0 at 0)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return Tensor(get_array_module(a).abs(a.array))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # PyTorch multiplies here: an inf or nan arriving at a = 0 stays nan
        return grad * a.sign()


class Clamp(Function):
    """y = min(max(a, low), high);   dy/da = 1 where low ≤ a ≤ high, else 0 (0 at a nan a)."""

    differentiable_backward = True
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


class Maximum(Function):
    """y = max(a, b) elementwise; the gradient goes to the larger input, half to each on a tie."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a, b):
        return _extremum(ctx, a, b, "maximum")

    @staticmethod
    def backward(ctx, grad):
        return _extremum_backward(ctx, grad)


class Minimum(Function):
    """y = min(a, b) elementwise; the gradient goes to the smaller input, half to each on a tie."""

    differentiable_backward = True

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
    ctx.kind = name  # not ``ctx.name``, which is the node's ``name()``
    xp = get_array_module(a)
    out = getattr(xp, name)(x, y)
    return Tensor(xp.where(x == y, x, out))  # a tie gives a, as PyTorch (maximum(-0.0, 0.0) is -0.0)


def _extremum_backward(ctx: Any, grad: Tensor) -> tuple:
    a, b = ctx.saved_tensors
    x, y = a.array, b.array   # constant masks: the gradient is flat in a and b
    # PyTorch's rule: each input gets all of δ, half on a tie, none where it loses; a nan loses
    # no comparison, so both inputs get all of δ there.
    shared = Where.apply(Tensor(x == y), grad / 2, grad)
    a_loses = (x < y) if ctx.kind == "maximum" else (x > y)
    b_loses = (x > y) if ctx.kind == "maximum" else (x < y)
    grad_a = Where.apply(Tensor(a_loses), 0.0, shared) if ctx.needs_input_grad[0] else None
    grad_b = Where.apply(Tensor(b_loses), 0.0, shared) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


class Where(Function):
    """y = a where condition else b;   dy/da = condition,  dy/db = not condition."""

    differentiable_backward = True
    graph_inputs = (1, 2)  # as PyTorch: the condition is no input of the node, a number operand is

    @staticmethod
    def forward(ctx, condition, a, b):
        dtype = _dtypes.result_type(a, b)
        mask = ctx.condition = condition.array
        if not dtype.is_floating_point:  # a number operand must fit: int8 refuses 300, as PyTorch's
            a, b = (v if isinstance(v, Tensor) else converted_scalar(v, dtype) for v in (a, b))
        x, y = array_of(a, dtype), array_of(b, dtype)
        # where(mask, x, 0) and where(mask, 0, y), as clamp's and where's gradients are: by bits, faster
        if _is_positive_zero(y) and isinstance(a, Tensor):
            return Tensor(grad_where(mask, x).astype(dtype.numpy, copy=False))
        if _is_positive_zero(x) and isinstance(b, Tensor):
            return Tensor(zero_where(mask, y).astype(dtype.numpy, copy=False))
        with ieee_results():  # a number beyond float16's range is inf there, as in PyTorch
            out = get_array_module(condition).where(mask, x, y)
        return Tensor(out.astype(dtype.numpy, copy=False))

    @staticmethod
    def backward(ctx, grad):
        condition = Tensor(ctx.condition)
        grad_a = Where.apply(condition, grad, 0.0) if ctx.needs_input_grad[1] else None
        grad_b = Where.apply(condition, 0.0, grad) if ctx.needs_input_grad[2] else None
        return None, grad_a, grad_b


def _is_positive_zero(value: Any) -> bool:
    """The Python number 0 (not -0.0, whose sign a selection must keep)."""
    return type(value) in (int, float) and value == 0 and math.copysign(1.0, value) > 0


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
        # a nan bound gives nan, and no gradient to a or the bound there (PyTorch's clamp_backward)
        for bound in (min, max):
            if isinstance(bound, Tensor) and bound.dtype.is_floating_point and bool(bound.isnan().any()):
                out = where(bound.isnan(), math.nan, out)
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


# --- more elementwise math: rounding, logs and exponentials, trigonometry, nan handling ------------

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

    differentiable_backward = True

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

    differentiable_backward = True

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

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        same = _unchanged_or_refused(a, "floor_vml_cpu")
        return same if same is not None else Tensor(get_array_module(a).floor(a.array))

    @staticmethod
    def backward(ctx, grad):
        return _zero_gradient(grad)


class Ceil(Function):
    """y = ⌈a⌉;   dy/da = 0."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        same = _unchanged_or_refused(a, "ceil_vml_cpu")
        return same if same is not None else Tensor(get_array_module(a).ceil(a.array))

    @staticmethod
    def backward(ctx, grad):
        return _zero_gradient(grad)


class Trunc(Function):
    """y = a rounded towards 0;   dy/da = 0."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        same = _unchanged_or_refused(a, "trunc_vml_cpu")
        return same if same is not None else Tensor(get_array_module(a).trunc(a.array))

    @staticmethod
    def backward(ctx, grad):
        return _zero_gradient(grad)


class Log1P(Function):  # PyTorch names its node Log1PBackward0
    """y = ln(1 + a), accurate for small a;   dy/da = 1 / (1 + a)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with ieee_results():
            return Tensor(get_array_module(a).log1p(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (1 + a)


class Expm1(Function):
    """y = eᵃ - 1, accurate for small a;   dy/da = y + 1."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        with ieee_results():
            out = Tensor(get_array_module(a).expm1(_floating(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * (out + 1)


class Rsqrt(Function):
    """y = 1 / √a;   dy/da = -y³ / 2."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        with ieee_results():
            out = Tensor(1 / get_array_module(a).sqrt(_floating(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * -0.5 * out ** 3


class Reciprocal(Function):
    """y = 1 / a;   dy/da = -y²."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        with ieee_results():
            out = Tensor(1 / _floating(a))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return -grad * (out * out)  # grouped as PyTorch's -grad * (y * y), for the same rounding


class Tan(Function):
    """y = tan a;   dy/da = 1 + y²."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        with ieee_results():  # tan(±inf) is nan, silently
            out = Tensor(get_array_module(a).tan(_floating(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * (1 + out * out)


class Asin(Function):
    """y = arcsin a;   dy/da = 1 / √(1 - a²)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with ieee_results():  # |a| > 1 is nan, silently
            return Tensor(get_array_module(a).arcsin(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (1 - a * a).sqrt()


class Acos(Function):
    """y = arccos a;   dy/da = -1 / √(1 - a²)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with ieee_results():
            return Tensor(get_array_module(a).arccos(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return -grad / (1 - a * a).sqrt()


class Atan(Function):
    """y = arctan a;   dy/da = 1 / (1 + a²)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return Tensor(get_array_module(a).arctan(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (1 + a * a)


class Atan2(Function):
    """z = atan2(a, b), the angle of the point (b, a);   dz/da = b / (a² + b²),  dz/db = -a / (a² + b²)
    (both 0 at the origin, as PyTorch)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a, b):
        dtype = _dtypes.result_type(a, b)
        if not dtype.is_floating_point:
            dtype = _dtypes.get_default_dtype()
        ctx.save_for_backward(a, b)
        return Tensor(get_array_module(a).arctan2(array_of(a, dtype), array_of(b, dtype)))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        origin = Tensor((a.array == 0) & (b.array == 0))  # a constant mask
        scale = Where.apply(origin, 0.0, grad / (a * a + b * b))
        grad_a = scale * b if ctx.needs_input_grad[0] else None
        grad_b = -scale * a if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Sinh(Function):
    """y = sinh a;   dy/da = cosh a."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with ieee_results():
            return Tensor(get_array_module(a).sinh(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a.cosh()


class Cosh(Function):
    """y = cosh a;   dy/da = sinh a."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with ieee_results():
            return Tensor(get_array_module(a).cosh(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a.sinh()


class Log2(Function):
    """y = log₂ a;   dy/da = 1 / (a ln 2)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with ieee_results():
            return Tensor(get_array_module(a).log2(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (a * math.log(2))


class Log10(Function):
    """y = log₁₀ a;   dy/da = 1 / (a ln 10)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with ieee_results():
            return Tensor(get_array_module(a).log10(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (a * math.log(10))


class Erf(Function):
    """y = erf a = 2/√π ∫₀ᵃ e^(−t²) dt;   dy/da = 2/√π · e^(−a²)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return Tensor(erf_array(get_array_module(a), _floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * (2 / math.sqrt(math.pi)) * (-a * a).exp()


class ClampMin(Function):
    """y = max(a, low);   dy/da = 1 where a ≥ low, else 0."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a, low):
        return Clamp.forward(ctx, a, low, None)

    @staticmethod
    def backward(ctx, grad):
        return Clamp.backward(ctx, grad)[:2]


class ClampMax(Function):
    """y = min(a, high);   dy/da = 1 where a ≤ high, else 0."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a, high):
        return Clamp.forward(ctx, a, None, high)

    @staticmethod
    def backward(ctx, grad):
        return Clamp.backward(ctx, grad)[::2]


class NanToNum(Function):
    """y = a with nan, +inf and -inf replaced (by 0 and the dtype's largest and smallest values unless
    given);   dy/da = 1 where a is finite, else 0."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a, nan, posinf, neginf):
        ctx.save_for_backward(a)
        if not a.dtype.is_floating_point:  # nothing to replace
            return Tensor(a.array.copy())
        return Tensor(get_array_module(a).nan_to_num(a.array, nan=nan, posinf=posinf, neginf=neginf))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * Tensor(get_array_module(a).isfinite(a.array)), None, None, None  # a constant mask


class Lerp(Function):  # PyTorch's node: LerpBackward0 for a number weight, LerpBackward1 for a tensor
    """y = start + w (end - start);   dy/dstart = 1 - w,  dy/dend = w,  dy/dw = end - start."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, start, end, weight):
        ctx.save_for_backward(start, end, weight if isinstance(weight, Tensor) else None)
        ctx._name = "LerpBackward1" if isinstance(weight, Tensor) else "LerpBackward0"
        ctx.weight = weight
        xp = get_array_module(start)
        s, e = start.array, end.array
        w = weight.array.astype(s.dtype, copy=False) if isinstance(weight, Tensor) else weight
        # PyTorch's form: exact at both ends (w = 0 gives start, w = 1 gives end)
        with ieee_results():
            return Tensor(xp.where(xp.abs(w) < 0.5, s + w * (e - s), e - (e - s) * (1 - w)).astype(s.dtype))

    @staticmethod
    def backward(ctx, grad):
        start, end, weight = ctx.saved_tensors
        w = weight if weight is not None else ctx.weight
        grad_start = grad * (1 - w) if ctx.needs_input_grad[0] else None
        grad_end = grad * w if ctx.needs_input_grad[1] else None
        grad_weight = grad * (end - start) if ctx.needs_input_grad[2] else None
        return grad_start, grad_end, grad_weight


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


def log1p(a: Tensor) -> Tensor:
    return Log1P.apply(a)


def expm1(a: Tensor) -> Tensor:
    return Expm1.apply(a)


def square(a: Tensor) -> Tensor:
    """a², as PyTorch computes it: ``a ** 2`` (a bool tensor is squared as int64)."""
    from minigrad.ops import arithmetic  # noqa: PLC0415 (arithmetic imports this module's neighbours)

    return arithmetic.pow(a.long() if a.dtype is _dtypes.bool else a, 2)


def rsqrt(a: Tensor) -> Tensor:
    return Rsqrt.apply(a)


def reciprocal(a: Tensor) -> Tensor:
    return Reciprocal.apply(a)


def tan(a: Tensor) -> Tensor:
    return Tan.apply(a)


def asin(a: Tensor) -> Tensor:
    return Asin.apply(a)


def acos(a: Tensor) -> Tensor:
    return Acos.apply(a)


def atan(a: Tensor) -> Tensor:
    return Atan.apply(a)


def atan2(a: Tensor, other: Tensor) -> Tensor:
    return apply_broadcasting(Atan2, *_tensor_operands(a, other, "atan2"))


def sinh(a: Tensor) -> Tensor:
    return Sinh.apply(a)


def cosh(a: Tensor) -> Tensor:
    return Cosh.apply(a)


def log2(a: Tensor) -> Tensor:
    return Log2.apply(a)


def log10(a: Tensor) -> Tensor:
    return Log10.apply(a)


def clamp_min(a: Tensor, min: Any) -> Tensor:  # noqa: A002 (PyTorch's name)
    if min is None:
        raise TypeError("clamp_min(): argument 'min' must be Tensor or Number, not NoneType")
    return clamp(a, min=min) if isinstance(min, Tensor) else ClampMin.apply(a, min)


def clamp_max(a: Tensor, max: Any) -> Tensor:  # noqa: A002 (PyTorch's name)
    if max is None:
        raise TypeError("clamp_max(): argument 'max' must be Tensor or Number, not NoneType")
    return clamp(a, max=max) if isinstance(max, Tensor) else ClampMax.apply(a, max)


def erf(a: Tensor) -> Tensor:
    return Erf.apply(a)


def nan_to_num(a: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    return NanToNum.apply(a, nan, posinf, neginf)


def lerp(start: Tensor, end: Tensor, weight: Any) -> Tensor:
    """start + weight · (end - start), for floating tensors of one dtype (``weight`` a number or a tensor)."""
    _tensor_operands(start, end, "lerp")
    operands = (("end", end), ("weight", weight)) if isinstance(weight, Tensor) else (("end", end),)
    for name, other in operands:
        if other.dtype is not start.dtype and not (name == "weight" and other.ndim == 0):  # 0-d: any dtype
            raise RuntimeError(f"expected dtype {_TORCH_DTYPE_NAMES.get(start.dtype.name, start.dtype.name)} "
                               f"for `{name}` but got dtype "
                               f"{_TORCH_DTYPE_NAMES.get(other.dtype.name, other.dtype.name)}")
    if not start.dtype.is_floating_point:
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise not_implemented_for(kernel, start)
    return apply_broadcasting(Lerp, start, end, weight)


_TORCH_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half", "int64": "long",
                      "int32": "int"}


# --- smooth activations: erf, gelu, silu, elu, softplus ---------------------------------------------

# W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23 (1969), with
# the coefficients of his CALERF routine (SPECFUN): erf on |x| ≤ 0.5, erfc = e^(−x²)·R(x) on
# 0.5 < |x| ≤ 4, erfc = e^(−x²)/x·(1/√π − R(1/x²)/x²) beyond. Relative error ≲ 1e-16 in float64.
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
          1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_ERF_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
          8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
          2.15311535474403846e-8)
_ERF_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
          3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_ERF_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
          6.58749161529837803e-4, 1.63153871373020978e-2)
_ERF_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
          2.33520497626869185e-3)
_INV_SQRT_PI = 5.6418958354775628695e-1


def _exp_minus_square(xp: Any, y: Any) -> Any:
    """e^(−y²), with y² split as ŷ² + (y − ŷ)(y + ŷ) (ŷ = y rounded to 1/16) so the exponent is exact."""
    y = xp.minimum(y, 30.0)  # e^(−900) is 0 already; keeps y = ∞ from giving ∞ − ∞
    rounded = xp.trunc(y * 16) / 16
    return xp.exp(-rounded * rounded) * xp.exp(-(y - rounded) * (y + rounded))


def _erfc_positive(xp: Any, y: Any) -> Any:
    """erfc(y) for y > 0.5 by Cody's two rational approximations (middle range and tail)."""
    middle = xp.minimum(y, 4.0)
    num, den = _ERF_C[8] * middle, middle
    for c, d in zip(_ERF_C[:7], _ERF_D[:7]):
        num, den = (num + c) * middle, (den + d) * middle
    middle_value = (num + _ERF_C[7]) / (den + _ERF_D[7])
    tail = xp.maximum(y, 4.0)
    z = 1.0 / (tail * tail)
    num, den = _ERF_P[5] * z, z
    for p, q in zip(_ERF_P[:4], _ERF_Q[:4]):
        num, den = (num + p) * z, (den + q) * z
    tail_value = (_INV_SQRT_PI - z * (num + _ERF_P[4]) / (den + _ERF_Q[4])) / tail
    with ieee_results():  # e^(−y²) underflows to 0 for y > 27: erfc is 0 there
        return xp.where(y <= 4.0, middle_value, tail_value) * _exp_minus_square(xp, y)


def erf_array(xp: Any, x: Any) -> Any:
    """erf x = 2/√π ∫₀ˣ e^(−t²) dt, elementwise (NumPy has none): Cody's rational approximations."""
    y = xp.abs(x)
    small = xp.minimum(y, 0.5)
    z = small * small
    num, den = _ERF_A[4] * z, z
    for a, b in zip(_ERF_A[:3], _ERF_B[:3]):
        num, den = (num + a) * z, (den + b) * z
    near_zero = x * (num + _ERF_A[3]) / (den + _ERF_B[3])
    far = xp.sign(x) * (1.0 - _erfc_positive(xp, xp.maximum(y, 0.5)))
    return xp.where(y <= 0.5, near_zero, far).astype(x.dtype, copy=False)


def erfc_array(xp: Any, x: Any) -> Any:
    """erfc x = 1 − erf x, accurate also where it is tiny (x ≫ 0): erfc(−y) = 2 − erfc(y)."""
    y = xp.abs(x)
    tail = _erfc_positive(xp, xp.maximum(y, 0.5))
    out = xp.where(y <= 0.5, 1.0 - erf_array(xp, xp.minimum(y, 0.5)), tail)
    return xp.where(x < 0, 2.0 - out, out).astype(x.dtype, copy=False)


_SQRT_2_OVER_PI = 0.7978845608028654  # √(2/π)
_INV_SQRT_2PI = 0.3989422804014327    # 1/√(2π)


class Gelu(Function):
    """y = x·Φ(x), Φ(x) = ½ erfc(−x/√2);   dy/dx = Φ(x) + x·φ(x), φ(x) = e^(−x²/2)/√(2π).
    'tanh': y = ½x(1 + t), t = tanh(√(2/π)(x + 0.044715x³));
            dy/dx = ½(1 + t) + ½x(1 − t²)·√(2/π)(1 + 3·0.044715x²).
    """

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a, approximate):
        ctx.save_for_backward(a)
        ctx.approximate = approximate
        x, xp = a.array, get_array_module(a)
        if approximate == "tanh":
            return Tensor(0.5 * x * (1 + xp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))))
        return Tensor(0.5 * x * erfc_array(xp, -x * 0.7071067811865476))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return GeluBackward.apply(grad, a, ctx.approximate), None


class GeluBackward(Function):
    """gelu's backward, da = dy · gelu'(a), as a Function of (dy, a) (gelu' in ``Gelu``'s docstring);
    d(da)/d(dy) = gelu'(a),  d(da)/da = dy · gelu''(a), where
    gelu''(x) = φ(x)(2 − x²), and for 'tanh' (u = √(2/π)(x + 0.044715x³), t = tanh u)
    gelu''(x) = (1 − t²)(u' − x·t·u'² + ½x·u'')."""

    differentiable_backward = True
    graph_inputs = (0, 1)

    @staticmethod
    def forward(ctx, grad, a, approximate):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, a)
        ctx.approximate = approximate
        x, xp = a.array, get_array_module(a)
        if approximate == "tanh":
            t = xp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))
            slope = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
        else:
            slope = 0.5 * erfc_array(xp, -x * 0.7071067811865476) + x * _INV_SQRT_2PI * xp.exp(-0.5 * x * x)
        return Tensor(grad.array * slope.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, a = ctx.saved_tensors
        d_grad = GeluBackward.apply(grad_grad, a, ctx.approximate) if ctx.needs_input_grad[0] else None
        d_a = None
        if ctx.needs_input_grad[1]:
            if ctx.approximate == "tanh":
                k, c = _SQRT_2_OVER_PI, 0.044715
                t = (k * (a + c * a * a * a)).tanh()
                du = k * (1 + 3 * c * a * a)
                curvature = (1 - t * t) * (du - a * t * du * du + 3 * k * c * a * a)   # ½x·u'' = 3kc·x²
            else:
                curvature = (a * a * -0.5).exp() * _INV_SQRT_2PI * (2 - a * a)
            d_a = grad_grad * grad * curvature
        return d_grad, d_a, None


def _sigmoid_array(xp: Any, x: Any) -> Any:
    """σ(x) = 1 / (1 + e⁻ˣ) without overflow (as ``Sigmoid``)."""
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e))


class Silu(Function):
    """y = x·σ(x);   dy/dx = σ(x)(1 + x(1 − σ(x)))."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return Tensor(a.array * _sigmoid_array(get_array_module(a), a.array))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return SiluBackward.apply(grad, a)


class SiluBackward(Function):
    """silu's backward, da = dy · σ(a)(1 + a(1 − σ(a))), as a Function of (dy, a);
    d(da)/d(dy) = the same slope,  d(da)/da = dy · σ(a)(1 − σ(a))(2 + a(1 − 2σ(a)))."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, grad, a):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, a)
        x = a.array
        s = _sigmoid_array(get_array_module(a), x)
        return Tensor(grad.array * s * (1 + x * (1 - s)))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, a = ctx.saved_tensors
        d_grad = SiluBackward.apply(grad_grad, a) if ctx.needs_input_grad[0] else None
        d_a = None
        if ctx.needs_input_grad[1]:
            s = a.sigmoid()
            d_a = grad_grad * grad * (s * (1 - s) * (2 + a * (1 - 2 * s)))
        return d_grad, d_a


class Elu(Function):
    """y = x where x > 0, else α(eˣ − 1);   dy/dx = 1 where x > 0, else α eˣ (α at 0, as PyTorch).

    At a nan x the slope is nan, as in PyTorch's vectorised kernel (its scalar loop, used for short
    tensors, gives 1 there instead)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a, alpha):
        ctx.save_for_backward(a)
        ctx.alpha = alpha
        x, xp = a.array, get_array_module(a)
        with ieee_results():
            return Tensor(xp.where(x > 0, x, alpha * xp.expm1(xp.minimum(x, 0))))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return EluBackward.apply(grad, a, ctx.alpha), None


class EluBackward(Function):
    """elu's backward, da = dy where a > 0, else dy · α eᵃ, as a Function of (dy, a);
    d(da)/d(dy) = the same slope,  d(da)/da = 0 where a ≥ 0, else dy · α eᵃ."""

    differentiable_backward = True
    graph_inputs = (0, 1)

    @staticmethod
    def forward(ctx, grad, a, alpha):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, a)
        ctx.alpha = alpha
        x, xp = a.array, get_array_module(a)
        slope = xp.where(x > 0, 1.0, alpha * xp.exp(xp.minimum(x, 0)))
        return Tensor(grad.array * slope.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, a = ctx.saved_tensors
        d_grad = EluBackward.apply(grad_grad, a, ctx.alpha) if ctx.needs_input_grad[0] else None
        d_a = None
        if ctx.needs_input_grad[1]:
            # eᵃ of a clamped at 0: no overflow (and no inf · 0) where a > 0 selects 0
            curvature = a.clamp(max=0).exp() * ctx.alpha
            # 0 at the kink a = 0 too, as PyTorch's elu_double_backward (its mask is a < 0)
            d_a = grad_grad * grad * Where.apply(Tensor(a.array >= 0), 0.0, curvature)
        return d_grad, d_a, None


class Softplus(Function):
    """y = log(1 + e^(βx)) / β, and y = x where βx > threshold;   dy/dx = σ(βx) (1 beyond threshold)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, a, beta, threshold):
        ctx.save_for_backward(a)
        ctx.beta, ctx.threshold = beta, threshold
        x, xp = a.array, get_array_module(a)
        bx = x * beta
        with ieee_results():
            return Tensor(xp.where(bx > threshold, x, xp.log1p(xp.exp(xp.minimum(bx, threshold))) / beta)
                        .astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return SoftplusBackward.apply(grad, a, ctx.beta, ctx.threshold), None, None


class SoftplusBackward(Function):
    """softplus's backward, da = dy · σ(βa) (dy where βa > threshold), as a Function of (dy, a);
    d(da)/d(dy) = the same slope,  d(da)/da = dy · β σ(βa)(1 − σ(βa)) (0 from βa = threshold on)."""

    differentiable_backward = True
    graph_inputs = (0, 1)

    @staticmethod
    def forward(ctx, grad, a, beta, threshold):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, a)
        ctx.beta, ctx.threshold = beta, threshold
        x, xp = a.array, get_array_module(a)
        bx = x * beta
        z = xp.exp(xp.minimum(bx, threshold))
        slope = xp.where(bx > threshold, 1.0, z / (z + 1))
        return Tensor(grad.array * slope.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, a = ctx.saved_tensors
        beta, threshold = ctx.beta, ctx.threshold
        d_grad = SoftplusBackward.apply(grad_grad, a, beta, threshold) if ctx.needs_input_grad[0] else None
        d_a = None
        if ctx.needs_input_grad[1]:
            z = (a * beta).clamp(max=threshold).exp()
            curvature = z / ((z + 1) * (z + 1)) * beta     # β σ(βa)(1 − σ(βa)) = β z / (1 + z)²
            # 0 at the kink βa = threshold too, as PyTorch's softplus_double_backward (mask βa < threshold)
            d_a = grad_grad * grad * Where.apply(Tensor(a.array * beta >= threshold), 0.0, curvature)
        return d_grad, d_a, None, None


def _check_floating(a: Tensor, kernel: str) -> None:
    if not isinstance(a, Tensor):
        raise TypeError(f"{kernel}(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}")
    if not a.dtype.is_floating_point:
        raise not_implemented_for(kernel, a)


def gelu(a: Tensor, approximate: str = "none") -> Tensor:
    """x·Φ(x) (Φ the standard normal CDF), or its tanh approximation with ``approximate='tanh'``."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh. (got {approximate!r})")
    _check_floating(a, "GeluKernelImpl")
    return Gelu.apply(a, approximate)


def silu(a: Tensor, inplace: bool = False) -> Tensor:
    """x·σ(x) (the swish); ``inplace=True`` overwrites ``a``."""
    _check_floating(a, "silu_cpu")
    if inplace:
        return _inplace.apply(a, "silu_", Silu.apply)
    return Silu.apply(a)


def elu(a: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else α(eˣ − 1); ``inplace=True`` overwrites ``a``."""
    _check_floating(a, "elu_cpu")
    if inplace:
        return _inplace.apply(a, "elu_", lambda t: Elu.apply(t, alpha))
    return Elu.apply(a, alpha)


def softplus(a: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + e^(βx)) / β, reverting to x where βx > threshold."""
    _check_floating(a, "softplus_cpu")
    return Softplus.apply(a, beta, threshold)
