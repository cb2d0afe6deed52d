"""Softmax, log-softmax and softmin along one dimension, stable for any input size (log-sum-exp).

A 0-d tensor is one class (softmax 1, log-softmax 0); an empty tensor gives an empty result;
±inf inputs give PyTorch's inf/nan results, without NumPy's warnings."""

from __future__ import annotations

import warnings
from typing import Any

from minigrad._arguments import int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._util import ieee_results, opmath
from minigrad.tensor import Tensor, _normalize_dim


def log_softmax_array(x: Any, axis: int) -> Any:
    """x - logsumexp(x) along ``axis`` (also the losses' log-probabilities); subtracting the max first
    keeps every exponent ≤ 0."""
    xp = get_array_module(x)
    if x.size == 0:  # no maximum to subtract (and nothing to normalise)
        return x.copy()
    with ieee_results():  # inf − inf = nan and log(0) = −inf, as in PyTorch
        shifted = x - x.max(axis=axis, keepdims=True)
        return shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))


class Softmax(Function):
    """yᵢ = e^xᵢ / Σⱼ e^xⱼ;   dx = y ⊙ (dy - Σ (dy ⊙ y))."""

    @staticmethod
    def forward(ctx, a, axis):
        xp = get_array_module(a)
        out = Tensor(xp.exp(log_softmax_array(opmath(a.array), axis)).astype(a.array.dtype, copy=False))
        ctx.axis = axis
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return SoftmaxBackward.apply(grad, out, ctx.axis), None


class SoftmaxBackward(Function):
    """softmax's backward, dx = y ⊙ (dy − Σ dy ⊙ y), as a Function of (dy, y) (sums along the axis);
    linear in dy and self-adjoint:  d(dx)/d(dy) · v = y ⊙ (v − Σ v ⊙ y),
    and  d(dx)/dy · v = v ⊙ (dy − Σ dy ⊙ y) − dy · Σ (v ⊙ y)."""

    node_name = "SoftmaxBackwardDataBackward0"  # PyTorch's
    graph_inputs = (0, 1)

    @staticmethod
    def forward(ctx, grad, out, axis):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, out)
        ctx.axis = axis
        y, g = out.array, grad.array
        return Tensor(y * (g - (g * y).sum(axis=axis, keepdims=True)))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, out = ctx.saved_tensors
        axis = ctx.axis
        d_grad = SoftmaxBackward.apply(grad_grad, out, axis) if ctx.needs_input_grad[0] else None
        d_out = None
        if ctx.needs_input_grad[1]:
            d_out = (grad_grad * (grad - (grad * out).sum(axis, keepdim=True))
                     - grad * (grad_grad * out).sum(axis, keepdim=True))
        return d_grad, d_out, None


class LogSoftmax(Function):
    """yᵢ = xᵢ - log Σⱼ e^xⱼ;   dx = dy - softmax(x) · Σ dy."""

    @staticmethod
    def forward(ctx, a, axis):
        out = Tensor(log_softmax_array(opmath(a.array), axis).astype(a.array.dtype, copy=False))
        ctx.axis = axis
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return LogSoftmaxBackward.apply(grad, out, ctx.axis), None


class LogSoftmaxBackward(Function):
    """log_softmax's backward, dx = dy − eʸ · Σ dy, as a Function of (dy, y) (sums along the axis);
    d(dx)/d(dy) · v = v − Σ (v ⊙ eʸ),   d(dx)/dy · v = −v ⊙ eʸ · Σ dy."""

    node_name = "LogSoftmaxBackwardDataBackward0"  # PyTorch's
    graph_inputs = (0, 1)

    @staticmethod
    def forward(ctx, grad, out, axis):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, out)
        ctx.axis = axis
        g = grad.array
        return Tensor(g - get_array_module(grad).exp(out.array) * g.sum(axis=axis, keepdims=True))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, out = ctx.saved_tensors
        axis = ctx.axis
        probabilities = out.exp()
        d_grad = d_out = None
        if ctx.needs_input_grad[0]:
            d_grad = grad_grad - (grad_grad * probabilities).sum(axis, keepdim=True)
        if ctx.needs_input_grad[1]:
            d_out = -grad_grad * probabilities * grad.sum(axis, keepdim=True)
        return d_grad, d_out, None


def _softmax_axis(a: Tensor, dim: Any, name: str, stacklevel: int) -> int:
    """The one axis to normalise over: ``dim`` (an int; a 0-d tensor takes 0 or -1), or PyTorch's legacy
    implicit choice for ``dim=None``, with its warning."""
    if dim is None:
        warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                      "Change the call to include dim=X as an argument.", stacklevel=stacklevel)
        dim = 0 if a.ndim in (0, 1, 3) else 1
    return _normalize_dim(int_argument(dim, name, "dim", position=1), max(a.ndim, 1))


def _floating(a: Tensor, dtype: Any) -> Tensor:
    from minigrad import dtypes  # noqa: PLC0415

    if dtype is not None:
        return a.to(dtypes.dtype_argument(dtype, "softmax"))
    if not a.dtype.is_floating_point and a.numel() != 0:  # PyTorch returns an empty integer tensor as it is
        raise NotImplementedError(f"softmax is not implemented for integer tensors (got {a.dtype.name})")
    return a


def softmax(a: Tensor, dim: Any = None, dtype: Any = None, *, _stacklevel: int = 3) -> Tensor:
    """e^xᵢ / Σⱼ e^xⱼ along ``dim``, computed in ``dtype`` if given."""
    axis = _softmax_axis(a, dim, "softmax", _stacklevel)
    a = _floating(a, dtype)
    if a.ndim == 0:
        return Softmax.apply(a.reshape(1), 0).reshape(())
    return Softmax.apply(a, axis)


def log_softmax(a: Tensor, dim: Any = None, dtype: Any = None, *, _stacklevel: int = 3) -> Tensor:
    """xᵢ − log Σⱼ e^xⱼ along ``dim``, computed in ``dtype`` if given."""
    axis = _softmax_axis(a, dim, "log_softmax", _stacklevel)
    a = _floating(a, dtype)
    if a.ndim == 0:
        return LogSoftmax.apply(a.reshape(1), 0).reshape(())
    return LogSoftmax.apply(a, axis)


def softmin(a: Tensor, dim: Any = None, dtype: Any = None, *, _stacklevel: int = 3) -> Tensor:
    """e^−xᵢ / Σⱼ e^−xⱼ along ``dim``: the softmax of −a (negated before any ``dtype`` conversion)."""
    axis = _softmax_axis(a, dim, "softmin", _stacklevel)
    return softmax(-a, axis, dtype)
