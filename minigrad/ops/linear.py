"""``F.linear``, the affine map of ``nn.Linear``: y = x Wᵀ + b.

For a batch of rows x (N, in), a weight W (out, in) and a bias b (out), with δ = dL/dy (N, out):

    dx = δ W,     dW = δᵀ x,     db = Σₙ δ

The graph shows PyTorch's nodes, which build ``linear`` as ``addmm(b, x, W.t())``: the node is
``AddmmBackward0`` (``MmBackward0`` without a bias), its edges run to b, x and a ``TBackward0``
node before W. Other shapes of x are flattened to rows and back, with PyTorch's view nodes.
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from minigrad.autograd.function import Function
from minigrad.ops._checks import linear as checks
from minigrad.ops._util import product
from minigrad.ops.matmul import Mm
from minigrad.ops.shape import SqueezeDim_, UnsafeView, reshape_to, reshaped, t, unsqueeze
from minigrad.performance import parallel
from minigrad.tensor import Tensor


class Linear(Function):
    """y = x Wᵀ + b;   dx = δ W,  dW = δᵀ x,  db = Σₙ δ   (x (N, in), W (out, in), b (out)).

    It receives ``weight_t`` = Wᵀ, the ``t()`` view of W, as PyTorch's ``addmm`` does: the gradient
    it returns for that edge is dWᵀ, which the ``TBackward0`` node before W turns back into dW.
    """

    node_name = "AddmmBackward0"
    graph_inputs: tuple[int, ...] = (2, 0, 1)  # PyTorch's edges: b, x, Wᵀ

    @staticmethod
    def forward(ctx, x, weight_t, bias):
        ctx.save_for_backward(x, weight_t)
        ctx.bias_is_vector = bias is not None and bias.ndim == 1
        y = parallel.matmul(x.array, weight_t.array)    # x Wᵀ: a new array, so b is added in place
        if bias is not None:
            y += bias.array
        return Tensor(y)

    @staticmethod
    def backward(ctx, grad):
        x, weight_t = ctx.saved_tensors
        grad_x = grad_weight_t = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_x = Mm.apply(grad, t(weight_t))               # dx = δ W
        if ctx.needs_input_grad[1]:
            grad_weight_t = t(Mm.apply(t(grad), x))            # dW = δᵀ x, sent as dWᵀ
        if ctx.needs_input_grad[2]:
            # db = Σₙ δ (a bias of another shape broadcast: the engine sums δ back to it)
            grad_bias = grad.sum(0) if ctx.bias_is_vector else grad
        return grad_x, grad_weight_t, grad_bias


class LinearWithoutBias(Linear):
    """y = x Wᵀ, PyTorch's ``mm(x, W.t())``."""

    node_name = "MmBackward0"
    graph_inputs = (0, 1)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``F.linear``: y = input @ weight.T + bias, for input (*, in), weight (out, in), bias (out)."""
    checks.check_linear(input, weight, bias)
    op = Linear if bias is not None else LinearWithoutBias
    if input.ndim == 2:
        return op.apply(input, t(weight), bias)
    if input.ndim == 1 and bias is None:  # PyTorch: a row, its product, the row squeezed out in place
        row = op.apply(unsqueeze(input, 0), t(weight), None)
        return reshaped(row, (weight.shape[0],), SqueezeDim_)
    rows = reshape_to(input, (product(input.shape[:-1]), input.shape[-1]))
    out_shape = tuple(input.shape[:-1]) + (weight.shape[0],)
    y = op.apply(rows, t(weight), bias)
    return reshape_to(y, out_shape) if bias is not None else reshaped(y, out_shape, UnsafeView)
