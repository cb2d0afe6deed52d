"""Changing dtype or device (differentiable), copying, and ``copy_``."""

from __future__ import annotations

from numbers import Number
from typing import Any

from minigrad import backend
from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._util import ieee_results
from minigrad.tensor import Tensor


class Cast(Function):
    """y = a as another dtype;   da = dy cast back to a's dtype."""

    node_name = "ToCopyBackward0"  # PyTorch's ``to`` copies through ``_to_copy``

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.input_dtype = a.dtype
        return Tensor(a.array.astype(dtype.numpy))

    @staticmethod
    def backward(ctx, grad):
        return Cast.apply(grad, ctx.input_dtype), None


class ToDevice(Function):
    """y = a copied to another device;   da = dy copied back."""

    @staticmethod
    def forward(ctx, a, device):
        ctx.input_device = a.device
        return Tensor(backend.to_device(a.array, device))

    @staticmethod
    def backward(ctx, grad):
        return ToDevice.apply(grad, ctx.input_device), None


class Clone(Function):
    """y = a copy of a;   da = dy."""

    @staticmethod
    def forward(ctx, a):
        return Tensor(a.array.copy())

    @staticmethod
    def backward(ctx, grad):
        return grad


def to(a: Tensor, device: Any = None, dtype: Any = None, copy: bool = False) -> Tensor:
    """The tensor on ``device`` with ``dtype``; ``a`` itself when nothing changes (unless ``copy``)."""
    out = a
    if device is not None:
        device = backend.Device(device)
        if device.type == "cuda":
            backend.array_module_for(device)  # raises a clear error when CUDA is unavailable
        if device != a.device:
            out = ToDevice.apply(out, device)
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
        if dtype is not out.dtype:
            out = Cast.apply(out, dtype) if dtype.is_floating_point else _cast_no_grad(out, dtype)
    if copy and out is a:
        out = Clone.apply(a)
    return out


def _cast_no_grad(a: Tensor, dtype: _dtypes.dtype) -> Tensor:
    """Casting to an integer or bool type ends differentiation (as in PyTorch)."""
    with ieee_results():  # nan or inf to an integer: whatever the cast gives, silently as in PyTorch
        return Tensor(a.array.astype(dtype.numpy))


def read_to_overload(args: tuple, kwargs: dict) -> tuple:
    """``(device, dtype, copy)`` from the arguments of one of PyTorch's three ``to`` overloads:
    ``to(device=None, dtype=None)``, ``to(dtype)`` or ``to(other)``, each followed by ``non_blocking``
    and ``copy``. Anything else (two dtypes, a NumPy type, a device twice) is PyTorch's TypeError."""
    rest = list(args)
    device = dtype = None
    if rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        device, dtype = other.device, other.dtype
    elif rest and _names_dtype(rest[0]):
        dtype = rest.pop(0)
    elif rest and (rest[0] is None or isinstance(rest[0], (str, backend.Device))):
        device = rest.pop(0)
        if rest and (rest[0] is None or _names_dtype(rest[0])):
            dtype = rest.pop(0)
    flags = dict(zip(("non_blocking", "copy"), rest))
    positional = {"device": device, "dtype": dtype, **flags}
    given_twice = [key for key in kwargs if positional.get(key) is not None]
    unknown = set(kwargs) - {"device", "dtype", "non_blocking", "copy"}
    if len(rest) > 2 or not all(isinstance(flag, bool) for flag in flags.values()) or given_twice or unknown:
        got = [type(arg).__name__ for arg in args]
        got += [f"{key}={type(value).__name__}" for key, value in kwargs.items()]
        raise TypeError(f"to() received an invalid combination of arguments - got ({', '.join(got)}), but "
                        f"expected one of: (device=None, dtype=None, non_blocking=False, copy=False), "
                        f"(dtype, non_blocking=False, copy=False), "
                        f"(Tensor other, non_blocking=False, copy=False)")
    device = kwargs.get("device", device)
    dtype = kwargs.get("dtype", dtype)
    copy = kwargs.get("copy", flags.get("copy", False))
    return device, None if dtype is None else _dtypes.dtype_argument(dtype, "to"), copy


def _names_dtype(value: Any) -> bool:
    """A dtype, or a Python type PyTorch reads as one (``float``, ``int``, ``bool``)."""
    return isinstance(value, _dtypes.dtype) or any(value is python_type for python_type in (float, int, bool))


class Copy(Function):
    """y = source broadcast into a's shape and dtype (``a.copy_(source)``);   dsource = dy summed."""

    node_name = "CopyBackwards"  # PyTorch's name for ``copy_``

    @staticmethod
    def forward(ctx, a, source):
        xp = get_array_module(a)
        array = xp.asarray(source.array if isinstance(source, Tensor) else source, dtype=a.array.dtype)
        try:
            return Tensor(xp.broadcast_to(array, a.array.shape).copy())
        except ValueError:  # the array library's broadcast error, as PyTorch's
            raise RuntimeError(f"copy_: the source of shape {list(array.shape)} can't be broadcast to the "
                               f"destination's shape {list(a.array.shape)}") from None

    @staticmethod
    def backward(ctx, grad):
        return None, grad


def copy_into(a: Tensor, source: Any) -> Tensor:
    if not isinstance(source, (Tensor, Number)):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(source).__name__}")
    if isinstance(source, Tensor) and source.device != a.device:
        source = to(source, device=a.device)
    return Copy.apply(a, source)
