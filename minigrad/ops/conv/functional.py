"""Conv2d as autograd Functions, and the public ``conv2d``, ``conv2d_input``, ``conv2d_weight``.

The Functions pick an algorithm's array functions (``algorithms.py``: by default
``algo_im2col.py``'s) and call them; the mathematics lives in ``algo_*.py``, PyTorch's
argument checks in ``_checks.py``:

    forward:   y = x ⋆ W + b                       (algorithm.forward)
    backward:  dx = algorithm.grad_input(δ, W),  dW = algorithm.grad_weight(x, δ),  db = Σ_{n,h,w} δ

The backward is itself made of Functions, so that it can be differentiated again
(``create_graph=True``): ``Conv2dInputFunction`` and ``Conv2dWeightFunction`` (PyTorch's
``torch.nn.grad.conv2d_input`` / ``conv2d_weight``) compute dx and dW. Each is linear in both of
its tensors, and the adjoints of the three maps are one another, a closed family
(gg is the gradient arriving at the derivative's output):

    conv2d_input(δ, W):   d/dδ = conv2d(gg, W),           d/dW = conv2d_weight(gg, δ)
    conv2d_weight(x, δ):  d/dx = conv2d_input(δ, gg),     d/dδ = conv2d(x, gg)

so gradients of any order are convolutions run by the algorithm the forward chose.
"""

from __future__ import annotations

import warnings
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
from minigrad.ops.conv.algorithms import Algorithm, algorithm_functions, resolve_algorithm
from minigrad.ops.conv.geometry import Pair
from minigrad.ops.padding import pad
from minigrad.tensor import Tensor

__all__ = ["Conv2dFunction", "Conv2dInputFunction", "Conv2dWeightFunction", "conv2d", "conv2d_gradients",
           "conv2d_input", "conv2d_weight"]


def _choose_algorithm(ctx: Any, name: str | None, input_shape: tuple, weight_shape: tuple, settings: tuple,
                      itemsize: int) -> Algorithm:
    """Decide, when the forward runs, the algorithm this call and its backward use (its name and its
    array functions kept on ctx); returns the functions (by default ``algo_im2col.py``'s)."""
    ctx.algorithm = resolve_algorithm(name)
    ctx.settings = settings      # (stride, padding, dilation, groups)
    ctx.conv = algorithm_functions(ctx.algorithm, tuple(input_shape), tuple(weight_shape), settings, itemsize)
    return ctx.conv


