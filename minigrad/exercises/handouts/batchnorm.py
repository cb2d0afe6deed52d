"""Exercise 7 — BatchNorm backward in one fused expression (Karpathy's "backprop ninja").

Training-mode batch normalisation of x (N, C) or (N, C, H, W), per channel c, over the
M = N·H·W values of that channel (the batch statistics; the variance is the *biased* one,
as PyTorch uses in the forward):

    μ = mean(x),  σ² = mean((x − μ)²),  x̂ = (x − μ) / √(σ² + ε),  y = γ·x̂ + β

``batchnorm_steps`` (given) computes exactly this in ten small steps with minigrad's
own operations, so autograd can backpropagate through every step; the grader compares
your single expression with it. Derive, with g = ∂L/∂y and sums over a channel's values:

* ``grad_beta``  = Σ g                                               (C,)
* ``grad_gamma`` = Σ g · x̂                                           (C,)
* ``grad_x``     = γ / (M·√(σ² + ε)) · (M·g − Σ g − x̂ · Σ g·x̂)        x's shape

The last is the exercise: μ and σ² depend on every x, so ∂L/∂x collects three paths
(through x̂ directly, through μ and through σ²). Simplify them by hand into this one line.
Hint: ``axes`` lists the dimensions to sum over; ``keepdims=True`` keeps the sums
broadcastable against x.
"""

from __future__ import annotations

from minigrad.autograd import Function
from minigrad.backend import get_array_module
from minigrad.tensor import Tensor


def _axes_and_shape(x: Tensor) -> tuple:
    """The dimensions a channel's values span (all but 1), and γ's shape for broadcasting."""
    return (0,) + tuple(range(2, x.ndim)), (1, x.shape[1]) + (1,) * (x.ndim - 2)


def batchnorm_steps(x: Tensor, gamma: Tensor, beta: Tensor, eps: float = 1e-5) -> Tensor:
    """The forward in small steps, each a minigrad operation (autograd differentiates them one by one)."""
    axes, shape = _axes_and_shape(x)
    count = x.numel() // x.shape[1]
    mean = x.sum(dim=axes, keepdim=True) / count
    diff = x - mean
    squared = diff ** 2
    var = squared.sum(dim=axes, keepdim=True) / count   # biased: divide by M, not M - 1
    inv_std = (var + eps) ** -0.5
    x_hat = diff * inv_std
    return gamma.reshape(shape) * x_hat + beta.reshape(shape)


class BatchNormFunction(Function):
    """y = γ·x̂ + β;  ∂L/∂x = γ/(M·σ)·(M·g − Σg − x̂·Σ(g·x̂)),  ∂L/∂γ = Σ g·x̂,  ∂L/∂β = Σ g."""

    @staticmethod
    def forward(ctx, x: Tensor, gamma: Tensor, beta: Tensor, eps: float = 1e-5) -> Tensor:
        xp = get_array_module(x.array)
        axes, shape = _axes_and_shape(x)
        mean = x.array.mean(axis=axes, keepdims=True)
        var = ((x.array - mean) ** 2).mean(axis=axes, keepdims=True)
        inv_std = 1.0 / xp.sqrt(var + eps)
        x_hat = (x.array - mean) * inv_std
        ctx.x_hat, ctx.inv_std, ctx.axes, ctx.shape = x_hat, inv_std, axes, shape
        ctx.save_for_backward(gamma)
        return Tensor(gamma.array.reshape(shape) * x_hat + beta.array.reshape(shape))

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (gamma,) = ctx.saved_tensors
        g, x_hat, inv_std, axes = grad.array, ctx.x_hat, ctx.inv_std, ctx.axes
        m = g.size // g.shape[1]                      # M: the values per channel
        grad_x = grad_gamma = grad_beta = None
        if ctx.needs_input_grad[1] or ctx.needs_input_grad[2]:
            raise NotImplementedError('grad_beta, grad_gamma (C,): sums of g and g·x̂ over axes')
        if ctx.needs_input_grad[0]:
            raise NotImplementedError('grad_x: the one-line formula; sums with keepdims, γ in ctx.shape')
        return grad_x, grad_gamma, grad_beta, None
