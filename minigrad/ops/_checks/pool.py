"""Argument checks of 2-D pooling (``ops/pool.py``), with PyTorch's exceptions and messages. The 1-D
pooling's are in ``pool1d.py``."""

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
