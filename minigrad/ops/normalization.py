"""Batch and layer normalisation, each one Function with the closed-form gradient.

Statistics are taken per channel (axis 1) over every other axis, N·H·W values each:

    training:   μ, σ² = mean and biased variance of the batch,   x̂ = (x − μ) / √(σ² + ε)
    evaluation: μ, σ² = the running estimates
    y = γ x̂ + β

    dβ = Σ dy,    dγ = Σ dy ⊙ x̂,
    dx = γ / √(σ² + ε) · (dy − mean(dy) − x̂ · mean(dy ⊙ x̂))     (training: μ, σ² depend on x)
    dx = γ / √(σ² + ε) · dy                                        (evaluation: they do not)

The training formula is the chain rule through μ and σ² done once on paper, so the
backward is three reductions and one elementwise expression instead of a dozen nodes. That
backward is itself a Function (``BatchNormBackward``, PyTorch's ``NativeBatchNormBackwardBackward0``)
whose own derivative is written in tensor operations, so gradients of gradients work to any order.
"""

# ruff: noqa: A001, A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._checks import normalization as checks
from minigrad.ops._util import TORCH_TYPE_NAMES, not_implemented_for
from minigrad.tensor import Tensor


def _channel_layout(x: Any) -> tuple:
    """The axes reduced over (all but 1) and the shape that broadcasts a (C,) vector over x."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return axes, shape


class BatchNorm(Function):
    """y = γ (x − μ) / √(σ² + ε) + β with batch (training) or running (evaluation) statistics."""

    node_name = "NativeBatchNormBackward0"
    graph_inputs = (0, 1, 2)  # input, weight, bias (None without affine), as PyTorch

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, training, momentum, eps):
        xp = get_array_module(input)
        x = input.array
        axes, shape = _channel_layout(x)
        if training:
            mean = x.mean(axis=axes).reshape(shape)
            centred = x - mean
            var = (centred * centred).mean(axis=axes)                  # biased: used to normalise
            if running_mean is not None:
                _update_running_stats(running_mean, running_var, mean.reshape(-1), var, x.size // x.shape[1],
                                      momentum)
        else:
            mean = running_mean.array.reshape(shape).astype(x.dtype)  # a copy: the running mean may change
            centred = x - mean
            var = running_var.array.astype(x.dtype, copy=False)
        inv_std = 1.0 / xp.sqrt(var + eps)
        normalized = centred * inv_std.reshape(shape)
        out = normalized * weight.array.reshape(shape) if weight is not None else normalized
        if bias is not None:
            out += bias.array.reshape(shape)
        ctx.statistics = (mean, inv_std, training, eps)
        ctx.save_for_backward(input, weight)
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        grads = BatchNormBackward.apply(grad, x, weight, *ctx.statistics, ctx.needs_input_grad[:3])
        return (*grads, None, None, None, None, None)


class BatchNormBackward(Function):
    """(dx, dγ, dβ) of :class:`BatchNorm` (the formulas at the top of this module) as a function of
    δ = dy, x and γ. Its own derivative, for gradients ε, a, b of dx, dγ, dβ, with s = 1/√(σ² + ε),
    ĝ = γδ and P(v) = v − mean(v) − x̂·mean(x̂v) (per channel; see :func:`_normalization_double_backward`):

        training:    d/dδ = γ s P(ε) + a x̂ + b,   d/dγ = Σ δ s P(ε),
                     d/dx = s P(aδ) − s² [mean(ε P(ĝ)) x̂ + mean(ĝ x̂) P(ε) + mean(ε x̂) P(ĝ)]
        evaluation:  d/dδ = γ s ε + a x̂ + b,       d/dγ = Σ δ s ε,      d/dx = s a δ
    """

    node_name = "NativeBatchNormBackwardBackward0"
    graph_inputs = (0, 1, 2)  # grad_output, input, weight

    @staticmethod
    def forward(ctx, grad_output, input, weight, mean, inv_std, training, eps, needed):
        g = grad_output.array
        axes, shape = _channel_layout(g)
        x_hat = (input.array - mean) * inv_std.reshape(shape)            # as the forward computed it
        sum_g = g.sum(axis=axes)                                        # = dβ
        sum_g_xhat = (g * x_hat).sum(axis=axes)                         # = dγ
        grad_input = None
        if needed[0]:
            scale = inv_std if weight is None else weight.array * inv_std
            if training:
                count = g.size // g.shape[1]
                g = g - (sum_g / count).reshape(shape) - x_hat * (sum_g_xhat / count).reshape(shape)
            grad_input = Tensor(g * scale.reshape(shape))
        ctx.statistics = (mean, inv_std, training, eps)
        ctx.save_for_backward(grad_output, input, weight)
        ctx.set_materialize_grads(False)
        return (grad_input, Tensor(sum_g_xhat) if needed[1] else None, Tensor(sum_g) if needed[2] else None)

    @staticmethod
    def backward(ctx, gg_input, gg_weight, gg_bias):
        grad, x, weight = ctx.saved_tensors
        mean, inv_std, training, eps = ctx.statistics
        axes, shape = _channel_layout(x)
        per_channel = (None if weight is None else weight.reshape(shape),
                       None if gg_weight is None else gg_weight.reshape(shape),
                       None if gg_bias is None else gg_bias.reshape(shape))
        if training:
            inv_std_t, x_hat = _standardized(x, axes, eps)
            grads = _normalization_double_backward(gg_input, grad, inv_std_t, x_hat, axes, *per_channel)
        else:
            inv_std_t = Tensor(inv_std.reshape(shape))
            x_hat = (x - Tensor(mean)) * inv_std_t
            grads = _eval_double_backward(gg_input, grad, inv_std_t, x_hat, *per_channel)
        grad_grad, grad_input, grad_weight = grads
        if grad_weight is not None:
            grad_weight = grad_weight.sum(axes)
        return grad_grad, grad_input, grad_weight, None, None, None, None, None


def _standardized(x: Tensor, axes: tuple, eps: float) -> tuple:
    """s = 1/√(σ² + ε) and x̂ = (x − μ)·s over ``axes`` (kept), in tensor operations of x."""
    centred = x - x.mean(axes, keepdim=True)
    inv_std = ((centred * centred).mean(axes, keepdim=True) + eps).rsqrt()
    return inv_std, centred * inv_std


def _normalization_double_backward(gg: Tensor | None, grad: Tensor, inv_std: Tensor, x_hat: Tensor,
                                   axes: tuple, weight: Tensor | None, gg_weight: Tensor | None,
                                   gg_bias: Tensor | None) -> tuple:
    """The derivative of dx = s P(ĝ), dγ = Σ δ x̂, dβ = Σ δ (ĝ = γδ, means over ``axes``) for gradients
    ε = ``gg``, a = ``gg_weight``, b = ``gg_bias`` (already shaped to broadcast against x):

        d/dδ = γ s P(ε) + a x̂ + b,     d/dγ = δ s P(ε) (summed by the caller),
        d/dx = s P(aδ) − s² [mean(ε P(ĝ)) x̂ + mean(ĝ x̂) P(ε) + mean(ε x̂) P(ĝ)],

    the chain rule through x̂ = (x − μ)s, whose Jacobian is s P (symmetric), and ds/dx = −s² x̂ / N.
    Returns (d/dδ, d/dx, d/dγ before the sum); None where nothing flows.
    """

    def mean(v: Tensor) -> Tensor:
        return v.mean(axes, keepdim=True)

    def project(v: Tensor) -> Tensor:  # P(v)
        return v - mean(v) - x_hat * mean(x_hat * v)

    grad_grad = grad_input = grad_weight = None
    if gg is not None:
        g_hat = grad if weight is None else grad * weight
        p_gg, p_g_hat = project(gg), project(g_hat)
        grad_grad = inv_std * p_gg if weight is None else weight * inv_std * p_gg
        grad_input = -inv_std * inv_std * (mean(gg * p_g_hat) * x_hat + mean(g_hat * x_hat) * p_gg
                                           + mean(gg * x_hat) * p_g_hat)
        if weight is not None:
            grad_weight = grad * inv_std * p_gg
    if gg_weight is not None:
        from_weight = inv_std * project(gg_weight * grad)
        grad_input = from_weight if grad_input is None else grad_input + from_weight
        grad_grad = gg_weight * x_hat if grad_grad is None else grad_grad + gg_weight * x_hat
    if gg_bias is not None:
        grad_grad = gg_bias.expand(grad.shape) if grad_grad is None else grad_grad + gg_bias
    return grad_grad, grad_input, grad_weight


def _eval_double_backward(gg: Tensor | None, grad: Tensor, inv_std: Tensor, x_hat: Tensor,
                          weight: Tensor | None, gg_weight: Tensor | None, gg_bias: Tensor | None) -> tuple:
    """The derivative of dx = γ s δ, dγ = Σ δ x̂, dβ = Σ δ with fixed statistics (s and μ constants):
    d/dδ = γ s ε + a x̂ + b,   d/dγ = δ s ε (summed by the caller),   d/dx = s a δ."""
    grad_grad = grad_input = grad_weight = None
    if gg is not None:
        grad_grad = inv_std * gg if weight is None else weight * inv_std * gg
        if weight is not None:
            grad_weight = grad * inv_std * gg
    if gg_weight is not None:
        grad_input = inv_std * gg_weight * grad
        grad_grad = gg_weight * x_hat if grad_grad is None else grad_grad + gg_weight * x_hat
    if gg_bias is not None:
        grad_grad = gg_bias.expand(grad.shape) if grad_grad is None else grad_grad + gg_bias
    return grad_grad, grad_input, grad_weight


def _update_running_stats(running_mean: Tensor, running_var: Tensor, mean: Any, var: Any, count: int,
                          momentum: float) -> None:
    """r ← (1 − m) r + m · batch statistic, in place; the variance stored is the unbiased one."""
    unbiased = var * (count / max(count - 1, 1))
    running_mean.mul_(1 - momentum).add_(Tensor(mean), alpha=momentum)
    running_var.mul_(1 - momentum).add_(Tensor(unbiased), alpha=momentum)


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """``F.batch_norm`` for input (N, C, *): normalise each channel, then scale by γ and shift by β.

    In training, the running estimates (if given) are updated in place with ``momentum``.
    """
    checks.check_batch_norm(input, running_mean, running_var, weight, bias, training)
    if input.numel() == 0:
        return _empty_batch_norm(input, weight, bias)
    return BatchNorm.apply(input, weight, bias, running_mean, running_var, bool(training), momentum, eps)


def _empty_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """An empty batch, as PyTorch treats it: an empty output (γ and β get zero gradients), no statistics
    taken and the running estimates left alone."""
    per_channel = (1, input.shape[1]) + (1,) * (input.ndim - 2)
    out = input * weight.reshape(per_channel) if weight is not None else input.clone()
    return out + bias.reshape(per_channel) if bias is not None else out


# --- layer normalisation: statistics per sample, over the trailing normalized_shape axes -----------

class LayerNorm(Function):
    """x̂ = (x − μ) / √(σ² + ε) with μ, σ² the mean and biased variance of each sample's last D axes
    (D = len(normalized_shape)), y = γ x̂ + β (γ, β of shape normalized_shape);

        dβ = Σ_samples dy,   dγ = Σ_samples dy ⊙ x̂,
        dx = 1/√(σ² + ε) · (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂)),   ĝ = γ ⊙ dy, means over the D axes.
    """

    node_name = "NativeLayerNormBackward0"
    graph_inputs = (0, 2, 3)  # input, weight, bias, as PyTorch

    @staticmethod
    def forward(ctx, input, normalized_ndim, weight, bias, eps):
        xp = get_array_module(input)
        x = input.array
        axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
        mean = x.mean(axis=axes, keepdims=True)
        centred = x - mean
        inv_std = 1.0 / xp.sqrt((centred * centred).mean(axis=axes, keepdims=True) + eps)
        normalized = centred * inv_std
        out = normalized * weight.array if weight is not None else normalized
        if bias is not None:
            out += bias.array
        ctx.statistics = (axes, mean, inv_std, eps)
        ctx.save_for_backward(input, weight)
        return Tensor(out.astype(x.dtype, copy=False))  # float32 parameters keep a float16 input's dtype

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        needed = ctx.needs_input_grad
        grad_input, grad_weight, grad_bias = LayerNormBackward.apply(grad, x, weight, *ctx.statistics,
                                                                     (needed[0], needed[2], needed[3]))
        return grad_input, None, grad_weight, grad_bias, None


class LayerNormBackward(Function):
    """(dx, dγ, dβ) of :class:`LayerNorm` as a function of δ = dy, x and γ. Its own derivative is batch
    norm's in training (:func:`_normalization_double_backward`) with the statistics per sample and γ,
    dγ, dβ over the normalized axes:  for gradients ε, a, b of dx, dγ, dβ,

        d/dδ = γ s P(ε) + a x̂ + b,   d/dγ = Σ_samples δ s P(ε),
        d/dx = s P(aδ) − s² [mean(ε P(ĝ)) x̂ + mean(ĝ x̂) P(ε) + mean(ε x̂) P(ĝ)].
    """

    node_name = "NativeLayerNormBackwardBackward0"
    graph_inputs = (0, 1, 2)  # grad_output, input, weight

    @staticmethod
    def forward(ctx, grad_output, input, weight, axes, mean, inv_std, eps, needed):
        g = grad_output.array
        x_hat = (input.array - mean) * inv_std                           # as the forward computed it
        sample_axes = tuple(range(g.ndim - len(axes)))                   # the batch axes, summed for γ, β
        grad_input = None
        if needed[0]:
            g_hat = g * weight.array if weight is not None else g
            grad_input = Tensor(inv_std * (g_hat - g_hat.mean(axis=axes, keepdims=True)
                                           - x_hat * (g_hat * x_hat).mean(axis=axes, keepdims=True)))
        grad_weight = Tensor((g * x_hat).sum(axis=sample_axes)) if needed[1] else None
        grad_bias = Tensor(g.sum(axis=sample_axes)) if needed[2] else None
        ctx.axes, ctx.eps = axes, eps
        ctx.save_for_backward(grad_output, input, weight)
        ctx.set_materialize_grads(False)
        return grad_input, grad_weight, grad_bias

    @staticmethod
    def backward(ctx, gg_input, gg_weight, gg_bias):
        grad, x, weight = ctx.saved_tensors
        inv_std, x_hat = _standardized(x, ctx.axes, ctx.eps)
        grad_grad, grad_input, grad_weight = _normalization_double_backward(
            gg_input, grad, inv_std, x_hat, ctx.axes, weight, gg_weight, gg_bias)
        if grad_weight is not None:
            grad_weight = grad_weight.sum(tuple(range(grad.ndim - len(ctx.axes))))
        return grad_grad, grad_input, grad_weight, None, None, None, None, None


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """``F.layer_norm``: normalise each sample over its last ``len(normalized_shape)`` axes, then γ·x̂ + β."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if len(shape) == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
                           "least one element, but got normalized_shape = []")
    if tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None and tuple(value.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                               f"shape {list(value.shape)} and normalized_shape = {list(shape)}")
    if not input.dtype.is_floating_point:
        raise not_implemented_for("LayerNormKernelImpl", input)
    _check_parameter_dtypes(input, weight, bias)
    return LayerNorm.apply(input, len(shape), weight, bias, eps)


def _check_parameter_dtypes(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> None:  # noqa: A002
    """PyTorch's CPU kernel takes parameters of the input's dtype, or float32 ones for a float16 input."""
    parameters = [p for p in (weight, bias) if p is not None]
    if all(p.dtype is input.dtype for p in parameters):
        return
    if input.dtype is _dtypes.float16 and all(p.dtype is _dtypes.float32 for p in parameters):
        return
    given = (("weight", weight), ("bias", bias))
    found = ", ".join(f"{name} {p.dtype.name}" for name, p in given if p is not None)
    raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of "
                       f"{TORCH_TYPE_NAMES[input.dtype.name]} (the input's {input.dtype.name}), "
                       f"but got {found}")
