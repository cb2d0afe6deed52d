"""The affine map of ``nn.Linear`` as one Function: y = x Wᵀ + b.

For x of shape (*, in), W (out, in) and b (out):

    dx = dy W,     dW = dyᵀ x  (summed over every leading dimension of x),     db = Σ dy

One node instead of three (transpose, matmul, add) keeps the graph of an MLP short.
"""

# ruff: noqa: A001, A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from minigrad.autograd.function import Function
from minigrad.ops._util import wrap, xp_of
from minigrad.tensor import Tensor


class Linear(Function):
    """y = x Wᵀ + b;   dx = dy W,  dW = dyᵀ x,  db = Σ dy over the leading dimensions."""

    @staticmethod
    def forward(ctx, input, weight, bias):
        xp = xp_of(input)
        out = xp.matmul(input.array, weight.array.T)
        if bias is not None:
            out += bias.array                           # `out` is a fresh array: add in place
        ctx.save_for_backward(input, weight)
        return wrap(out)

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        xp = xp_of(grad)
        g = grad.array
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = wrap(xp.matmul(g, weight.array))
        if ctx.needs_input_grad[1]:
            rows_g = g.reshape(-1, g.shape[-1])                    # (M, out): all leading dims as rows
            rows_x = input.array.reshape(-1, input.shape[-1])     # (M, in)
            grad_weight = wrap(xp.matmul(rows_g.T, rows_x))
        if ctx.needs_input_grad[2]:
            grad_bias = grad                                       # the engine sums it to b's shape
        return grad_input, grad_weight, grad_bias


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``F.linear``: y = input @ weight.T + bias, for input (*, in), weight (out, in), bias (out)."""
    if input.ndim == 0 or weight.ndim != 2:
        raise RuntimeError(f"linear: expected an input of at least 1 dimension and a 2-D weight, but got "
                           f"input of shape {list(input.shape)} and weight of shape {list(weight.shape)}")
    if input.shape[-1] != weight.shape[1]:
        rows = input.numel() // max(input.shape[-1], 1) if input.ndim > 1 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and "
                           f"{weight.shape[1]}x{weight.shape[0]}): the input of shape {list(input.shape)} "
                           f"has {input.shape[-1]} features but the weight of shape {list(weight.shape)} "
                           f"expects {weight.shape[1]} (in_features)")
    for name, other in (("weight", weight), ("bias", bias)):
        if other is not None and other.dtype is not input.dtype:
            raise RuntimeError(f"linear: expected input and {name} to have the same dtype, but got input of "
                               f"dtype {input.dtype.name} and {name} of dtype {other.dtype.name}")
    if bias is not None:
        _check_bias_expands(bias, input.shape, weight.shape[0])
    return Linear.apply(input, weight, bias)


def _check_bias_expands(bias: Tensor, input_shape: tuple, out_features: int) -> None:
    """The bias is added to the output, so it must expand to the output's shape (*, out_features)."""
    target = tuple(input_shape[:-1]) + (out_features,)
    if bias.ndim > len(target):
        raise RuntimeError(f"expand(bias of shape {list(bias.shape)}, size={list(target)}): the number of "
                           f"sizes provided ({len(target)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({bias.ndim}) (the bias must expand to the output)")
    lead = len(target) - bias.ndim
    for i in reversed(range(bias.ndim)):
        if bias.shape[i] not in (1, target[lead + i]):
            raise RuntimeError(f"The expanded size of the tensor ({target[lead + i]}) must match the "
                               f"existing size ({bias.shape[i]}) at non-singleton dimension {lead + i}.  "
                               f"Target sizes: {list(target)}.  Tensor sizes: {list(bias.shape)} (linear's "
                               f"bias must expand to its output)")
