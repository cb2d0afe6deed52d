"""Linear and Conv2d written as your own autograd Functions, PyTorch style, and checked.

    python examples/custom_function.py

This is the pattern of PyTorch's "Extending PyTorch" guide, unchanged but for the import:
``forward`` computes the output and saves what ``backward`` needs on ``ctx``; ``backward``
receives dL/d(output) and returns one gradient per ``forward`` argument (None for those that
need none, which ``ctx.needs_input_grad`` tells). The convolution's backward is the two halves
that ``nn.grad`` offers:

    dL/dx = conv2d_input(x.shape, W, δ)   (δ correlated with the flipped kernel)
    dL/dW = conv2d_weight(x, W.shape, δ)  (x correlated with δ)
    dL/db = Σ_{n,h,w} δ

Each Function is checked by ``gradcheck`` (finite differences, in float64), against the built-in
``F.linear`` / ``F.conv2d`` (same output, same gradients), and by ``gradgradcheck``: because
both backwards are written in tensor operations, ``create_graph=True`` records them, and their
second derivatives come for free.
"""

from __future__ import annotations

import sys
from typing import Any

import minigrad as torch
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import Function, gradcheck, gradgradcheck


class LinearFunction(Function):
    """y = x Wᵀ + b for x (N, in), W (out, in), b (out,)."""

    @staticmethod
    def forward(ctx, input, weight, bias=None):  # noqa: A002 (PyTorch's name)
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors  # noqa: A001
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)          # (N, out) (out, in) -> (N, in)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)      # (out, N) (N, in) -> (out, in)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class Conv2dFunction(Function):
    """y = x ⋆ W + b for x (N, C_in, H, W), W (C_out, C_in/groups, kh, kw), b (C_out,)."""

    @staticmethod
    def forward(ctx, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
        ctx.save_for_backward(input, weight, bias)
        ctx.conv_args = (stride, padding, dilation, groups)  # plain values go on ctx as attributes
        return F.conv2d(input, weight, bias, stride, padding, dilation, groups)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors  # noqa: A001
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = nn.grad.conv2d_input(input.shape, weight, grad_output, *ctx.conv_args)
        if ctx.needs_input_grad[1]:
            grad_weight = nn.grad.conv2d_weight(input, weight.shape, grad_output, *ctx.conv_args)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum((0, 2, 3))
        # One gradient per forward argument: none for stride, padding, dilation, groups.
        return grad_input, grad_weight, grad_bias, None, None, None, None


class MyLinear(nn.Linear):
    """nn.Linear, computed by LinearFunction: same parameters, same initialisation."""

    def forward(self, input):  # noqa: A002
        return LinearFunction.apply(input, self.weight, self.bias)


class MyConv2d(nn.Conv2d):
    """nn.Conv2d, computed by Conv2dFunction."""

    def forward(self, input):  # noqa: A002
        return Conv2dFunction.apply(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                                    self.groups)


def compare_with_builtin(mine: Any, builtin: Any, inputs: tuple, extra: tuple = ()) -> float:
    """Largest difference between the two functions' outputs and gradients (of a random weighting)."""
    results = []
    for fn in (mine, builtin):
        leaves = [x.detach().requires_grad_() for x in inputs]
        out = fn(*leaves, *extra)
        weighting = torch.randn(out.shape, dtype=out.dtype, generator=torch.Generator().manual_seed(1))
        (out * weighting).sum().backward()
        results.append([out.detach()] + [x.grad for x in leaves])
    return max((a - b).abs().max().item() for a, b in zip(*results))


def check(name: str, passed: bool, detail: str = "") -> bool:
    print(f"{'ok  ' if passed else 'FAIL'} {name}{': ' + detail if detail else ''}")
    return passed


def gradient(parameter: nn.Parameter) -> torch.Tensor:
    """A parameter's ``.grad``, which ``backward()`` fills (``None`` before it ran)."""
    if parameter.grad is None:
        raise RuntimeError("backward() left a parameter without a gradient")
    return parameter.grad


def main() -> int:
    torch.manual_seed(0)
    double: dict[str, Any] = {"dtype": torch.float64, "requires_grad": True}
    results = []

    x, w, b = torch.randn(5, 4, **double), torch.randn(3, 4, **double), torch.randn(3, **double)
    results.append(check("LinearFunction: gradcheck", gradcheck(LinearFunction.apply, (x, w, b))))
    results.append(check("LinearFunction: gradgradcheck", gradgradcheck(LinearFunction.apply, (x, w, b))))
    difference = compare_with_builtin(LinearFunction.apply, F.linear, (x, w, b))
    results.append(check("LinearFunction vs F.linear", difference < 1e-12,
                         f"max difference {difference:.1e}"))

    # (stride, padding, dilation, groups): plain, strided and padded, dilated and grouped.
    for settings in [(1, 0, 1, 1), (2, 1, 1, 1), (1, 2, 2, 2)]:
        x, w, b = torch.randn(2, 4, 7, 6, **double), torch.randn(6, 4 // settings[3], 3, 3, **double), \
            torch.randn(6, **double)
        name = "Conv2dFunction (stride {}, padding {}, dilation {}, groups {})".format(*settings)
        results.append(check(f"{name}: gradcheck", gradcheck(Conv2dFunction.apply, (x, w, b, *settings))))
        results.append(check(f"{name}: gradgradcheck",
                             gradgradcheck(Conv2dFunction.apply, (x, w, b, *settings))))
        difference = compare_with_builtin(Conv2dFunction.apply, F.conv2d, (x, w, b), settings)
        results.append(check(f"{name} vs F.conv2d", difference < 1e-12, f"max difference {difference:.1e}"))

    # The user's layers drop into a model: gradients match the built-in layers' with the same weights.
    mine = nn.Sequential(MyConv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), MyLinear(4 * 8 * 8, 10))
    builtin = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 8 * 8, 10))
    builtin.load_state_dict(mine.state_dict())
    images, labels = torch.randn(8, 1, 8, 8), torch.randint(0, 10, (8,))
    for model in (mine, builtin):
        F.cross_entropy(model(images), labels).backward()
    difference = max((gradient(p) - gradient(q)).abs().max().item()
                     for p, q in zip(mine.parameters(), builtin.parameters()))
    results.append(check("a model of MyConv2d + MyLinear vs nn.Conv2d + nn.Linear", difference < 1e-5,
                         f"max gradient difference {difference:.1e} (float32)"))

    print("all checks passed" if all(results) else "SOME CHECKS FAILED")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
