"""Comparisons and logic: they return bool tensors and carry no gradient."""

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import check_same_device
from minigrad.backend import get_array_module
from minigrad.ops._util import (
    TORCH_TYPE_NAMES,
    array_of,
    as_operand,
    check_broadcast,
    first_tensor,
    not_implemented_for,
    reduction_axes,
)
from minigrad.tensor import Tensor


def _compare(name: str, a: Any, b: Any) -> Tensor:
    like = first_tensor(a, b)
    a, b = as_operand(a, like), as_operand(b, like)
    check_same_device((a, b), name)
    check_broadcast(a, b)
    dtype = _dtypes.result_type(a, b)
    return Tensor(getattr(get_array_module(like), name)(array_of(a, dtype), array_of(b, dtype)))


def eq(a: Any, other: Any) -> Tensor:
    return _compare("equal", a, other)


def ne(a: Any, other: Any) -> Tensor:
    return _compare("not_equal", a, other)


def lt(a: Any, other: Any) -> Tensor:
    return _compare("less", a, other)


def le(a: Any, other: Any) -> Tensor:
    return _compare("less_equal", a, other)


def gt(a: Any, other: Any) -> Tensor:
    return _compare("greater", a, other)


def ge(a: Any, other: Any) -> Tensor:
    return _compare("greater_equal", a, other)


def logical_binary(name: str, a: Any, b: Any) -> Tensor:
    """``& | ^`` on bool or integer tensors (a float operand has no kernel: NotImplementedError)."""
    like = first_tensor(a, b)
    a, b = as_operand(a, like), as_operand(b, like)
    check_same_device((a, b), name)
    check_broadcast(a, b)
    dtype = _dtypes.result_type(a, b)
    if dtype.is_floating_point:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{TORCH_TYPE_NAMES[dtype.name]}\' '
                                  f"(bitwise operations take integer and bool tensors)")
    return Tensor(getattr(get_array_module(like), name)(array_of(a, dtype), array_of(b, dtype)))


def shift(name: str, a: Any, b: Any) -> Tensor:
    """``a << b`` (``name`` 'left_shift') or ``a >> b`` ('right_shift') on integer tensors, as PyTorch's:
    a count below 0 or of the type's width or more shifts everything out (0, or -1 for a negative
    ``a`` shifted right); bool and float operands have no kernel (NotImplementedError)."""
    like = first_tensor(a, b)
    a, b = as_operand(a, like), as_operand(b, like)
    check_same_device((a, b), name)
    check_broadcast(a, b)
    dtype = _dtypes.result_type(a, b)
    kernel = "lshift_cpu" if name == "left_shift" else "rshift_cpu"
    if dtype.is_floating_point or dtype is _dtypes.bool:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{TORCH_TYPE_NAMES[dtype.name]}\'')
    xp = get_array_module(like)
    x, count = (xp.asarray(array_of(v, dtype), dtype=dtype.numpy) for v in (a, b))
    inside = (count >= 0) & (count < x.dtype.itemsize * 8)
    shifted = getattr(xp, name)(x, xp.where(inside, count, 0).astype(x.dtype))
    zero = x.dtype.type(0)
    signed_right = name == "right_shift" and x.dtype.kind == "i"
    shifted_out = xp.where(x < 0, x.dtype.type(-1), zero) if signed_right else zero
    return Tensor(xp.where(inside, shifted, shifted_out).astype(x.dtype, copy=False))


def invert(a: Tensor) -> Tensor:
    """``~a``: each bit flipped (``not`` for bools); floats have no bits to flip (TypeError, as PyTorch)."""
    if a.dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return Tensor(~a.array)


def bitwise_not(a: Tensor) -> Tensor:
    """``torch.bitwise_not``: ``~a``, whose error for a float tensor is the missing kernel's."""
    if a.dtype.is_floating_point:
        raise not_implemented_for("bitwise_not_cpu", a)
    return invert(a)


def logical_not(a: Tensor) -> Tensor:
    return Tensor(get_array_module(a).logical_not(a.array))


def _logical(name: str, a: Tensor, b: Any) -> Tensor:
    """Elementwise truth of ``a`` and ``b`` combined (nonzero is true), a bool tensor; no grad."""
    like = a if isinstance(a, Tensor) else b
    if not isinstance(b, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(b).__name__}")
    check_same_device((a, b), name)
    check_broadcast(a, b)
    xp = get_array_module(like)
    return Tensor(getattr(xp, name)(a.array != 0, b.array != 0))


def logical_and(a: Tensor, b: Tensor) -> Tensor:
    """True where both are nonzero."""
    return _logical("logical_and", a, b)


def logical_or(a: Tensor, b: Tensor) -> Tensor:
    """True where either is nonzero."""
    return _logical("logical_or", a, b)


def logical_xor(a: Tensor, b: Tensor) -> Tensor:
    """True where exactly one is nonzero."""
    return _logical("logical_xor", a, b)


def equal(a: Tensor, b: Tensor) -> bool:
    """True if both have the same shape and the same values."""
    return a.shape == b.shape and bool(eq(a, b).array.all())


def _check_close_operands(a: Tensor, b: Tensor) -> None:
    """isclose and allclose compare tensors of one dtype on one device, as PyTorch's."""
    check_same_device((a, b), "isclose")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{TORCH_TYPE_NAMES[a.dtype.name]} did not match {TORCH_TYPE_NAMES[b.dtype.name]} "
                           f"(isclose/allclose compare tensors of one dtype: {a.dtype.name} and "
                           f"{b.dtype.name})")
    check_broadcast(a, b)


def allclose(a: Tensor, b: Tensor, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
    _check_close_operands(a, b)
    return bool(get_array_module(a).allclose(a.array, b.array, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(a: Tensor, b: Tensor, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Tensor:
    _check_close_operands(a, b)
    return Tensor(get_array_module(a).isclose(a.array, b.array, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isnan(a: Tensor) -> Tensor:
    return Tensor(get_array_module(a).isnan(a.array))


def isfinite(a: Tensor) -> Tensor:
    return Tensor(get_array_module(a).isfinite(a.array))


def isinf(a: Tensor) -> Tensor:
    return Tensor(get_array_module(a).isinf(a.array))


def any(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return Tensor(a.array.any(axis=reduction_axes(dim, a.ndim), keepdims=keepdim))


def all(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return Tensor(a.array.all(axis=reduction_axes(dim, a.ndim), keepdims=keepdim))


def nonzero(a: Tensor, *, as_tuple: bool = False) -> Any:
    """Indices of the non-zero elements: an (n, ndim) int64 tensor, or a tuple of 1-D ones."""
    xp = get_array_module(a)
    if a.ndim == 0:  # NumPy refuses 0-d; PyTorch treats it as 1-D (as_tuple) or gives (n, 0) indices
        (found,) = xp.nonzero(a.array.reshape(1))
        if as_tuple:
            return (Tensor(found.astype(_dtypes.int64.numpy)),)
        return Tensor(xp.zeros((found.size, 0), dtype=_dtypes.int64.numpy))
    indices = xp.nonzero(a.array)
    if as_tuple:
        return tuple(Tensor(i.astype(_dtypes.int64.numpy)) for i in indices)
    return Tensor(xp.stack(indices, axis=1).astype(_dtypes.int64.numpy))
