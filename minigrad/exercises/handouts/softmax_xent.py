"""Exercise 3 — softmax and cross-entropy backward, step by step and fused.

Logits ``z`` (N, C), integer targets ``t`` (N,), loss = mean over the batch of −log pₙ,tₙ
where p = softmax(z) row by row. ``grad`` is always ∂L/∂(the Function's output).

Step by step (three Functions, chained in ``cross_entropy_steps``):

* ``Softmax``: p = exp(z − max z) / Σ exp(z − max z) per row. Its Jacobian is
  diag(p) − p pᵀ, so the vector-Jacobian product is  ∂L/∂z = p ⊙ (g − Σ_c g_c p_c)
  (the sum is per row, keep its dimension to broadcast).
* ``log``: minigrad's own ``Tensor.log`` (∂ log p / ∂p = 1/p).
* ``NLLLoss`` on log-probabilities ℓ (N, C): L = −(1/N) Σ_n ℓ[n, tₙ]. Its gradient is
  zero everywhere except −grad/N at each row's target column.

Fused (``CrossEntropy``): the chain simplifies to  ∂L/∂z = grad · (p − onehot(t)) / N.
It is also numerically safer: no 1/p for a probability that rounds to 0.
Hint: ``xp.arange(N)`` and the targets index one element per row.
"""

from __future__ import annotations

from minigrad.autograd import Function
from minigrad.backend import get_array_module
from minigrad.tensor import Tensor


def softmax_array(z):  # noqa: ANN001, ANN201 (an array in, an array out)
    """Row-wise softmax of an array; subtracting the row's max avoids overflow and changes nothing."""
    xp = get_array_module(z)
    e = xp.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class Softmax(Function):
    """p = softmax(z) along dim 1;   ∂L/∂z = p ⊙ (g − Σ_c g_c p_c)."""

    @staticmethod
    def forward(ctx, z: Tensor) -> Tensor:
        p = Tensor(softmax_array(z.array))
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (p,) = ctx.saved_tensors
        g, p = grad.array, p.array
        raise NotImplementedError('grad_z: ∂L/∂z = p ⊙ (g − Σ_c g_c p_c), the sum per row (keepdims)')
        return Tensor(grad_z)


class NLLLoss(Function):
    """L = −(1/N) Σ_n logp[n, tₙ];   ∂L/∂logp[n, c] = −grad/N where c = tₙ, else 0."""

    @staticmethod
    def forward(ctx, logp: Tensor, target: Tensor) -> Tensor:
        xp = get_array_module(logp.array)
        n = logp.shape[0]
        ctx.save_for_backward(target)
        ctx.shape = logp.shape
        return Tensor(-logp.array[xp.arange(n), target.array].mean())

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        (target,) = ctx.saved_tensors
        xp = get_array_module(grad.array)
        n = ctx.shape[0]
        raise NotImplementedError("grad_logp: zeros of logp's shape with −grad/N at each row's target column")
        return Tensor(grad_logp), None


class CrossEntropy(Function):
    """L = mean_n −log softmax(z)[n, tₙ];   ∂L/∂z = grad · (softmax(z) − onehot(t)) / N."""

    @staticmethod
    def forward(ctx, z: Tensor, target: Tensor) -> Tensor:
        xp = get_array_module(z.array)
        n = z.shape[0]
        shifted = z.array - z.array.max(axis=1, keepdims=True)
        logp = shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))
        ctx.save_for_backward(z, target)
        return Tensor(-logp[xp.arange(n), target.array].mean())

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        z, target = ctx.saved_tensors
        xp = get_array_module(grad.array)
        n = z.shape[0]
        raise NotImplementedError('grad_z: (softmax(z) − onehot(t)) · grad / N, one subtraction at [row, target]')
        return Tensor(grad_z), None


def cross_entropy_steps(z: Tensor, target: Tensor) -> Tensor:
    """The step-by-step cross-entropy: your Softmax, minigrad's log, your NLLLoss."""
    return NLLLoss.apply(Softmax.apply(z).log(), target)


def cross_entropy(z: Tensor, target: Tensor) -> Tensor:
    """``F.cross_entropy`` (mean reduction) through your fused Function (used by the capstone)."""
    return CrossEntropy.apply(z, target)
