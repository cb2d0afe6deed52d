"""Softmax and log-softmax along one dimension, stable for any input size (log-sum-exp)."""

from __future__ import annotations

import warnings
from typing import Any

from minigrad.autograd.function import Function
from minigrad.ops._util import reduction_axes, wrap, xp_of
from minigrad.tensor import Tensor


def _log_softmax_array(x: Any, axis: int) -> Any:
    """x - logsumexp(x): subtracting the max first keeps every exponent ≤ 0."""
    xp = xp_of(Tensor(x))
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))


class Softmax(Function):
    """yᵢ = e^xᵢ / Σⱼ e^xⱼ;   dx = y ⊙ (dy - Σ (dy ⊙ y))."""

    @staticmethod
    def forward(ctx, a, axis):
        xp = xp_of(a)
        out = wrap(xp.exp(_log_softmax_array(a.array, axis)))
        ctx.axis = axis
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        y, g = out.array, grad.array
        return wrap(y * (g - (g * y).sum(axis=ctx.axis, keepdims=True))), None


class LogSoftmax(Function):
    """yᵢ = xᵢ - log Σⱼ e^xⱼ;   dx = dy - softmax(x) · Σ dy."""

    @staticmethod
    def forward(ctx, a, axis):
        out = wrap(_log_softmax_array(a.array, axis))
        ctx.axis = axis
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        xp = xp_of(grad)
        g = grad.array
        return wrap(g - xp.exp(out.array) * g.sum(axis=ctx.axis, keepdims=True)), None


def _softmax_axis(a: Tensor, dim: Any, name: str) -> int:
    if dim is None:  # PyTorch's legacy implicit choice, with its warning
        warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                      "Change the call to include dim=X as an argument.", stacklevel=3)
        dim = 0 if a.ndim in (0, 1, 3) else 1
    if a.ndim == 0:
        return 0
    return reduction_axes(dim, a.ndim)[0]


def _floating(a: Tensor, dtype: Any) -> Tensor:
    from minigrad import dtypes  # noqa: PLC0415

    if dtype is not None:
        return a.to(dtypes.as_dtype(dtype))
    if not a.dtype.is_floating_point:
        raise NotImplementedError(f"softmax is not implemented for integer tensors (got {a.dtype.name})")
    return a


def softmax(a: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    a = _floating(a, dtype)
    if a.ndim == 0:
        return Softmax.apply(a.reshape(1), 0).reshape(())
    return Softmax.apply(a, _softmax_axis(a, dim, "softmax"))


def log_softmax(a: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    a = _floating(a, dtype)
    if a.ndim == 0:
        return LogSoftmax.apply(a.reshape(1), 0).reshape(())
    return LogSoftmax.apply(a, _softmax_axis(a, dim, "log_softmax"))
