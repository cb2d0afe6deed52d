"""Conv2d as autograd Functions, and the public ``conv2d``, ``conv2d_input``, ``conv2d_weight``.

The Functions pick the algorithm module (see ``algorithms.py``) and call its array
functions; the mathematics lives in ``algo_*.py`` (``algo_im2col.py`` first):

    forward:   y = x ⋆ W + b                       (algorithm.forward)
    backward:  dx = algorithm.grad_input(δ, W),  dW = algorithm.grad_weight(x, δ),  db = Σ_{n,h,w} δ

``conv2d_input`` and ``conv2d_weight`` (PyTorch's ``torch.nn.grad``) expose the two
halves of the backward on their own; they are differentiable too, because each is
linear in both of its tensors and its adjoints are the other two conv maps.
"""

from __future__ import annotations

import warnings
from typing import Any

from minigrad.autograd.function import Function
from minigrad.ops._util import not_implemented_for
from minigrad.ops.conv.algorithms import algorithm_module, resolve_algorithm
from minigrad.ops.conv.geometry import Pair, integer_size, output_shape
from minigrad.ops.shape import pad
from minigrad.tensor import Tensor

__all__ = ["Conv2dFunction", "Conv2dInputFunction", "Conv2dWeightFunction", "conv2d", "conv2d_input",
           "conv2d_weight", "conv_pair"]


def conv_pair(value: Any, name: str) -> Pair:
    """An int or a sequence of one or two ints, as the pair (along height, along width)."""
    if isinstance(value, str):
        raise RuntimeError(f"expected {name} to be a single integer value or a list of 2 values, but got "
                           f"{name}={value!r} (padding='same'/'valid' is for conv2d itself)")
    if not isinstance(value, (tuple, list)):
        value = integer_size(value, name, "conv2d", "an int or a tuple of ints")
        return (value, value)
    values = tuple(integer_size(v, name, "conv2d", "an int or a tuple of ints") for v in value)
    if len(values) == 1:
        return values * 2
    if len(values) != 2:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of 2 values to match "
                           f"the convolution dimensions, but got {name}={list(values)}")
    return values


def _check_settings(stride: Pair, padding: Pair, dilation: Pair, groups: int) -> None:
    if min(stride) <= 0:
        raise RuntimeError(f"non-positive stride is not supported, but got stride={list(stride)}")
    if min(padding) < 0:
        raise RuntimeError(f"negative padding is not supported, but got padding={list(padding)}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError(f"non-positive groups is not supported, but got groups={groups}")


def _check_weight(weight: Tensor, groups: int) -> None:
    if weight.ndim != 4:
        raise RuntimeError(f"expected weight to be 4-dimensional (C_out, C_in/groups, kh, kw), but got "
                           f"weight of size {list(weight.shape)}")
    if weight.shape[0] < 1:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least 1 at dimension 0, but got "
                           f"weight of size {list(weight.shape)} instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
                           f"0, but got weight of size {list(weight.shape)} instead")


def _check_kernel(weight_shape: tuple) -> None:
    """A kernel of at least one tap along each axis (a 0-sized one would give a silent all-zero output)."""
    if weight_shape[2] <= 0 or weight_shape[3] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{weight_shape[2]} kernel_width: {weight_shape[3]} (weight of size "
                           f"{list(weight_shape)})")


def _check_same_dtype(first: Tensor, second: Tensor, names: str) -> None:
    if first.dtype is not second.dtype:
        one, other = names.split()
        raise RuntimeError(f"{one.capitalize()} type ({first.dtype.name}) and {other} type "
                           f"({second.dtype.name}) should be the same")


