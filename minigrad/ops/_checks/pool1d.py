"""Argument checks of 1-D pooling (``ops/pool1d.py``), with PyTorch's exceptions and messages."""

from __future__ import annotations

from typing import Any

from minigrad._arguments import integer_size
from minigrad.ops._util import not_implemented_for
from minigrad.tensor import Tensor


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
