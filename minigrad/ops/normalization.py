"""Batch normalisation as one Function with the closed-form gradient.

Statistics are taken per channel (axis 1) over every other axis, N·H·W values each:

    training:   μ, σ² = mean and biased variance of the batch,   x̂ = (x − μ) / √(σ² + ε)
    evaluation: μ, σ² = the running estimates
    y = γ x̂ + β

    dβ = Σ dy,    dγ = Σ dy ⊙ x̂,
    dx = γ / √(σ² + ε) · (dy − mean(dy) − x̂ · mean(dy ⊙ x̂))     (training: μ, σ² depend on x)
    dx = γ / √(σ² + ε) · dy                                        (evaluation: they do not)

The training formula is the chain rule through μ and σ² done once on paper, so the
backward is three reductions and one elementwise expression instead of a dozen nodes.
"""

# ruff: noqa: A001, A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from typing import Any

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._checks import normalization as checks
from minigrad.ops._util import not_implemented_for
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
            mean = x.mean(axis=axes)
            centred = x - mean.reshape(shape)
            var = (centred * centred).mean(axis=axes)                  # biased: used to normalise
            if running_mean is not None:
                _update_running_stats(running_mean, running_var, mean, var, x.size // x.shape[1], momentum)
        else:
            centred = x - running_mean.array.reshape(shape).astype(x.dtype, copy=False)
            var = running_var.array.astype(x.dtype, copy=False)
        inv_std = 1.0 / xp.sqrt(var + eps)
        normalized = centred * inv_std.reshape(shape)
        out = normalized * weight.array.reshape(shape) if weight is not None else normalized.copy()
        if bias is not None:
            out += bias.array.reshape(shape)
        ctx.training, ctx.inv_std = training, inv_std
        ctx.save_for_backward(Tensor(normalized), weight)
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        normalized, weight = ctx.saved_tensors
        g, x_hat = grad.array, normalized.array
        axes, shape = _channel_layout(g)
        sum_g = g.sum(axis=axes)                                        # = dβ
        sum_g_xhat = (g * x_hat).sum(axis=axes)                         # = dγ
        grad_input = None
        if ctx.needs_input_grad[0]:
            scale = ctx.inv_std if weight is None else weight.array * ctx.inv_std
            if ctx.training:
                count = g.size // g.shape[1]
                g = g - (sum_g / count).reshape(shape) - x_hat * (sum_g_xhat / count).reshape(shape)
            grad_input = Tensor(g * scale.reshape(shape))
        grad_weight = Tensor(sum_g_xhat) if ctx.needs_input_grad[1] else None
        grad_bias = Tensor(sum_g) if ctx.needs_input_grad[2] else None
        return grad_input, grad_weight, grad_bias, None, None, None, None, None


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
        centred = x - x.mean(axis=axes, keepdims=True)
        inv_std = 1.0 / xp.sqrt((centred * centred).mean(axis=axes, keepdims=True) + eps)
        normalized = centred * inv_std
        out = normalized * weight.array if weight is not None else normalized.copy()
        if bias is not None:
            out += bias.array
        ctx.axes, ctx.inv_std = axes, inv_std
        ctx.save_for_backward(Tensor(normalized), weight)
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        normalized, weight = ctx.saved_tensors
        g, x_hat = grad.array, normalized.array
        sample_axes = tuple(range(g.ndim - len(ctx.axes)))               # the batch axes, summed for γ, β
        grad_input = None
        if ctx.needs_input_grad[0]:
            g_hat = g * weight.array if weight is not None else g
            grad_input = Tensor(ctx.inv_std * (g_hat - g_hat.mean(axis=ctx.axes, keepdims=True)
                                             - x_hat * (g_hat * x_hat).mean(axis=ctx.axes, keepdims=True)))
        grad_weight = Tensor((g * x_hat).sum(axis=sample_axes)) if ctx.needs_input_grad[2] else None
        grad_bias = Tensor(g.sum(axis=sample_axes)) if ctx.needs_input_grad[3] else None
        return grad_input, None, grad_weight, grad_bias, None


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
    return LayerNorm.apply(input, len(shape), weight, bias, eps)
