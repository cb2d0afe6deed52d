"""Argument checks of pooling (``ops/pool.py``, ``ops/pool1d.py``), with PyTorch's exceptions and messages."""

from __future__ import annotations

from typing import Any

from minigrad._arguments import integer_size
from minigrad.ops._util import not_implemented_for
from minigrad.ops.conv.geometry import Pair
from minigrad.tensor import Tensor


def check_dtype(x: Tensor, function: str) -> None:
    """max_pool2d takes every dtype but bool; avg_pool2d floats and int64 (as PyTorch on the CPU)."""
    kind, name = x.dtype.numpy.kind, x.dtype.numpy.name
    supported = kind != "b" if function == "max_pool2d" else kind == "f" or name == "int64"
    if not supported:
        raise not_implemented_for(function, x)


def check_pool(x: Tensor, kernel_size: Pair, stride: Pair, padding: Pair, dilation: Pair) -> None:
    """PyTorch's pool2d_shape_check, with its messages (the output size: :func:`check_output_size`)."""
    if x.ndim not in (3, 4) or 0 in x.shape[-3:]:
        raise RuntimeError(f"non-empty 3D or 4D (batch mode) tensor expected for input, but got input of "
                           f"size {list(x.shape)}")
    if min(kernel_size) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel_size[0]} "
                           f"kW: {kernel_size[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilation[0]} "
                           f"dilationW: {dilation[1]}")
    if min(padding) < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(padding)}")
    for axis in (0, 1):
        if padding[axis] > (dilation[axis] * (kernel_size[axis] - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={padding[axis]}, kernel_size={kernel_size[axis]} and "
                               f"dilation={dilation[axis]}")


def check_output_size(x: Tensor, out: Pair) -> None:
    """The windows leave at least one output in each direction."""
    if min(out) < 1:
        c, h, w = x.shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}). Output size is too small")


def check_divisor(divisor_override: int | None) -> None:
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")


def check_has_channels(input: Tensor) -> None:  # noqa: A002 (PyTorch's name)
    if input.ndim < 3:  # PyTorch reads the channel count, size(-3), before any check: an IndexError
        raise IndexError(f"Dimension out of range (got -3 for an input of {input.ndim} dimensions): "
                         f"avg_pool2d expects (C, H, W) or (N, C, H, W), but got input of size "
                         f"{list(input.shape)}")


def adaptive_size(input: Tensor, output_size: Any, function: str) -> Pair:  # noqa: A002 (PyTorch's name)
    """``output_size`` (int, pair, None entries keep the input's size) as a pair, after PyTorch's checks."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"{function}(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    if len(sizes) != 2:
        raise RuntimeError(f"{function}: output_size must be 2 (got output_size={list(sizes)})")
    sizes = tuple(input.shape[axis - 2] if s is None else integer_size(s, "output_size", function)
                  for axis, s in enumerate(sizes))
    if min(sizes) < 0:
        raise RuntimeError(f"{function}: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{sizes[0]}, {sizes[1]}}}")
    for axis in (-2, -1):
        if input.shape[axis] == 0:
            raise RuntimeError(f"{function}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with dimension "
                               f"{input.ndim + axis} being empty")
    if not input.dtype.is_floating_point:
        raise not_implemented_for(function, input)
    return sizes


def _is_default(stride: Any) -> bool:
    return stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)


def single(value: Any, name: str, function: str, message: str) -> int:
    """An int or a sequence of one int, as that int; ``message`` formats the error for other lengths."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(message.format(size=len(value)))
        value = value[0]
    return integer_size(value, name, function, "tuple of ints")


def max_pool1d_sizes(input: Tensor, kernel_size: Any, stride: Any, padding: Any,  # noqa: A002
                     dilation: Any) -> tuple[int, int, int, int]:
    """(kernel, stride, padding, dilation) of ``max_pool1d`` as ints, after PyTorch's checks; ``stride``
    defaults to ``kernel_size``."""
    name = "max_pool1d"
    if input.ndim not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(input.shape)}")
    sizes, stride = {}, kernel_size if _is_default(stride) else stride
    for key, value in (("kernel_size", kernel_size), ("stride", stride),
                       ("padding", padding), ("dilation", dilation)):
        sizes[key] = single(value, key, name, f"max_pool1d() {key} must be an int, list of ints or tuple of "
                                               f"ints of size 1 but got size {{size}}")
    kernel, step, pad, spread = sizes["kernel_size"], sizes["stride"], sizes["padding"], sizes["dilation"]
    for key, value in (("kernel_size", kernel), ("stride", step), ("dilation", spread)):
        if value <= 0:
            raise RuntimeError(f"max_pool1d() {key} must be greater than zero, but got {value}")
    if pad < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {pad}")
    if pad > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={pad} and kernel_size={kernel}")
    return kernel, step, pad, spread


def check_max_pool1d_output(input: Tensor, length: int, kernel: int, step: int, pad: int,  # noqa: A002
                            spread: int, return_indices: bool) -> None:
    """At least one output, and a floating input unless only the indices are wanted (PyTorch's 1-D kernel
    is float only)."""
    if length < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {length} (input length "
                           f"{input.shape[-1]}, kernel_size={kernel}, stride={step}, padding={pad}, "
                           f"dilation={spread})")
    if not input.dtype.is_floating_point and not return_indices:
        raise not_implemented_for("max_pool1d_impl", input)


def avg_pool1d_sizes(input: Tensor, kernel_size: Any, stride: Any, padding: Any) -> dict:  # noqa: A002
    """``avg_pool1d``'s kernel_size, stride and padding as ints, after PyTorch's checks; ``stride``
    defaults to ``kernel_size``."""
    name = "avg_pool1d"
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor of size "
                           f"{list(input.shape)} for argument #1 'self' (while checking arguments for "
                           f"avg_pool1d)")
    sizes, stride = {}, kernel_size if _is_default(stride) else stride
    for key, value in (("kernel_size", kernel_size), ("stride", stride),
                       ("padding", padding)):
        sizes[key] = single(value, key, name, f"avg_pool1d() argument '{key}' should contain one int "
                                               f"(got {{size}})")
    if sizes["stride"] == 0:
        raise RuntimeError("stride should not be zero")
    return sizes
