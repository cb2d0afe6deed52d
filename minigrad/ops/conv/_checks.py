"""PyTorch's argument checks for conv2d, conv1d, ``nn.grad`` and unfold/fold, with messages that
name the shapes and numbers involved — kept apart so that the op files read as forward and backward.

Each function raises PyTorch's exception type for a bad argument, or returns the argument
normalised (settings as pairs).
"""

from __future__ import annotations

from typing import Any

from minigrad._arguments import integer_size, pair_argument, sizes_argument
from minigrad.ops._util import not_implemented_for
from minigrad.ops.conv.geometry import Pair, output_shape
from minigrad.tensor import Tensor

__all__ = ["conv_pair", "conv_single", "conv2d_settings", "check_conv", "check_weight", "check_kernel",
           "check_conv2d_input", "check_conv2d_weight", "check_conv1d", "fold_pair", "fold_settings",
           "check_unfold_input", "check_fold_input", "check_fold_blocks", "sliding_blocks"]

_CONV_LENGTH = ("expected {name} to be a single integer value or a list of {count} values to match the "
                "convolution dimensions, but got {name}={values}")


# --- conv2d -----------------------------------------------------------------------------------------

def conv_pair(value: Any, name: str) -> Pair:
    """An int or a sequence of one or two ints, as the pair (along height, along width)."""
    if isinstance(value, str):
        raise RuntimeError(f"expected {name} to be a single integer value or a list of 2 values, but got "
                           f"{name}={value!r} (padding='same'/'valid' is for conv2d itself)")
    return pair_argument(value, name, "conv2d", _CONV_LENGTH, expected="an int or a tuple of ints")


def conv2d_settings(input: Tensor, stride: Any, dilation: Any, groups: Any) -> tuple[Pair, Pair, int]:  # noqa: A002
    """conv2d's batched input checked; ``stride``, ``dilation`` as pairs and ``groups`` as an int."""
    if input.ndim != 4:
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           f"{list(input.shape)}")
    for name, value in (("stride", stride), ("dilation", dilation)):
        if isinstance(value, str):  # only padding may be a string
            raise TypeError(f"conv2d(): argument '{name}' must be tuple of ints, but got {value!r} of type "
                            f"str")
    groups = integer_size(groups, "groups", "conv2d", "int")
    return conv_pair(stride, "stride"), conv_pair(dilation, "dilation"), groups


def _check_settings(stride: Pair, padding: Pair, dilation: Pair, groups: int) -> None:
    if min(stride) <= 0:
        raise RuntimeError(f"non-positive stride is not supported, but got stride={list(stride)}")
    if min(padding) < 0:
        raise RuntimeError(f"negative padding is not supported, but got padding={list(padding)}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError(f"non-positive groups is not supported, but got groups={groups}")


def check_weight(weight: Tensor, groups: int) -> None:
    """A 4-D weight whose output channels split into ``groups``."""
    if weight.ndim != 4:
        raise RuntimeError(f"expected weight to be 4-dimensional (C_out, C_in/groups, kh, kw), but got "
                           f"weight of size {list(weight.shape)}")
    if weight.shape[0] < 1:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least 1 at dimension 0, but got "
                           f"weight of size {list(weight.shape)} instead")
    _check_divisible(tuple(weight.shape), groups)


def _check_divisible(weight_shape: tuple, groups: int) -> None:
    if weight_shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
                           f"0, but got weight of size {list(weight_shape)} instead")


def check_kernel(weight_shape: tuple) -> None:
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


def _check_channels(input_size: tuple, weight_size: tuple, groups: int, prefix: str = "") -> None:
    if input_size[1] != weight_size[1] * groups:
        raise RuntimeError(f"{prefix}Given groups={groups}, weight of size {list(weight_size)}, expected "
                           f"input{list(input_size)} to have {weight_size[1] * groups} channels, but got "
                           f"{input_size[1]} channels instead")


def check_conv(x: Tensor, weight: Tensor, bias: Tensor | None, stride: Pair, padding: Pair,
               dilation: Pair, groups: int) -> None:
    """Everything conv2d's Function needs of its arguments, in PyTorch's order."""
    _check_settings(stride, padding, dilation, groups)
    if x.ndim != 4:
        raise RuntimeError(f"Expected 4D (batched) input to conv2d, but got input of size: {list(x.shape)}")
    check_weight(weight, groups)
    _check_channels(tuple(x.shape), tuple(weight.shape), groups)
    check_kernel(tuple(weight.shape))
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