def _check_conv(x: Tensor, weight: Tensor, bias: Tensor | None, stride: Pair, padding: Pair,
                dilation: Pair, groups: int) -> None:
    """PyTorch's checks, with messages that name the shapes and numbers involved."""
    _check_settings(stride, padding, dilation, groups)
    if x.ndim != 4:
        raise RuntimeError(f"Expected 4D (batched) input to conv2d, but got input of size: {list(x.shape)}")
    _check_weight(weight, groups)
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {weight.shape[1] * groups} channels, but got "
                           f"{x.shape[1]} channels instead")
    _check_kernel(tuple(weight.shape))
    _check_same_dtype(x, weight, "input weight")
    if x.dtype.numpy.kind == "b":   # a sum of products of bools has no meaning PyTorch accepts
        raise not_implemented_for("conv2d", x)
    if bias is not None:
        if bias.shape != (weight.shape[0],):
            raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be "
                               f"1-dimensional with {weight.shape[0]} elements, but got bias of size "
                               f"{list(bias.shape)} instead")
        _check_same_dtype(x, bias, "input bias")
    padded = [x.shape[2 + a] + 2 * padding[a] for a in (0, 1)]
    extent = [dilation[a] * (weight.shape[2 + a] - 1) + 1 for a in (0, 1)]
    if padded[0] < extent[0] or padded[1] < extent[1]:
        raise RuntimeError(f"Calculated padded input size per channel: ({padded[0]} x {padded[1]}). Kernel "
                           f"size: ({extent[0]} x {extent[1]}). Kernel size can't be greater than actual "
                           f"input size")


class Conv2dFunction(Function):
    """y = x ⋆ W + b by the chosen algorithm; the backward uses the algorithm the forward used."""

    node_name = "ConvolutionBackward0"
    graph_inputs = (0, 1, 2)  # input, weight, bias (None without one), as PyTorch

    @staticmethod
    def forward(ctx, input, weight, bias, stride, padding, dilation, groups, algorithm=None):  # noqa: A002
        stride, padding, dilation = conv_pair(stride, "stride"), conv_pair(padding, "padding"), \
            conv_pair(dilation, "dilation")
        _check_conv(input, weight, bias, stride, padding, dilation, groups)
        ctx.algorithm = resolve_algorithm(algorithm)
        ctx.settings = (stride, padding, dilation, groups)
        ctx.module = algorithm_module(ctx.algorithm, weight.shape, stride, groups)
        out, saved = ctx.module.forward(input.array, weight.array, *ctx.settings)
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
    if input.ndim != 4:
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           f"{list(input.shape)}")
    for name, value in (("stride", stride), ("dilation", dilation)):
        if isinstance(value, str):  # only padding may be a string
            raise TypeError(f"conv2d(): argument '{name}' must be tuple of ints, but got {value!r} of type "
                            f"str")
    groups = integer_size(groups, "groups", "conv2d", "int")
    stride, dilation = conv_pair(stride, "stride"), conv_pair(dilation, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0, 0)
        elif padding == "same":
            _check_weight(weight, groups)
            _check_kernel(tuple(weight.shape))
            padding, extra = _same_padding(tuple(weight.shape), stride, dilation)
            if extra != (0, 0):
                warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                              "zero-padded copy of the input be created", UserWarning, stacklevel=2)
                input = pad(input, (0, extra[1], 0, extra[0]))  # noqa: A001
        else:
            raise RuntimeError(f"Invalid padding string: {padding!r}")
    return Conv2dFunction.apply(input, weight, bias, stride, conv_pair(padding, "padding"), dilation, groups,
                                algorithm)


def _check_grad_call(name: str, input_size: tuple, weight_size: tuple, grad_output: Tensor, stride: Pair,
                     padding: Pair, dilation: Pair, groups: int) -> None:
    """The sizes given to conv2d_input / conv2d_weight must be those of one real convolution."""
    _check_settings(stride, padding, dilation, groups)
    if len(input_size) != 4 or len(weight_size) != 4 or grad_output.ndim != 4:
        raise RuntimeError(f"{name}: expected 4-D input size, weight size and grad_output, but got "
                           f"{list(input_size)}, {list(weight_size)} and {list(grad_output.shape)}")
    if input_size[1] != weight_size[1] * groups:
        raise RuntimeError(f"{name}: Given groups={groups}, weight of size {list(weight_size)}, expected "
                           f"input{list(input_size)} to have {weight_size[1] * groups} channels, but got "
                           f"{input_size[1]} channels instead")
    _check_kernel(weight_size)
    expected = (input_size[0], weight_size[0]) + output_shape(input_size, weight_size[2:], stride, padding,
                                                             dilation)
    if tuple(grad_output.shape) != expected:
        raise RuntimeError(f"{name}: an input of size {list(input_size)} convolved with a weight of size "
                           f"{list(weight_size)} (groups={groups}, stride={list(stride)}, "
                           f"padding={list(padding)}, dilation={list(dilation)}) gives an output of size "
                           f"{list(expected)}, but grad_output has size {list(grad_output.shape)}")


