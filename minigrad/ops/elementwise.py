"""Elementwise math: exp, log, sqrt, sin, cos, abs, maximum, minimum and where; log1p, expm1,
rsqrt, reciprocal, tan, asin, acos, atan, atan2, sinh, cosh, log2, log10, erf, nan_to_num and
lerp. Each backward multiplies the incoming gradient by the function's derivative at the input
(or, where cheaper, at the saved output).

The activations (relu, tanh, sigmoid, gelu, ...) are in ``activations.py``; clamp and rounding
(sign, round, floor, ceil, trunc) in ``rounding.py``."""

from __future__ import annotations

import math
import warnings
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._util import (
    apply_broadcasting,
    array_of,
    as_operand,
    converted_scalar,
    first_tensor,
    grad_where,
    ieee_results,
    not_implemented_for,
    zero_where,
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
            out = Tensor(get_array_module(a).exp(_floating(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out


class Log(Function):
    """y = ln a;   dy/da = 1 / a."""

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

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return Tensor(get_array_module(a).cos(_floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return -grad * a.sin()


class Abs(Function):
    """y = |a|;   dy/da = sign(a) (0 at 0)."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return Tensor(get_array_module(a).abs(a.array))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # PyTorch multiplies here: an inf or nan arriving at a = 0 stays nan
        return grad * a.sign()


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


def abs(a: Tensor) -> Tensor:  # noqa: A001 (PyTorch's name)
    if a.dtype is _dtypes.bool:
        raise not_implemented_for("abs_cpu", a)
    return Abs.apply(a)


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


# --- more elementwise math: logs and exponentials, trigonometry, nan handling ----------------------

class Log1P(Function):  # PyTorch names its node Log1PBackward0
    """y = ln(1 + a), accurate for small a;   dy/da = 1 / (1 + a)."""

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

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return Tensor(erf_array(get_array_module(a), _floating(a)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * (2 / math.sqrt(math.pi)) * (-a * a).exp()


class NanToNum(Function):
    """y = a with nan, +inf and -inf replaced (by 0 and the dtype's largest and smallest values unless
    given);   dy/da = 1 where a is finite, else 0."""

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


# --- the error function (erf, and gelu's Φ in ops/activations.py) -----------------------------------

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
