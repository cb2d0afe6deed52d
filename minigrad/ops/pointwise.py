"""More elementwise functions: ``fmod``, ``frac``, ``sgn``, ``signbit``, ``heaviside``, and the fused
updates optimisers use, ``addcmul`` and ``addcdiv`` (with their in-place forms).

Each Function states its derivative beside its forward; the backwards are written in tensor operations,
so they can be differentiated again. (``lgamma``, ``digamma`` and ``erfinv`` are in ``special.py``.)
"""

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import inplace as _inplace
from minigrad.ops._util import (
    apply_broadcasting,
    as_operand,
    check_broadcast,
    check_tensor_arguments,
    first_tensor,
    ieee_results,
    not_implemented_for,
)
from minigrad.ops.arithmetic import _quotient_operands, _save_operands, _saved_operands, _trunc_divide
from minigrad.ops.counting import recorded_without_derivative
from minigrad.ops.rounding import Sign
from minigrad.tensor import Tensor


class Fmod(Function):
    """z = a − b·trunc(a / b) (the sign of a, C's rule);   dz/da = 1,  dz/db = −trunc(a / b)."""

    @staticmethod
    def forward(ctx, a, b):
        xp, _, x, y = _quotient_operands(a, b, "fmod_cpu")
        _save_operands(ctx, a, b)
        ctx._name = "FmodBackward1" if isinstance(b, Tensor) else "FmodBackward0"
        with ieee_results():  # fmod(x, 0.0) is nan, silently, as in PyTorch
            return Tensor(xp.fmod(x, y))

    @staticmethod
    def backward(ctx, grad):
        a, b = _saved_operands(ctx)
        grad_b = -grad * _trunc_divide(a, b) if ctx.needs_input_grad[1] else None  # a step: a constant
        return grad, grad_b


def fmod(input: Any, other: Any) -> Tensor:  # noqa: A002 (PyTorch's name)
    """The remainder of a / b with the sign of a (``math.fmod``), unlike ``remainder``'s sign of b."""
    like = first_tensor(input, other)
    return apply_broadcasting(Fmod, as_operand(input, like), as_operand(other, like))


class Frac(Function):
    """y = a − trunc(a) (the fractional part, with a's sign);   dy/da = 1."""

    @staticmethod
    def forward(ctx, a):
        if not a.dtype.is_floating_point:
            raise not_implemented_for("frac_cpu", a)
        return Tensor(a.array - get_array_module(a).trunc(a.array))

    @staticmethod
    def backward(ctx, grad):
        return grad


def frac(input: Tensor) -> Tensor:  # noqa: A002
    return Frac.apply(input)


class Sgn(Sign):
    """y = a / |a| (0 at 0): for real numbers ``sign`` itself (its forward and backward), under
    PyTorch's node name ``SgnBackward0``."""


def sgn(input: Tensor) -> Tensor:  # noqa: A002
    return Sgn.apply(input)


def signbit(input: Tensor) -> Tensor:  # noqa: A002
    """True where the sign bit is set: negative numbers and −0.0 (a bool tensor, no gradient)."""
    return Tensor(get_array_module(input).signbit(input.array))


def heaviside(input: Tensor, values: Tensor) -> Tensor:  # noqa: A002
    """H(a) = 0 for a < 0, ``values`` at a = 0, 1 for a > 0 (broadcast together). As in PyTorch it has no
    derivative: its result requires grad if an input does, and its backward raises NotImplementedError."""
    check_tensor_arguments("heaviside", {"input": input, "values": values})
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    xp = get_array_module(input)
    x, v = input.array, values.array
    check_broadcast(input, values)
    out = xp.where(x == 0, v, (x > 0).astype(x.dtype)).astype(x.dtype, copy=False)
    error = (RuntimeError, "derivative for aten::heaviside is not implemented")
    return recorded_without_derivative(out, error, "torch::autograd::NotImplemented", input, values)


# --- addcmul and addcdiv: input + value · t₁ ∘ t₂ (or t₁ / t₂) ------------------------------------

