"""Arithmetic: ``+ - * / **`` and negation, with broadcasting and PyTorch's type promotion.

Gradients are written for the broadcast output shape; the engine sums each one
back to its input's shape (``autograd.engine.sum_to_shape``).
"""

from __future__ import annotations

import math
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function, check_same_device
from minigrad.backend import get_array_module
from minigrad.ops._util import (
    apply_broadcasting,
    array_of,
    as_operand,
    check_broadcast,
    converted_scalar,
    first_tensor,
    ieee_results,
)
from minigrad.ops.elementwise import where as _where
from minigrad.tensor import Tensor


def _promoted(ctx: Any, a: Any, b: Any, floating: bool = False) -> tuple:
    """Both operands' arrays in the result dtype (``floating``: at least the default float)."""
    if type(a) is Tensor and a._array.dtype.kind == "f":  # fast paths: no promotion needed
        if type(b) is Tensor and b._array.dtype == a._array.dtype or type(b) is float:
            return a._array, b._array if type(b) is Tensor else b
    dtype = _dtypes.result_type(a, b)
    if floating and not dtype.is_floating_point:
        dtype = _dtypes.get_default_dtype()
    ctx.dtype = dtype
    return array_of(a, dtype), array_of(b, dtype)


def _in_half_opmath(a: Any, b: Any, x: Any, y: Any, commutes: bool = False) -> tuple:
    """The operands of a float16 product or quotient with a number (or 0-d tensor) as its second
    operand, as PyTorch's CPU takes them: in float32 (its "opmath"), the number converted to float32
    rather than float16, so that 0 · 2⁶³ is 0 and not 0 · inf; the result is rounded once to float16.
    ``commutes``: a number first (``2**63 * t``) counts as second, as Python's ``__rmul__`` gives it to
    PyTorch. Otherwise (other dtypes, or two tensors): ``(x, y, None)``, the operands as promoted."""
    result = x.dtype if hasattr(x, "dtype") else y.dtype
    if result != _dtypes.float16.numpy:
        return x, y, None
    if commutes and not isinstance(a, Tensor):
        y, x, half = _in_half_opmath(b, a, y, x)
        return x, y, half
    if isinstance(b, Tensor) and b.ndim != 0:
        return x, y, None
    xp = get_array_module(first_tensor(a, b))
    number = b._array if isinstance(b, Tensor) else xp.asarray(b)
    first = x if hasattr(x, "astype") else xp.asarray(x, dtype=result)  # a number first: float16, as promoted
    return first.astype(_dtypes.float32.numpy), number.astype(_dtypes.float32.numpy), result


def _save_operands(ctx: Any, a: Any, b: Any, keep_a: bool = True, keep_b: bool = True,
                   out: Tensor | None = None) -> None:
    """Save tensor operands (and ``out``, if given) for backward, version-checked; plain numbers are
    kept as they are.

    An operand that backward will not read (``keep_a=False``) is not saved, so that changing it in
    place afterwards is no error, as in PyTorch (``z = y * 2; y.add_(1)`` leaves z's backward intact).
    """
    a, b = (a if keep_a else None), (b if keep_b else None)
    a_is_tensor, b_is_tensor = isinstance(a, Tensor), isinstance(b, Tensor)
    ctx.save_for_backward(a if a_is_tensor else None, b if b_is_tensor else None, out)
    if not (a_is_tensor and b_is_tensor):
        ctx.numbers = (None if a_is_tensor else a, None if b_is_tensor else b)


def _saved_operands(ctx: Any) -> tuple:
    """The operands saved by :func:`_save_operands`: Tensors (with their graph, for a gradient of the
    gradient) and numbers as they were."""
    a, b, _ = ctx.saved_tensors
    if a is not None and b is not None:
        return a, b
    numbers = ctx.numbers
    return (numbers[0] if a is None else a), (numbers[1] if b is None else b)


def _is_bool(value: Any) -> bool:
    """A bool tensor or a Python bool."""
    return isinstance(value, bool) or (isinstance(value, Tensor) and value._array.dtype == bool)


def _binary_operands(a: Any, b: Any) -> tuple:
    if type(a) is Tensor and (type(b) is Tensor or type(b) is float):
        return a, b
    like = first_tensor(a, b)
    return as_operand(a, like), as_operand(b, like)


