"""A user's custom autograd Function, written for PyTorch exactly as its documentation teaches.

The tests read this file's text and run it twice: as it is (real PyTorch) and with only the
imports changed to ``import minigrad as torch`` / ``from minigrad.autograd import Function``.
It is not imported as a module.
"""

import torch
from torch.autograd import Function


class LinearFunction(Function):
    """output = input @ weight.T + bias."""

    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


def linear(input, weight, bias=None):
    return LinearFunction.apply(input, weight, bias)


def make_inputs(seed):
    """What a user's script does: seeded random inputs, float64 for gradcheck."""
    torch.manual_seed(seed)
    input = torch.randn(5, 4, dtype=torch.double, requires_grad=True)
    weight = torch.randn(3, 4, dtype=torch.double, requires_grad=True)
    bias = torch.randn(3, dtype=torch.double, requires_grad=True)
    return input, weight, bias