def _check_grad_tensors(name: str, grad_output: Any, **tensors: Any) -> None:
    """Non-Tensor arguments fail as in PyTorch's ``nn.grad``: it first calls ``grad_output.new_empty``
    (an AttributeError), then hands the others to ``convolution_backward``, whose schema raises."""
    if not isinstance(grad_output, Tensor):
        raise AttributeError(f"'{type(grad_output).__name__}' object has no attribute 'new_empty' ({name} "
                             f"expects a Tensor grad_output, but got {type(grad_output).__name__})")
    for argument, value in tensors.items():
        if not isinstance(value, Tensor):
            raise RuntimeError(f"{name}: expected a value of type 'Tensor' for argument '{argument}' but "
                               f"instead found type '{type(value).__name__}'")


class Conv2dInputFunction(Function):
    """dx = grad_input(δ, W). Linear in δ and in W: d/dδ = the convolution u ⋆ W, d/dW = grad_weight(u, δ)."""

    @staticmethod
    def forward(ctx, grad_output, weight, input_size, stride, padding, dilation, groups, algorithm=None):
        ctx.algorithm = resolve_algorithm(algorithm)
        ctx.settings = (stride, padding, dilation, groups)
        ctx.module = algorithm_module(ctx.algorithm, weight.shape, stride, groups)
        ctx.save_for_backward(grad_output, weight)
        return Tensor(ctx.module.grad_input(grad_output.array, weight.array, input_size, *ctx.settings))

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
        ctx.algorithm = resolve_algorithm(algorithm)
        ctx.settings = (stride, padding, dilation, groups)
        ctx.module = algorithm_module(ctx.algorithm, weight_size, stride, groups)
        ctx.save_for_backward(input, grad_output)
        return Tensor(ctx.module.grad_weight(input.array, grad_output.array, weight_size, *ctx.settings))

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
    _check_grad_tensors("conv2d_input", grad_output, weight=weight)
    stride, padding, dilation = conv_pair(stride, "stride"), conv_pair(padding, "padding"), \
        conv_pair(dilation, "dilation")
    input_size = tuple(int(s) for s in input_size)
    _check_weight(weight, groups)
    _check_grad_call("conv2d_input", input_size, tuple(weight.shape), grad_output, stride, padding, dilation,
                     groups)
    _check_same_dtype(grad_output, weight, "grad_output weight")
    if grad_output.dtype.numpy.kind != "f":    # gradients are floating point, as in PyTorch
        raise not_implemented_for("conv2d_input", grad_output)
    return Conv2dInputFunction.apply(grad_output, weight, input_size, stride, padding, dilation, groups,
                                     algorithm)


def conv2d_weight(input: Tensor, weight_size: Any, grad_output: Tensor,  # noqa: A002 (PyTorch's name)
                  stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1, *,
                  algorithm: str | None = None) -> Tensor:
    """d(conv2d)/d(weight) for a weight of ``weight_size``, as ``torch.nn.grad.conv2d_weight``."""
    _check_grad_tensors("conv2d_weight", grad_output, input=input)
    stride, padding, dilation = conv_pair(stride, "stride"), conv_pair(padding, "padding"), \
        conv_pair(dilation, "dilation")
    weight_size = tuple(int(s) for s in weight_size)
    _check_grad_call("conv2d_weight", tuple(input.shape), weight_size, grad_output, stride, padding, dilation,
                     groups)
    if weight_size[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
                           f"0, but got weight of size {list(weight_size)} instead")
    _check_same_dtype(input, grad_output, "input grad_output")
    if input.dtype.numpy.kind != "f":
        raise not_implemented_for("conv2d_weight", input)
    return Conv2dWeightFunction.apply(input, grad_output, weight_size, stride, padding, dilation, groups,
                                      algorithm)