def _check_alpha(alpha: Any, a: Any, b: Any) -> None:
    """PyTorch's rules for ``alpha`` (add/sub): no float alpha for an integer or bool result, and a
    bool alpha only for a bool result."""
    if isinstance(alpha, (float, bool)):
        result = _dtypes.result_type(a, b)
        if isinstance(alpha, float) and not result.is_floating_point:
            raise RuntimeError(f"For integral input tensors, argument alpha must not be a floating point "
                               f"number (got alpha={alpha}).")
        if isinstance(alpha, bool) and result is not _dtypes.bool:
            raise RuntimeError(f"Boolean alpha only supported for Boolean results (got alpha={alpha}).")


class Add(Function):
    """z = a + alpha * b;   dz/da = 1,  dz/db = alpha."""

    graph_inputs = (0, 1)  # as PyTorch: a number operand is an input too (edge (None, 0))

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        x, y = _promoted(ctx, a, b)
        _check_alpha(alpha, a, b)
        ctx.alpha = alpha
        return Tensor(x + y if alpha == 1 else x + alpha * y)

    @staticmethod
    def backward(ctx, grad):
        grad_b = grad if ctx.alpha == 1 or not ctx.needs_input_grad[1] else grad * ctx.alpha
        return grad, grad_b, None


def add(a: Any, b: Any, *, alpha: Any = 1) -> Tensor:
    a, b = _binary_operands(a, b)
    return apply_broadcasting(Add, a, b, alpha)


class Sub(Function):
    """z = a - alpha * b;   dz/da = 1,  dz/db = -alpha."""

    graph_inputs: tuple[int, ...] | None = (0, 1)  # as PyTorch: a number operand is an input too

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        x, y = _promoted(ctx, a, b)
        if _is_bool(a) and _is_bool(b):
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                               "Use the `^` or `logical_xor()` operator instead.")
        if _is_bool(a) or _is_bool(b):
            raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or `logical_not()` "
                               "operator instead.")
        _check_alpha(alpha, a, b)
        ctx.alpha = alpha
        return Tensor(x - y if alpha == 1 else x - alpha * y)

    @staticmethod
    def backward(ctx, grad):
        return grad, _scaled(grad, -ctx.alpha) if ctx.needs_input_grad[1] else None, None


def _scaled(grad: Tensor, factor: Any) -> Tensor:
    """grad · factor for a number factor (a negation for -1)."""
    return -grad if factor == -1 else grad * factor


class Rsub(Sub):
    """z = a - alpha * b for a number a (``1 - t``), PyTorch's ``rsub``: the tensor is the only input."""

    node_name = "RsubBackward1"
    graph_inputs = (1,)

    @staticmethod
    def backward(ctx, grad):
        return None, _scaled(grad, -ctx.alpha), None


def sub(a: Any, b: Any, *, alpha: Any = 1) -> Tensor:
    a, b = _binary_operands(a, b)
    return apply_broadcasting(Sub if isinstance(a, Tensor) else Rsub, a, b, alpha)


class Mul(Function):
    """z = a * b;   dz/da = b,  dz/db = a."""

    graph_inputs = (0, 1)  # as PyTorch: a number operand is an input too (edge (None, 0))

    @staticmethod
    def forward(ctx, a, b):
        _save_operands(ctx, a, b, keep_a=ctx.needs_input_grad[1], keep_b=ctx.needs_input_grad[0])
        with ieee_results():  # a float16 product beyond its range is inf, silently, as in PyTorch
            x, y, half = _in_half_opmath(a, b, *_promoted(ctx, a, b), commutes=True)
            return Tensor(x * y if half is None else (x * y).astype(half))

    @staticmethod
    def backward(ctx, grad):
        a, b = _saved_operands(ctx)
        # grad * b and grad * a, by Mul itself: the operands are known to broadcast
        grad_a = Mul.apply(grad, b) if ctx.needs_input_grad[0] else None
        grad_b = Mul.apply(grad, a) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


def mul(a: Any, b: Any) -> Tensor:
    a, b = _binary_operands(a, b)
    return apply_broadcasting(Mul, a, b)


