"""Shape arithmetic shared by every convolution algorithm: output sizes, padding, window slices.

Throughout, a 2-D setting is a pair ``(along height, along width)``; ``x`` is NCHW and
a conv weight is ``(C_out, C_in / groups, kh, kw)``.
"""

from __future__ import annotations

from typing import Any

from minigrad._arguments import integer_size as integer_size  # pooling imports it from here
from minigrad.backend import get_array_module

Pair = tuple[int, int]


def output_size(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    """Positions of a dilated kernel along one axis: ⌊(size + 2p − d(k−1) − 1) / s⌋ + 1."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def output_shape(input_shape: tuple, kernel_size: Pair, stride: Pair, padding: Pair,
                 dilation: Pair) -> Pair:
    """``(H_out, W_out)`` of a convolution of an input of shape ``(..., H, W)``."""
    height, width = input_shape[-2:]
    return (output_size(height, kernel_size[0], stride[0], padding[0], dilation[0]),
            output_size(width, kernel_size[1], stride[1], padding[1], dilation[1]))


def window(offset: int, count: int, stride: int) -> slice:
    """The ``count`` positions ``offset, offset + stride, ...`` that one kernel tap visits."""
    return slice(offset, offset + stride * (count - 1) + 1, stride)


def pad2d(x: Any, padding: Pair) -> Any:
    """``x`` (..., H, W) with ``padding[0]`` zero rows above and below, ``padding[1]`` columns each side."""
    xp = get_array_module(x)
    ph, pw = padding
    if ph == 0 and pw == 0:
        return x
    height, width = x.shape[-2:]
    padded = xp.zeros(x.shape[:-2] + (height + 2 * ph, width + 2 * pw), dtype=x.dtype)
    padded[..., ph:ph + height, pw:pw + width] = x
    return padded


def crop2d(x: Any, padding: Pair) -> Any:
    """The inverse of :func:`pad2d`: drop ``padding`` rows/columns from each border (a view)."""
    ph, pw = padding
    height, width = x.shape[-2:]
    return x[..., ph:height - ph, pw:width - pw]