# --- nn.grad: conv2d_input, conv2d_weight ----------------------------------------------------------------

def _check_grad_call(name: str, input_size: tuple, weight_size: tuple, grad_output: Tensor, stride: Pair,
                     padding: Pair, dilation: Pair, groups: int) -> None:
    """The sizes given to conv2d_input / conv2d_weight must be those of one real convolution."""
    _check_settings(stride, padding, dilation, groups)
    if len(input_size) != 4 or len(weight_size) != 4 or grad_output.ndim != 4:
        raise RuntimeError(f"{name}: expected 4-D input size, weight size and grad_output, but got "
                           f"{list(input_size)}, {list(weight_size)} and {list(grad_output.shape)}")
    _check_channels(input_size, weight_size, groups, prefix=f"{name}: ")
    check_kernel(weight_size)
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


def _grad_settings(stride: Any, padding: Any, dilation: Any) -> tuple[Pair, Pair, Pair]:
    return conv_pair(stride, "stride"), conv_pair(padding, "padding"), conv_pair(dilation, "dilation")


def check_conv2d_input(input_size: Any, weight: Any, grad_output: Any, stride: Any, padding: Any,
                       dilation: Any, groups: int) -> tuple[tuple, Pair, Pair, Pair]:
    """conv2d_input's arguments checked; returns ``(input_size, stride, padding, dilation)`` normalised."""
    _check_grad_tensors("conv2d_input", grad_output, weight=weight)
    stride, padding, dilation = _grad_settings(stride, padding, dilation)
    input_size = tuple(int(s) for s in input_size)
    check_weight(weight, groups)
    _check_grad_call("conv2d_input", input_size, tuple(weight.shape), grad_output, stride, padding, dilation,
                     groups)
    _check_same_dtype(grad_output, weight, "grad_output weight")
    if grad_output.dtype.numpy.kind != "f":    # gradients are floating point, as in PyTorch
        raise not_implemented_for("conv2d_input", grad_output)
    return input_size, stride, padding, dilation


def check_conv2d_weight(input: Any, weight_size: Any, grad_output: Any, stride: Any,  # noqa: A002
                        padding: Any, dilation: Any, groups: int) -> tuple[tuple, Pair, Pair, Pair]:
    """conv2d_weight's arguments checked; returns ``(weight_size, stride, padding, dilation)`` normalised."""
    _check_grad_tensors("conv2d_weight", grad_output, input=input)
    stride, padding, dilation = _grad_settings(stride, padding, dilation)
    weight_size = tuple(int(s) for s in weight_size)
    _check_grad_call("conv2d_weight", tuple(input.shape), weight_size, grad_output, stride, padding, dilation,
                     groups)
    _check_divisible(weight_size, groups)
    _check_same_dtype(input, grad_output, "input grad_output")
    if input.dtype.numpy.kind != "f":
        raise not_implemented_for("conv2d_weight", input)
    return weight_size, stride, padding, dilation


# --- conv1d -----------------------------------------------------------------------------------------

def conv_single(value: Any, name: str) -> int:
    """An int or a sequence of one int, as that int."""
    return sizes_argument(value, 1, name, "conv1d", _CONV_LENGTH, expected="an int or a tuple of ints")[0]