class Div(Function):
    """z = a / b (true division);   dz/da = 1/b,  dz/db = -a/b² = -z/b."""

    graph_inputs = (0, 1)  # as PyTorch: a number operand is an input too (edge (None, 0))

    @staticmethod
    def forward(ctx, a, b):
        _save_operands(ctx, a, b, keep_a=ctx.needs_input_grad[1])
        with ieee_results():
            x, y, half = _in_half_opmath(a, b, *_promoted(ctx, a, b, floating=True))
            return Tensor(x / y if half is None else (x / y).astype(half))

    @staticmethod
    def backward(ctx, grad):
        a, b = _saved_operands(ctx)
        grad_a = grad / b if ctx.needs_input_grad[0] else None
        # -(a / b) / b, as PyTorch: b² underflows to 0 for a tiny b, where a / b / b need not
        grad_b = -grad * (a / b / b) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


def div(a: Any, b: Any, *, rounding_mode: str | None = None) -> Tensor:
    """a / b; ``rounding_mode='floor'`` rounds the quotient down, ``'trunc'`` towards zero."""
    if rounding_mode == "floor":
        return floor_divide(a, b)
    if rounding_mode == "trunc":
        return _trunc_divide(a, b)
    if rounding_mode is not None:
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"{rounding_mode!r}")
    a, b = _binary_operands(a, b)
    return apply_broadcasting(Div, a, b)


def _zeros_like(grad: Tensor) -> Tensor:
    """Zeros of ``grad``'s shape and dtype: a gradient that is 0 whatever the inputs (a constant)."""
    return Tensor(get_array_module(grad).zeros_like(grad.array))


def _integer_power(xp: Any, base: Any, exponent: Any) -> Any:
    """Integer ``base ** exponent`` with negative exponents, as PyTorch: the exact 1/base**k truncated
    towards zero, so 1 and -1 keep a magnitude of 1 and every other base gives 0."""
    negative = xp.asarray(exponent) < 0
    # (-1) ** -k == (-1) ** k: only the parity of a negative k counts (|k| overflows for -2⁶³)
    magnitude = xp.asarray(base) ** xp.where(negative, xp.asarray(exponent) % 2, exponent)
    vanishes = negative & (xp.abs(base) != 1)
    return xp.where(vanishes, xp.zeros_like(magnitude), magnitude)


def _half_power(x: Any, exponent: float) -> Any:
    """x ** ±0.5 with PyTorch's values at -0 and -inf. Its CPU kernel computes float32 and float64 as
    sqrt and rsqrt (√-0 = -0, 1/√-0 = -inf, nan at -inf) but float16 as pow (+0 at -0, +inf at
    -inf); NumPy's power is sqrt for 0.5 and pow for -0.5."""
    xp = get_array_module(x)
    if x.dtype == _dtypes.float16.numpy:
        if exponent < 0:
            return x ** exponent
        return xp.where(x == -xp.inf, xp.inf, xp.sqrt(x) + 0)  # + 0: -0 becomes +0
    return xp.sqrt(x) if exponent > 0 else 1 / xp.sqrt(x)


class Pow(Function):
    """z = a ** b;   dz/da = b · a^(b-1),  dz/db = z · ln(a)."""

    @staticmethod
    def forward(ctx, a, b):
        if _is_bool(a) and _is_bool(b):  # PyTorch has a bool power only for a bool number as the exponent
            if type(b) is not bool:
                raise NotImplementedError("\"pow\" not implemented for 'Bool'")
            return Tensor(a.array.copy() if b else get_array_module(a).ones_like(a.array))
        x, y = _promoted(ctx, a, b)
        if isinstance(b, int) and b < 0 and x.dtype.kind != "f":  # b a number: a is the tensor
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if isinstance(b, (int, float)) and (x.dtype.kind in "iu" or x.dtype == _dtypes.float16.numpy):
            converted_scalar(b, _dtypes.from_numpy_dtype(x.dtype))  # int8 ** 300 is refused, as PyTorch's
        try:
            with ieee_results():
                half_power = type(b) is float and b in (0.5, -0.5) and x.dtype.kind == "f"
                out = Tensor(_half_power(x, b) if half_power else x ** y)
        except ValueError:  # NumPy refuses an integer array of exponents with negatives; PyTorch does not
            power = _integer_power(get_array_module(first_tensor(a, b)), x, y)
            out = Tensor(power.astype(ctx.dtype.numpy, copy=False))  # (-7) ** int8 is int8, as PyTorch's
        _save_operands(ctx, a, b, out=out if ctx.needs_input_grad[1] else None)  # z, for dz/db = z · ln(a)
        if isinstance(b, Tensor):  # PyTorch's overloads: tensor ** number, tensor ** tensor, number ** tensor
            ctx._name = "PowBackward1" if isinstance(a, Tensor) else "PowBackward2"
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b = _saved_operands(ctx)
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            # b · a^(b-1), written so that b == 0 gives 0 even where a == 0 (as PyTorch)
            if not isinstance(b, Tensor):
                grad_a = grad * b * a ** (b - 1) if b != 0 else _zeros_like(grad)
            else:
                grad_a = _where(b == 0, 0.0, grad * b * a ** (b - 1))
        if ctx.needs_input_grad[1]:
            out = ctx.saved_tensors[2]
            # z · ln(a), taking ln(0) as 0 so that 0 ** b has gradient 0 in b (as PyTorch)
            if not isinstance(a, Tensor):
                log_a = math.log(a) if a > 0 else 0.0 if a == 0 else math.nan
            else:
                log_a = _where(a == 0, 1.0, a).log()
            grad_b = grad * out * log_a
        return grad_a, grad_b


