"""Changing dtype or device (differentiable), copying, and ``copy_``."""

from __future__ import annotations

from numbers import Number
from typing import Any

from minigrad import backend
from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.ops._util import ieee_results, wrap, xp_of
from minigrad.tensor import Tensor


class Cast(Function):
    """y = a as another dtype;   da = dy cast back to a's dtype."""

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.input_dtype = a.dtype
        return wrap(a.array.astype(dtype.numpy))

    @staticmethod
    def backward(ctx, grad):
        return wrap(grad.array.astype(ctx.input_dtype.numpy)), None


class ToDevice(Function):
    """y = a copied to another device;   da = dy copied back."""

    @staticmethod
    def forward(ctx, a, device):
        ctx.input_device = a.device
        return wrap(backend.to_device(a.array, device))

    @staticmethod
    def backward(ctx, grad):
        return wrap(backend.to_device(grad.array, ctx.input_device)), None


class Clone(Function):
    """y = a copy of a;   da = dy."""

    @staticmethod
    def forward(ctx, a):
        return wrap(a.array.copy())

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
        return wrap(a.array.astype(dtype.numpy))


def parse_to_args(a: Tensor, args: tuple, kwargs: dict) -> tuple:
    """Read ``to``'s flexible arguments: device, dtype, (device, dtype), or another tensor."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for arg in args:
        if isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, (str, backend.Device)):
            device = arg
        elif arg is not None:
            dtype = arg
    return device, dtype


class Copy(Function):
    """y = source broadcast into a's shape and dtype (``a.copy_(source)``);   dsource = dy summed."""

    @staticmethod
    def forward(ctx, a, source):
        xp = xp_of(a)
        array = xp.asarray(source.array if isinstance(source, Tensor) else source, dtype=a.array.dtype)
        try:
            return wrap(xp.broadcast_to(array, a.array.shape).copy())
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