def check_conv1d(x: Tensor, weight: Tensor, bias: Tensor | None, stride: int, padding: int | str,
                 dilation: int, groups: int) -> None:
    """PyTorch's conv1d checks, before the 2-D ones (which would name 4-D shapes)."""
    if stride <= 0:
        raise RuntimeError(f"non-positive stride is not supported, but got stride={stride}")
    if not isinstance(padding, str) and padding < 0:
        raise RuntimeError(f"negative padding is not supported, but got padding={padding}")
    if dilation <= 0:
        raise RuntimeError(f"non-positive dilation is not supported, but got dilation={dilation}")
    if groups <= 0:
        raise RuntimeError(f"non-positive groups is not supported, but got groups={groups}")
    if weight.ndim != 3:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{list(weight.shape)}, but got {x.ndim}-dimensional input of size "
                           f"{list(x.shape)} instead (conv1d takes a weight (C_out, C_in/groups, k))")
    if weight.shape[0] < 1 or weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
                           f"0 (and at least 1), but got weight of size {list(weight.shape)} instead")
    _check_channels(tuple(x.shape), tuple(weight.shape), groups)
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional "
                           f"with {weight.shape[0]} elements, but got bias of size {list(bias.shape)} "
                           f"instead")
    if not isinstance(padding, str):
        padded, extent = x.shape[2] + 2 * padding, dilation * (weight.shape[2] - 1) + 1
        if padded < extent:
            raise RuntimeError(f"Calculated padded input size per channel: ({padded}). Kernel size: "
                               f"({extent}). Kernel size can't be greater than actual input size")


# --- unfold / fold ----------------------------------------------------------------------------------------

def fold_pair(value: Any, name: str, function: str) -> Pair:
    """An int or a sequence of exactly two ints (a 1-sequence is an error here, as in PyTorch's im2col)."""
    return pair_argument(value, name, function, "It is expected {name} equals to 2, but got size {length} "
                                                "({name}={values})", one_is_both=False)


def fold_settings(function: str, kernel_size: Any, dilation: Any, padding: Any,
                  stride: Any) -> tuple[Pair, Pair, Pair, Pair]:
    """The four pairs, checked as PyTorch checks them (kernel, dilation, stride > 0; padding ≥ 0)."""
    kernel_size, dilation = fold_pair(kernel_size, "kernel_size", function), fold_pair(dilation, "dilation",
                                                                                        function)
    padding, stride = fold_pair(padding, "padding", function), fold_pair(stride, "stride", function)
    for name, (h, w), low in (("kernel size", kernel_size, 1), ("stride", stride, 1),
                              ("dilation", dilation, 1), ("padding", padding, 0)):
        if min(h, w) < low:
            what = "non-negative" if low == 0 else "greater than zero"
            short = {"kernel size": "kernel", "padding": "pad"}.get(name, name)
            raise RuntimeError(f"{name} should be {what}, but got {short}_height: {h} {short}_width: {w}")
    return kernel_size, dilation, padding, stride


def _check_floating(input: Tensor, name: str) -> None:  # noqa: A002 (PyTorch's name)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"{name} is not implemented for {input.dtype.name} tensors "
                                  f"(PyTorch's im2col/col2im take floating point only)")


def sliding_blocks(size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Pair:
    """Sliding blocks along each axis; PyTorch requires at least one."""
    blocks = output_shape(size, kernel_size, stride, padding, dilation)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(size)}, kernel_size={kernel_size}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of "
                           f"sliding blocks as {blocks}, but its components must be at least one.")
    return blocks


def check_unfold_input(input: Tensor) -> None:  # noqa: A002 (PyTorch's name)
    """A floating (N, C, H, W) input with C, H, W > 0 (the 3-D case is batched before this)."""
    if input.ndim != 4 or 0 in input.shape[1:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    _check_floating(input, "unfold")


def check_fold_input(input: Tensor) -> None:  # noqa: A002 (PyTorch's name)
    """Floating (N, C·kh·kw, L) columns with C·kh·kw, L > 0 (the 2-D case is batched before this)."""
    if input.ndim != 3 or 0 in input.shape[1:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    _check_floating(input, "fold")


def check_fold_blocks(input: Tensor, output_size: Pair, kernel_size: Pair, dilation: Pair,  # noqa: A002
                      padding: Pair, stride: Pair) -> None:
    """The columns fit: C·kh·kw rows, and one column per block of an ``output_size`` image."""
    taps = kernel_size[0] * kernel_size[1]
    if input.shape[1] % taps:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={input.shape[1]} and "
                           f"kernel_size={kernel_size}.")
    blocks = sliding_blocks(output_size, kernel_size, dilation, padding, stride)
    if input.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(f"Given output_size={output_size}, kernel_size={kernel_size}, "
                           f"dilation={dilation}, padding={padding}, stride={stride}, expected size of "
                           f"input's dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={input.shape[2]}.")