def pow(a: Any, b: Any) -> Tensor:  # noqa: A001 (PyTorch's name)
    a, b = _binary_operands(a, b)
    return apply_broadcasting(Pow, a, b)


class Neg(Function):
    """z = -a;   dz/da = -1."""

    @staticmethod
    def forward(ctx, a):
        if a.dtype is _dtypes.bool:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or `logical_not()` "
                               "operator instead.")
        return Tensor(-a.array)

    @staticmethod
    def backward(ctx, grad):
        return -grad


def neg(a: Tensor) -> Tensor:
    return Neg.apply(a)


def _quotient_operands(a: Any, b: Any, kernel: str) -> tuple:
    """(xp, result dtype, a's array, b's array); an integer division by zero raises, as in PyTorch."""
    a, b = _binary_operands(a, b)
    check_same_device((a, b), kernel)
    check_broadcast(a, b)
    dtype = _dtypes.result_type(a, b)
    if dtype is _dtypes.bool:  # NumPy would answer in int8
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    x, y = array_of(a, dtype), array_of(b, dtype)
    if not dtype.is_floating_point and bool(y == 0 if isinstance(y, (int, float)) else (y == 0).any()):
        raise RuntimeError("ZeroDivisionError")
    return get_array_module(first_tensor(a, b)), dtype, x, y


def floor_divide(a: Any, b: Any) -> Tensor:
    """a // b rounded down; not differentiable (its gradient is zero almost everywhere)."""
    _, _, x, y = _quotient_operands(a, b, "div_floor_cpu")
    with ieee_results():  # x // 0.0 is ±inf or nan, silently, as in PyTorch
        return Tensor(x // y)


def _trunc_divide(a: Any, b: Any) -> Tensor:
    """a / b rounded towards zero, in the operands' result dtype (``div(rounding_mode='trunc')``)."""
    xp, dtype, x, y = _quotient_operands(a, b, "div_trunc_cpu")
    if dtype.is_floating_point:
        with ieee_results():
            x, y, half = _in_half_opmath(a, b, x, y)
            quotient = xp.trunc(x / y)
            return Tensor(quotient if half is None else quotient.astype(half))
    # floor(a / b), one up where it was rounded down from a negative quotient (not |a| // |b|:
    # |-128| is -128 in int8)
    with ieee_results():  # the type's minimum // -1 wraps, as in PyTorch
        quotient = x // y
        return Tensor(quotient + (((x < 0) != (y < 0)) & (x % y != 0)).astype(quotient.dtype))


class Remainder(Function):
    """z = a - b·floor(a / b) (the sign of b, Python's rule);   dz/da = 1,  dz/db = -floor(a / b)."""

    @staticmethod
    def forward(ctx, a, b):
        _, _, x, y = _quotient_operands(a, b, "remainder_cpu")
        _save_operands(ctx, a, b)
        with ieee_results():  # x % 0.0 is nan, silently, as in PyTorch
            return Tensor(x % y)

    @staticmethod
    def backward(ctx, grad):
        a, b = _saved_operands(ctx)
        grad_b = -grad * floor_divide(a, b) if ctx.needs_input_grad[1] else None  # a step: a constant
        return grad, grad_b


def remainder(a: Any, b: Any) -> Tensor:
    """a % b with the sign of b (Python's rule, as PyTorch); differentiable in both operands."""
    a, b = _binary_operands(a, b)
    return apply_broadcasting(Remainder, a, b)