class Addcmul(Function):
    """y = a + v·t₁·t₂;   dy/da = 1,  dy/dt₁ = v·t₂,  dy/dt₂ = v·t₁   (summed to each shape by the engine)."""

    @staticmethod
    def forward(ctx, a, t1, t2, value):
        dtype = _dtypes.result_type(a, t1, t2)
        ctx.value = value
        ctx.save_for_backward(t1, t2)
        x, y, z = (t.array.astype(dtype.numpy, copy=False) for t in (a, t1, t2))
        return Tensor((x + value * (y * z)).astype(dtype.numpy, copy=False))

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx.saved_tensors
        v = ctx.value
        grad_t1 = grad * t2 * v if ctx.needs_input_grad[1] else None
        grad_t2 = grad * t1 * v if ctx.needs_input_grad[2] else None
        return grad, grad_t1, grad_t2, None


class Addcdiv(Function):
    """y = a + v·t₁/t₂;   dy/da = 1,  dy/dt₁ = v/t₂,  dy/dt₂ = −v·t₁/t₂²."""

    @staticmethod
    def forward(ctx, a, t1, t2, value):
        dtype = _dtypes.result_type(a, t1, t2)
        ctx.value = value
        ctx.save_for_backward(t1, t2)
        x, y, z = (t.array.astype(dtype.numpy, copy=False) for t in (a, t1, t2))
        with ieee_results():
            return Tensor((x + value * (y / z)).astype(dtype.numpy, copy=False))

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx.saved_tensors
        v = ctx.value
        grad_t1 = grad * v / t2 if ctx.needs_input_grad[1] else None
        grad_t2 = -grad * v * t1 / (t2 * t2) if ctx.needs_input_grad[2] else None
        return grad, grad_t1, grad_t2, None


def _fused_operands(function: str, input: Any, tensor1: Any, tensor2: Any, value: Any) -> Any:  # noqa: A002
    """``value`` as the result's type (an integer result truncates it, as PyTorch does); bool has no
    kernel."""
    check_tensor_arguments(function, {"input": input, "tensor1": tensor1, "tensor2": tensor2})
    dtype = _dtypes.result_type(input, tensor1, tensor2)
    if dtype is _dtypes.bool:
        raise not_implemented_for(f"{function}_cpu_out", input if input.dtype is _dtypes.bool else tensor1)
    return value if dtype.is_floating_point else int(value)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:  # noqa: A002
    """input + value · tensor1 · tensor2, elementwise (broadcast together)."""
    value = _fused_operands("addcmul", input, tensor1, tensor2, value)
    return apply_broadcasting(Addcmul, input, tensor1, tensor2, value)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:  # noqa: A002
    """input + value · tensor1 / tensor2, elementwise (broadcast together); floating point only."""
    if not tensor1.dtype.is_floating_point and not tensor2.dtype.is_floating_point:
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future release "
                           "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                           "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                           "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                           "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    value = _fused_operands("addcdiv", input, tensor1, tensor2, value)
    return apply_broadcasting(Addcdiv, input, tensor1, tensor2, value)


def addcmul_(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:  # noqa: A002
    return _inplace.apply(input, "addcmul_", lambda t: addcmul(t, tensor1, tensor2, value=value), tensor1,
                          tensor2)


def addcdiv_(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:  # noqa: A002
    return _inplace.apply(input, "addcdiv_", lambda t: addcdiv(t, tensor1, tensor2, value=value), tensor1,
                          tensor2)


# --- apply_: a Python function of a number, element by element ---------------------------------

def apply_(input: Tensor, callable: Any) -> Tensor:  # noqa: A002 (PyTorch's names)
    """Replace each element x by ``callable(x)`` in place, as PyTorch's ``Tensor.apply_``: one Python call
    per element (slow, for small tensors and teaching), CPU only, never recorded in a graph."""
    from minigrad.autograd.grad_mode import is_grad_enabled  # noqa: PLC0415

    if input.requires_grad and is_grad_enabled():
        raise RuntimeError("Can't call apply_() on Variable that requires grad. Use var.detach().apply_() "
                           "instead.")
    if input.device.type != "cpu":
        raise TypeError("apply_ is only implemented on CPU tensors")
    array = input.array
    results = [callable(value) for value in array.reshape(-1).tolist()]
    array[...] = get_array_module(input).asarray(results, dtype=array.dtype).reshape(array.shape)
    input._bump_version("apply_")
    return input
