"""Conv2d as autograd Functions, and the public ``conv2d``, ``conv2d_input``, ``conv2d_weight``.

The Functions pick the algorithm module (see ``algorithms.py``) and call its array
functions; the mathematics lives in ``algo_*.py`` (``algo_im2col.py`` first), PyTorch's
argument checks in ``_checks.py``:

    forward:   y = x ⋆ W + b                       (algorithm.forward)
    backward:  dx = algorithm.grad_input(δ, W),  dW = algorithm.grad_weight(x, δ),  db = Σ_{n,h,w} δ

``conv2d_input`` and ``conv2d_weight`` (PyTorch's ``torch.nn.grad``) expose the two
halves of the backward on their own; they are differentiable too, because each is
linear in both of its tensors and its adjoints are the other two conv maps.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

from minigrad.autograd.function import Function
from minigrad.ops.conv._checks import (
    check_conv,
    check_conv2d_input,
    check_conv2d_weight,
    check_kernel,
    check_weight,
    conv2d_settings,
    conv_pair,
)
from minigrad.ops.conv.algorithms import algorithm_module, resolve_algorithm
from minigrad.ops.conv.geometry import Pair
from minigrad.ops.shape import pad
from minigrad.tensor import Tensor

__all__ = ["Conv2dFunction", "Conv2dInputFunction", "Conv2dWeightFunction", "conv2d", "conv2d_input",
           "conv2d_weight"]


def _choose_algorithm(ctx: Any, name: str | None, weight_shape: tuple, settings: tuple) -> ModuleType:
    """Decide, when the forward runs, the algorithm module this call and its backward use (kept on ctx)."""
    ctx.algorithm = resolve_algorithm(name)
    ctx.settings = settings      # (stride, padding, dilation, groups)
    ctx.module = algorithm_module(ctx.algorithm, weight_shape, settings[0], settings[3])
    return ctx.module


class Conv2dFunction(Function):
    """y = x ⋆ W + b by the chosen algorithm; the backward uses the algorithm the forward used."""

    node_name = "ConvolutionBackward0"
    graph_inputs = (0, 1, 2)  # input, weight, bias (None without one), as PyTorch

    @staticmethod
    def forward(ctx, input, weight, bias, stride, padding, dilation, groups, algorithm=None):  # noqa: A002
        stride, padding, dilation = conv_pair(stride, "stride"), conv_pair(padding, "padding"), \
            conv_pair(dilation, "dilation")
        check_conv(input, weight, bias, stride, padding, dilation, groups)
        module = _choose_algorithm(ctx, algorithm, weight.shape, (stride, padding, dilation, groups))
        out, saved = module.forward(input.array, weight.array, *ctx.settings)
        if bias is not None:
            out += bias.array.reshape(-1, 1, 1)           # `out` is ours: add the bias in place
        ctx.save_for_backward(input, weight)
        ctx.saved_by_algorithm = saved if ctx.needs_input_grad[1] else None
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad_output):
        """The three gradients, for δ = ∂L/∂y (per group of channels, cols = im2col(x)):

            dx = col2im(Wᵀ · δ)      each column's gradient added back onto the window it came from
            dW = δ · colsᵀ
            db = Σ_{n,h,w} δ

        ``algo_im2col.py`` computes them plainly, in one screen; the default ``'im2col'`` runs
        ``algo_im2col_tuned.py``, the same formulas in cache-sized bands. ``algo_rot180.py``
        and ``algo_naive.py`` compute the same gradients their own way.
        """
        x, weight = ctx.saved_tensors
        algorithm = ctx.module
        stride, _, _, groups = ctx.settings
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[2]:
            grad_bias = Tensor(grad_output.array.sum(axis=(0, 2, 3)))
        delta = algorithm.prepare_grad_output(grad_output.array, weight.shape, stride, groups)
        if ctx.needs_input_grad[1]:
            grad_weight = Tensor(algorithm.grad_weight(x.array, delta, weight.shape, *ctx.settings,
                                                       saved=ctx.saved_by_algorithm))
        ctx.saved_by_algorithm = None   # done with: free it before grad_input needs memory of its own
        if ctx.needs_input_grad[0]:
            grad_input = Tensor(algorithm.grad_input(delta, weight.array, x.shape, *ctx.settings))
        return grad_input, grad_weight, grad_bias, None, None, None, None, None


def _same_padding(weight_shape: tuple, stride: Pair, dilation: Pair) -> tuple:
    """PyTorch's padding='same': d·(k−1) in total per axis, the odd one out at the bottom/right.

    Returns ``(symmetric pair, extra pair)``.
    """
    if stride != (1, 1):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    totals = [dilation[a] * (weight_shape[2 + a] - 1) for a in (0, 1)]
    symmetric = (totals[0] // 2, totals[1] // 2)
    return symmetric, (totals[0] - 2 * symmetric[0], totals[1] - 2 * symmetric[1])


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002 (PyTorch's name)
           stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1, *,
           algorithm: str | None = None) -> Tensor:
    """2-D cross-correlation, as ``torch.nn.functional.conv2d``; ``input`` (N, C, H, W) or (C, H, W).

    y[n, o] = b[o] + Σ_c W[o, c] ⋆ x[n, c]  (per group). ``padding`` may be an int, a pair,
    ``'valid'`` (none) or ``'same'`` (output as large as the input; stride 1 only).
    ``algorithm``: ``'im2col'``, ``'im2col_plain'``, ``'rot180'``, ``'naive'``, or None for the current
    default (see ``algorithms.py``).
    """
    if input.ndim == 3:  # unbatched, as PyTorch allows
        return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups,
                      algorithm=algorithm).squeeze(0)
    stride, dilation, groups = conv2d_settings(input, stride, dilation, groups)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0, 0)
        elif padding == "same":
            check_weight(weight, groups)
            check_kernel(tuple(weight.shape))
            padding, extra = _same_padding(tuple(weight.shape), stride, dilation)
            if extra != (0, 0):
                warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                              "zero-padded copy of the input be created", UserWarning, stacklevel=2)
                input = pad(input, (0, extra[1], 0, extra[0]))  # noqa: A001
        else:
            raise RuntimeError(f"Invalid padding string: {padding!r}")
    return Conv2dFunction.apply(input, weight, bias, stride, conv_pair(padding, "padding"), dilation, groups,
                                algorithm)


class Conv2dInputFunction(Function):
    """dx = grad_input(δ, W). Linear in δ and in W: d/dδ = the convolution u ⋆ W, d/dW = grad_weight(u, δ)."""

    @staticmethod
    def forward(ctx, grad_output, weight, input_size, stride, padding, dilation, groups, algorithm=None):
        module = _choose_algorithm(ctx, algorithm, weight.shape, (stride, padding, dilation, groups))
        ctx.save_for_backward(grad_output, weight)
        return Tensor(module.grad_input(grad_output.array, weight.array, input_size, *ctx.settings))

    @staticmethod
    def backward(ctx, upstream):
        grad_output, weight = ctx.saved_tensors
        module, u = ctx.module, upstream.array
        d_delta = d_weight = None
        if ctx.needs_input_grad[0]:
            d_delta = Tensor(module.forward(u, weight.array, *ctx.settings)[0])
        if ctx.needs_input_grad[1]:
            d_weight = Tensor(module.grad_weight(u, grad_output.array, weight.shape, *ctx.settings))
        return d_delta, d_weight, None, None, None, None, None, None


class Conv2dWeightFunction(Function):
    """dW = grad_weight(x, δ). Linear in x and in δ: d/dx = grad_input(δ, U), d/dδ = the convolution x ⋆ U."""

    @staticmethod
    def forward(ctx, input, grad_output, weight_size, stride, padding, dilation, groups,  # noqa: A002
                algorithm=None):
        module = _choose_algorithm(ctx, algorithm, weight_size, (stride, padding, dilation, groups))
        ctx.save_for_backward(input, grad_output)
        return Tensor(module.grad_weight(input.array, grad_output.array, weight_size, *ctx.settings))

    @staticmethod
    def backward(ctx, upstream):
        x, grad_output = ctx.saved_tensors
        module, u = ctx.module, upstream.array
        d_input = d_delta = None
        if ctx.needs_input_grad[0]:
            d_input = Tensor(module.grad_input(grad_output.array, u, x.shape, *ctx.settings))
        if ctx.needs_input_grad[1]:
            d_delta = Tensor(module.forward(x.array, u, *ctx.settings)[0])
        return d_input, d_delta, None, None, None, None, None, None


def conv2d_input(input_size: Any, weight: Tensor, grad_output: Tensor, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, *, algorithm: str | None = None) -> Tensor:
    """d(conv2d)/d(input) for an input of ``input_size``, as ``torch.nn.grad.conv2d_input``."""
    input_size, stride, padding, dilation = check_conv2d_input(input_size, weight, grad_output, stride,
                                                               padding, dilation, groups)
    return Conv2dInputFunction.apply(grad_output, weight, input_size, stride, padding, dilation, groups,
                                     algorithm)


def conv2d_weight(input: Tensor, weight_size: Any, grad_output: Tensor,  # noqa: A002 (PyTorch's name)
                  stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1, *,
                  algorithm: str | None = None) -> Tensor:
    """d(conv2d)/d(weight) for a weight of ``weight_size``, as ``torch.nn.grad.conv2d_weight``."""
    weight_size, stride, padding, dilation = check_conv2d_weight(input, weight_size, grad_output, stride,
                                                                 padding, dilation, groups)
    return Conv2dWeightFunction.apply(input, grad_output, weight_size, stride, padding, dilation, groups,
                                      algorithm)
