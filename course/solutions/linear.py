"""Exercise 2 — the ``Linear`` Function: y = x Wᵀ + b.

Shapes: ``x`` is (N, in) — or (*, in) with any leading dimensions —, ``W`` is
(out, in), ``b`` is (out,), ``y`` is (N, out). ``backward`` receives ``grad`` = ∂L/∂y,
of y's shape, and returns one gradient per input of ``forward``:

* ``grad_input``  = ∂L/∂x = grad · W            (N, out)·(out, in) → (N, in)
* ``grad_weight`` = ∂L/∂W = gradᵀ · x           (out, N)·(N, in)  → (out, in)
* ``grad_bias``   = ∂L/∂b = Σ_n grad[n]          summed over the batch → (out,)

With leading dimensions (B, T, in), treat every leading position as one more row:
reshape to (B·T, in) and (B·T, out) first. Return None for an input that needs no
gradient (``ctx.needs_input_grad[i]`` is False, e.g. no bias).
Hint: each gradient has the shape of what it differentiates; let the shapes tell you
which factor to transpose.
"""

from __future__ import annotations

from minigrad.autograd import Function
from minigrad.backend import get_array_module
from minigrad.tensor import Tensor


class LinearFunction(Function):
    """y = x Wᵀ + b;   ∂L/∂x = grad·W,  ∂L/∂W = gradᵀ·x,  ∂L/∂b = Σ grad over the batch."""

    @staticmethod
    def forward(ctx, x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
        ctx.save_for_backward(x, weight)
        y = x.array @ weight.array.T
        if bias is not None:
            y = y + bias.array
        return Tensor(y)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, weight = ctx.saved_tensors
        xp = get_array_module(grad.array)
        g = grad.array.reshape(-1, grad.shape[-1])        # (M, out): every leading position is a row
        rows = x.array.reshape(-1, x.shape[-1])           # (M, in)
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            # BEGIN SOLUTION: grad_input: (M, out)·(out, in), reshaped to x's shape
            grad_input = Tensor(xp.matmul(g, weight.array).reshape(x.shape))
            # END SOLUTION
        if ctx.needs_input_grad[1]:
            # BEGIN SOLUTION: grad_weight, shape (out, in): from g (M, out) and rows (M, in)
            grad_weight = Tensor(xp.matmul(g.T, rows))
            # END SOLUTION
        if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
            # BEGIN SOLUTION: grad_bias, shape (out,): every row of g used b
            grad_bias = Tensor(g.sum(axis=0))
            # END SOLUTION
        return grad_input, grad_weight, grad_bias


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``F.linear`` through your Function (used by the capstone)."""
    return LinearFunction.apply(x, weight, bias)