class Conv2dFunction(Function):
    """y = x ⋆ W + b by the chosen algorithm; the backward uses the algorithm the forward used."""

    node_name = "ConvolutionBackward0"
    graph_inputs = (0, 1, 2)  # input, weight, bias (None without one), as PyTorch

    @staticmethod
    def forward(ctx, input, weight, bias, stride, padding, dilation, groups, algorithm=None):  # noqa: A002
        stride, padding, dilation = conv_pair(stride, "stride"), conv_pair(padding, "padding"), \
            conv_pair(dilation, "dilation")
        check_conv(input, weight, bias, stride, padding, dilation, groups)
        settings = (stride, padding, dilation, groups)
        conv = _choose_algorithm(ctx, algorithm, input.shape, weight.shape, settings, input.array.itemsize)
        out, saved = conv.forward(input.array, weight.array, *ctx.settings)
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

        The default ``'im2col'`` computes them as written, in ``algo_im2col.py``;
        ``algo_rot180.py`` and ``algo_naive.py`` compute the same gradients their own way.
        """
        x, weight = ctx.saved_tensors
        return conv2d_gradients(ctx, x, weight, grad_output) + (None,) * 5


def conv2d_gradients(ctx: Any, x: Tensor, weight: Tensor, grad_output: Tensor) -> tuple:
    """``(dx, dW, db)`` of the convolution whose forward ran on ``ctx`` (None where not needed).

    dx and dW by ``Conv2dInputFunction`` and ``Conv2dWeightFunction``, so that under
    ``create_graph`` they are recorded and can be differentiated again; without it they run
    the algorithm's arrays and nothing more. δ is laid out once for both
    (``prepare_grad_output``), grad_weight reuses what the forward kept, and that is freed
    before grad_input needs memory of its own.
    """
    stride, _, _, groups = ctx.settings
    grad_input = grad_weight = grad_bias = None
    if ctx.needs_input_grad[2]:
        grad_bias = grad_output.sum((0, 2, 3))
    delta = ctx.conv.prepare_grad_output(grad_output.array, weight.shape, stride, groups)   # the forward's
    if ctx.needs_input_grad[1]:
        grad_weight = Conv2dWeightFunction.apply(x, grad_output, tuple(weight.shape), *ctx.settings,
                                                 ctx.algorithm, delta, ctx.saved_by_algorithm)
    ctx.saved_by_algorithm = None
    if ctx.needs_input_grad[0]:
        grad_input = Conv2dInputFunction.apply(grad_output, weight, tuple(x.shape), *ctx.settings,
                                               ctx.algorithm, delta)
    return grad_input, grad_weight, grad_bias


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
    ``algorithm``: ``'im2col'``, ``'im2col_tuned'``, ``'rot180'``, ``'naive'``, or None for the current
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
    """dx = conv2d_input(δ, W): conv2d's gradient w.r.t. its input, by the algorithm's ``grad_input``.

    Linear in δ and in W; for the gradient gg arriving at dx:

        d/dδ = conv2d(gg, W)             (the adjoint of δ ↦ grad_input(δ, W) is the convolution)
        d/dW = conv2d_weight(gg, δ)      (dx = Σ δ·W taken apart the other way round)

    ``prepared``: δ's array as the algorithm's ``prepare_grad_output`` laid it out, when the
    caller (conv2d's backward) made it already.
    """

    node_name = "ConvolutionBackwardBackward0"
    graph_inputs = (0, 1)

    @staticmethod
    def forward(ctx, grad_output, weight, input_size, stride, padding, dilation, groups, algorithm=None,
                prepared=None):
        settings = (stride, padding, dilation, groups)
        itemsize = grad_output.array.itemsize
        conv = _choose_algorithm(ctx, algorithm, input_size, weight.shape, settings, itemsize)
        ctx.save_for_backward(grad_output, weight)
        delta = grad_output.array if prepared is None else prepared
        return Tensor(conv.grad_input(delta, weight.array, input_size, *ctx.settings))

    @staticmethod
    def backward(ctx, gg):
        grad_output, weight = ctx.saved_tensors
        d_delta = d_weight = None
        if ctx.needs_input_grad[0]:
            d_delta = Conv2dFunction.apply(gg, weight, None, *ctx.settings, ctx.algorithm)
        if ctx.needs_input_grad[1]:
            d_weight = Conv2dWeightFunction.apply(gg, grad_output, tuple(weight.shape), *ctx.settings,
                                                  ctx.algorithm)
        return d_delta, d_weight, None, None, None, None, None, None, None


class Conv2dWeightFunction(Function):
    """dW = conv2d_weight(x, δ): conv2d's gradient w.r.t. its weight, by the algorithm's ``grad_weight``.

    Linear in x and in δ; for the gradient gg arriving at dW:

        d/dx = conv2d_input(δ, gg)       (dW = Σ δ·x, so x's share is δ spread back through gg)
        d/dδ = conv2d(x, gg)             (the adjoint of δ ↦ grad_weight(x, δ) is the convolution)

    ``prepared``: δ laid out by ``prepare_grad_output``; ``saved``: what the algorithm's forward
    kept for ``grad_weight`` (conv2d's backward passes both; None makes them afresh).
    """

    node_name = "ConvolutionBackwardBackward0"
    graph_inputs = (0, 1)

    @staticmethod
    def forward(ctx, input, grad_output, weight_size, stride, padding, dilation, groups,  # noqa: A002
                algorithm=None, prepared=None, saved=None):
        settings = (stride, padding, dilation, groups)
        conv = _choose_algorithm(ctx, algorithm, input.shape, weight_size, settings, input.array.itemsize)
        ctx.save_for_backward(input, grad_output)
        delta = grad_output.array if prepared is None else prepared
        return Tensor(conv.grad_weight(input.array, delta, weight_size, *ctx.settings, saved=saved))

    @staticmethod
    def backward(ctx, gg):
        x, grad_output = ctx.saved_tensors
        d_input = d_delta = None
        if ctx.needs_input_grad[0]:
            d_input = Conv2dInputFunction.apply(grad_output, gg, tuple(x.shape), *ctx.settings, ctx.algorithm)
        if ctx.needs_input_grad[1]:
            d_delta = Conv2dFunction.apply(x, gg, None, *ctx.settings, ctx.algorithm)
        return d_input, d_delta, None, None, None, None, None, None, None, None


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
