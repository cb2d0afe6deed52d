"""Depthwise convolution (one input channel per group, stride 1): im2col's products, a few channels at a time.

Each group sees one input channel c and makes m = C_out / C_in output channels (usually 1), so
im2col's formulas hold channel by channel, with columns of channel c only (one row per kernel tap):

    cols_c[(i, j), p] = x_pad[c, p + shift(i, j)]
    forward:      Y_c  = W_c · cols_c                 (m × kh·kw) · (kh·kw × L)
    grad_weight:  dW_c = δ_c · cols_cᵀ
    grad_input:   dx_c = rot180(W)_c · cols(δ framed)_c, the forward's product over δ framed by
                  the largest shift, with the kernel rotated by 180° (the adjoint of a shift is
                  the opposite shift)

Why a file of its own: the whole column matrix (kh·kw times the input) would go out to memory
and come back for products only kh·kw deep, which BLAS runs at memory speed. So the default
``'im2col'`` hands such calls here (``algorithms.is_depthwise`` decides, once per call), and the
columns are made for a block of channels at a time (about ``COLUMN_BLOCK_BYTES``), used by one
batched product while they are still in cache, and overwritten by the next block's.

Flat images: the input is held channel-major, (C, N, H_pad·W_pad), each image padded and
flattened rows after one another, so tap (i, j) is the flat shift i·d_h·W_pad + j·d_w and a
tap's row of columns is one contiguous run of each image. Every flat position p < H_out·W_pad
is computed; the W_pad − W_out positions per row that run off the edge come along and are
cropped (their δ is 0).

Blocks of channels run on minigrad's threads (``parallel_products``, ``performance/parallel.py``):
the same products, in the same order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from minigrad.backend import get_array_module
from minigrad.ops.conv.geometry import Pair
from minigrad.performance.parallel import copy_into, parallel_products, product_threads

__all__ = ["forward", "prepare_grad_output", "grad_input", "grad_weight"]

# Columns made for a block of channels of about this size, then used while in cache
# (measured in docs/performance.md, "The worst shapes").
COLUMN_BLOCK_BYTES = 4 << 20


def _flat_images(x: Any, padding: Pair, extra: int) -> Any:
    """x (N, C, H, W) zero padded, channel-major, each image flattened: (C, N, H_pad·W_pad + extra)."""
    xp = get_array_module(x)
    n, c, height, width = x.shape
    ph, pw = padding
    padded_h, padded_w = height + 2 * ph, width + 2 * pw
    flat = xp.zeros((c, n, padded_h * padded_w + extra), dtype=x.dtype)
    # Splitting the contiguous last axis is always a view (NumPy and CuPy), so the write goes through.
    image = flat[..., :padded_h * padded_w].reshape(c, n, padded_h, padded_w)
    copy_into(image[..., ph:ph + height, pw:pw + width], x.transpose(1, 0, 2, 3))
    return flat


def _taps(kernel_size: Pair, dilation: Pair, row: int) -> tuple[Pair, Pair]:
    """Kernel tap (i, j) lies at the flat shift i·d_h·row + j·d_w: ``((kh, kw), (d_h·row, d_w))``."""
    return (kernel_size[0], kernel_size[1]), (dilation[0] * row, dilation[1])


def _by_blocks(flat: Any, taps: tuple[Pair, Pair], length: int,
               product: Callable[[slice, Any], None]) -> None:
    """``product(channels, cols)`` per block of channels; cols[c, (…, i, j), (n, p)] = flat[c, …, n, p + s].

    ``flat`` is (C, …, N, P); tap (i, j) lies at s = i·step_h + j·step_w (``taps`` is ``_taps``'s).
    A block's columns, (block, …·kh·kw, N·length), are made in one buffer that each block
    overwrites, by one copy from a view of ``flat`` whose (i, j) axes step by the taps' shifts
    (one call, not one per tap: two threads copying at once wait less on each other for Python's lock).
    """
    xp = get_array_module(flat)
    (kh, kw), steps = taps
    c, middle = flat.shape[0], flat.shape[1:-1]
    rows = math.prod(middle[:-1]) * kh * kw                       # (…, taps)
    channel_bytes = kh * kw * length * flat[0, ..., 0].size * flat.itemsize
    block = max(1, COLUMN_BLOCK_BYTES // max(channel_bytes, 1))   # an empty batch: one block
    tap_strides = tuple(step * flat.itemsize for step in steps)

    def channels(first: int, last: int) -> None:
        shape = (min(block, last - first), *middle[:-1], kh, kw, middle[-1], length)
        buffer = xp.empty(shape, dtype=flat.dtype)
        for start in range(first, last, block):
            stop = min(start + block, last)
            cols, part = buffer[:stop - start], flat[start:stop]
            cols[...] = xp.lib.stride_tricks.as_strided(
                part, cols.shape, part.strides[:-2] + tap_strides + part.strides[-2:])
            product(slice(start, stop), cols.reshape(stop - start, rows, middle[-1] * length))

    # Performance: ranges of channels on minigrad's threads, each multiplying, the BLAS held to one thread.
    if product_threads(xp) > 1:
        parallel_products(c, channels)
    else:
        channels(0, c)


def forward(x: Any, weight: Any, stride: Pair, padding: Pair, dilation: Pair, groups: int) -> tuple:
    """Y_c = W_c · cols_c; returns ``(out, flattened padded x)``, the latter for ``grad_weight``."""
    n, c, height, width = x.shape
    c_out, _, kh, kw = weight.shape
    row = width + 2 * padding[1]
    h_out, w_out = height + 2 * padding[0] - dilation[0] * (kh - 1), row - dilation[1] * (kw - 1)
    xp = get_array_module(x)
    flat = _flat_images(x, padding, extra=dilation[1] * (kw - 1))
    w_c = weight.reshape(c, c_out // c, kh * kw)
    out = xp.empty((c, c_out // c, n * h_out * row), dtype=x.dtype)

    def product(channels: slice, cols: Any) -> None:
        xp.matmul(w_c[channels], cols, out=out[channels])                  # Y_c = W_c · cols_c

    _by_blocks(flat, _taps((kh, kw), dilation, row), h_out * row, product)
    y = out.reshape(c_out, n, h_out, row)[..., :w_out]
    return y.transpose(1, 0, 2, 3), flat


def _delta_rows(grad_out: Any, c: int, row: int, before: int, after: int) -> Any:
    """δ (N, C·m, H_out, W_out) as (C, m, N, before + H_out·W_pad + after): rows W_pad long, zeros around."""
    xp = get_array_module(grad_out)
    n, c_out, h_out, w_out = grad_out.shape
    flat = xp.zeros((c, c_out // c, n, before + h_out * row + after), dtype=grad_out.dtype)
    rows = flat[..., before:before + h_out * row].reshape(c, c_out // c, n, h_out, row)
    copy_into(rows[..., :w_out], grad_out.transpose(1, 0, 2, 3).reshape(c, c_out // c, n, h_out, w_out))
    return flat


def prepare_grad_output(grad_out: Any, weight_shape: tuple, stride: Pair, groups: int) -> Any:
    """δ as it is: both gradients below copy it into rows of their own."""
    return grad_out


def grad_input(grad_out: Any, weight: Any, input_shape: tuple, stride: Pair, padding: Pair, dilation: Pair,
               groups: int) -> Any:
    """dx_c = rot180(W)_c · cols(δ framed)_c: the forward's product over δ framed by the largest shift."""
    xp = get_array_module(grad_out)
    n, c, height, width = input_shape
    c_out, _, kh, kw = weight.shape
    row, padded_h = width + 2 * padding[1], height + 2 * padding[0]
    frame = dilation[0] * (kh - 1) * row + dilation[1] * (kw - 1)          # the largest shift
    delta = _delta_rows(grad_out, c, row, before=frame, after=padded_h * row - grad_out.shape[2] * row)
    # A copy: the flipped view's negative strides would keep the BLAS out of the product.
    flipped = weight.reshape(c, 1, c_out // c, kh, kw)[..., ::-1, ::-1]
    rotated = xp.ascontiguousarray(flipped).reshape(c, 1, -1)
    grad = xp.empty((c, 1, n * padded_h * row), dtype=grad_out.dtype)

    def product(channels: slice, cols: Any) -> None:
        xp.matmul(rotated[channels], cols, out=grad[channels])          # dx_c = rot180(W)_c · cols(δ)_c

    _by_blocks(delta, _taps((kh, kw), dilation, row), padded_h * row, product)
    image = grad.reshape(c, n, padded_h, row)
    return image[..., padding[0]:padding[0] + height, padding[1]:padding[1] + width].transpose(1, 0, 2, 3)


def grad_weight(x: Any, grad_out: Any, weight_shape: tuple, stride: Pair, padding: Pair, dilation: Pair,
                groups: int, saved: Any = None) -> Any:
    """dW_c = δ_c · cols_cᵀ; ``saved`` is the forward's flattened padded x."""
    xp = get_array_module(grad_out)
    n, c, height, width = x.shape
    c_out, _, kh, kw = weight_shape
    row = width + 2 * padding[1]
    flat = _flat_images(x, padding, extra=dilation[1] * (kw - 1)) if saved is None else saved
    delta = _delta_rows(grad_out, c, row, before=0, after=0)                 # (C, m, N, H_out·W_pad)
    delta = delta.reshape(c, c_out // c, -1)
    grad_w = xp.empty((c, c_out // c, kh * kw), dtype=grad_out.dtype)

    def product(channels: slice, cols: Any) -> None:
        xp.matmul(delta[channels], cols.transpose(0, 2, 1), out=grad_w[channels])   # dW_c = δ_c · cols_cᵀ

    _by_blocks(flat, _taps((kh, kw), dilation, row), grad_out.shape[2] * row, product)
    return grad_w.reshape(tuple(weight_shape))
