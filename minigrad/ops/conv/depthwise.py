"""Depthwise convolution (one input channel per group, stride 1): kw shifted copies, small products.

Each group sees one input channel c and makes m = C_out / C_in output channels (usually 1). The
images are held flat, zero padded, their rows (``row`` = W_pad long) one after another, so kernel
tap (i, j) reads the input a flat shift away: s_i = i·d_h·row (whole rows) plus t_j = j·d_w:

    y_c[p] = Σ_i Σ_j W_c[i, j] · x_c[p + s_i + t_j]

im2col would copy each image kh·kw times, one shifted copy per tap, for products only kh·kw
deep, which run at memory speed; so the default ``'im2col'`` hands such calls here
(``algorithms.is_depthwise`` decides, once per call). Here only the kw column shifts are copied;
the row shifts are read in place, by views whose row i starts s_i later:

    cols_c[j, q] = x_c[q + t_j]                        kw shifted copies of each image
    forward:      Z_c = W_c · cols_c                   (m·kh × kw) · (kw × q)
                  y_c[p] = Σ_i Z_c[i, p + s_i]
    grad_input:   the forward over δ framed by the largest shift, with W_c rotated by 180°
                  (the adjoint of a shift is the opposite shift)
    grad_weight:  dW_c[i, j] = Σ_q Δ_c[i, q] · cols_c[j, q],   Δ_c[i, q] = δ_c[q − s_i]
                  dW_c = Σ over images of Δ_c · cols_cᵀ   (m·kh × q) · (q × kw), Δ: kh shifted copies of δ

Every flat position p < H_out·row is computed; the row − W_out positions per row that run off
the edge come along and are cropped (their δ is 0). The gradients' products also meet zeros of
the frame and of those positions: 0 · x there is 0 unless x (or W, for grad_input) holds inf or
NaN, and then the plain file's ``algo_im2col``, which sums over real positions only, gives the answer.

Performance: the copies and products are made for a block of channels at a time (about
``COLUMN_BLOCK_BYTES``), one small product per image, while they are in cache; blocks of channels
run on minigrad's threads (``parallel_products``, ``performance/parallel.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

from minigrad.backend import get_array_module
from minigrad.ops._util import ieee_results
from minigrad.ops.conv import algo_im2col
from minigrad.ops.conv.geometry import Pair
from minigrad.performance.parallel import copy_into, parallel_products, product_threads

__all__ = ["forward", "prepare_grad_output", "grad_input", "grad_weight"]

# A block of channels' copies and products take about this much; measured in docs/performance.md,
# "The worst shapes".
COLUMN_BLOCK_BYTES = 4 << 20


class _Flat(NamedTuple):
    """Where the taps of a flat padded image lie: tap (i, j) is i·down + j·right further on."""

    row: int     # W_pad, one padded image row
    down: int    # d_h·row
    right: int   # d_w
    h_out: int
    w_out: int


def _flat(input_shape: tuple, kernel_size: Pair, padding: Pair, dilation: Pair) -> _Flat:
    """The flat layout of ``input_shape``'s padded images, and the output's size (stride 1)."""
    row = input_shape[3] + 2 * padding[1]
    h_out = input_shape[2] + 2 * padding[0] - dilation[0] * (kernel_size[0] - 1)
    return _Flat(row, dilation[0] * row, dilation[1], h_out, row - dilation[1] * (kernel_size[1] - 1))


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


def _framed_delta(grad_out: Any, c: int, flat: _Flat, kernel_size: Pair) -> Any:
    """δ (N, C·m, H_out, W_out) as (C, N, m, ·): rows ``row`` long (zeros past W_out), preceded by
    ``frame`` zeros (the largest shift, s_(kh−1) + t_(kw−1)), followed by s_(kh−1) more."""
    xp = get_array_module(grad_out)
    n, c_out, h_out, w_out = grad_out.shape
    last_row = flat.down * (kernel_size[0] - 1)
    frame = last_row + flat.right * (kernel_size[1] - 1)
    framed = xp.zeros((c, n, c_out // c, frame + h_out * flat.row + last_row), dtype=grad_out.dtype)
    rows = framed[..., frame:frame + h_out * flat.row].reshape(c, n, c_out // c, h_out, flat.row)
    copy_into(rows[..., :w_out], grad_out.reshape(n, c, c_out // c, h_out, w_out).transpose(1, 0, 2, 3, 4))
    return framed


def _shifted(source: Any, count: int, step: int, out: Any) -> Any:
    """out[..., k, q] = source[..., q + k·step] for k < ``count``: shifted copies, in one copy."""
    xp = get_array_module(source)
    out[...] = xp.lib.stride_tricks.as_strided(
        source, out.shape, source.strides[:-1] + (step * source.itemsize, source.itemsize))
    return out


def _sum_shifted_rows(z: Any, kh: int, step: int, out: Any) -> Any:
    """out[..., r, p] = Σ_i z[..., r·kh + i, p + i·step]: z's rows kh at a time, row i read i·step later."""
    xp = get_array_module(z)
    rows, row_stride, item = z.shape[-2], z.strides[-2], z.itemsize
    view = xp.lib.stride_tricks.as_strided(
        z, z.shape[:-2] + (rows // kh, kh, out.shape[-1]),
        z.strides[:-2] + (kh * row_stride, row_stride + step * item, item))
    return xp.sum(view, axis=-2, out=out)


def _by_blocks(c: int, shapes: list[tuple], dtype: Any, xp: Any, work: Callable[..., None]) -> None:
    """``work(channels, *buffers)`` for blocks of channels, buffer k of shape (block, *shapes[k]).

    Each range of channels (one per thread) makes its buffers once, and each of its blocks
    overwrites them; a block is about ``COLUMN_BLOCK_BYTES`` of buffers.
    """
    channel_bytes = sum(math.prod(shape) for shape in shapes) * xp.dtype(dtype).itemsize
    block = max(1, COLUMN_BLOCK_BYTES // max(channel_bytes, 1))      # an empty batch: one block

    def channels(first: int, last: int) -> None:
        buffers = [xp.empty((min(block, last - first), *shape), dtype=dtype) for shape in shapes]
        for start in range(first, last, block):
            stop = min(start + block, last)
            work(slice(start, stop), *(buffer[:stop - start] for buffer in buffers))

    # Performance: ranges of channels on minigrad's threads, each multiplying, the BLAS held to one thread.
    with ieee_results():                      # inf · 0 is NaN without NumPy's warning, as in PyTorch
        if product_threads(xp) > 1:
            parallel_products(c, channels)
        else:
            channels(0, c)


def forward(x: Any, weight: Any, stride: Pair, padding: Pair, dilation: Pair, groups: int) -> tuple:
    """Z_c = W_c · cols_c, y_c[p] = Σ_i Z_c[i, p + s_i]; returns ``(y, flat x)`` (``grad_weight`` uses it)."""
    xp = get_array_module(x)
    n, c = x.shape[:2]
    c_out, _, kh, kw = weight.shape
    m = c_out // c
    f = _flat(x.shape, (kh, kw), padding, dilation)
    length = f.h_out * f.row
    wide = length + f.down * (kh - 1)                       # Z's row i is read up to s_i further on
    flat = _flat_images(x, padding, extra=f.right * (kw - 1))
    w_c = weight.reshape(c, 1, m * kh, kw)
    out = xp.empty((c, m, n, length), dtype=x.dtype)

    def block(channels: slice, cols: Any, z: Any) -> None:
        _shifted(flat[channels], kw, f.right, out=cols)                      # cols_c[j, q] = x_c[q + t_j]
        xp.matmul(w_c[channels], cols, out=z)                                # Z_c = W_c · cols_c
        y_c = out[channels].transpose(0, 2, 1, 3)
        _sum_shifted_rows(z, kh, f.down, out=y_c)                            # y_c[p] = Σ_i Z_c[i, p + s_i]

    _by_blocks(c, [(n, kw, wide), (n, m * kh, wide)], x.dtype, xp, block)
    y = out.reshape(c_out, n, f.h_out, f.row)[..., :f.w_out]
    return y.transpose(1, 0, 2, 3), flat


def prepare_grad_output(grad_out: Any, weight_shape: tuple, stride: Pair, groups: int) -> Any:
    """δ as it is: both gradients below frame it in rows of their own."""
    return grad_out


def grad_input(grad_out: Any, weight: Any, input_shape: tuple, stride: Pair, padding: Pair, dilation: Pair,
               groups: int) -> Any:
    """dx_c: the forward over δ framed by the largest shift, with W_c rotated by 180°."""
    xp = get_array_module(grad_out)
    n, c, height, width = input_shape
    c_out, _, kh, kw = weight.shape
    m = c_out // c
    if not bool(xp.isfinite(weight).all()):       # perhaps inf · 0: see the module's docstring
        return algo_im2col.grad_input(grad_out, weight, input_shape, stride, padding, dilation, groups)
    f = _flat(input_shape, (kh, kw), padding, dilation)
    length = (height + 2 * padding[0]) * f.row                # every padded position, cropped below
    wide = length + f.down * (kh - 1)
    delta = _framed_delta(grad_out, c, f, (kh, kw))
    # rot180(W)_c as a (kh × m·kw) matrix, its columns in cols(δ)'s order (k, j); a copy, as the
    # flipped view's negative strides would keep the BLAS out of the product.
    rotated = weight.reshape(c, m, kh, kw)[:, :, ::-1, ::-1].transpose(0, 2, 1, 3)
    rotated = xp.ascontiguousarray(rotated).reshape(c, 1, kh, m * kw)
    grad = xp.empty((c, n, 1, length), dtype=grad_out.dtype)

    def block(channels: slice, cols: Any, z: Any) -> None:
        _shifted(delta[channels], kw, f.right, out=cols)                     # cols(δ)[k, j, q] = δ_k[q + t_j]
        xp.matmul(rotated[channels], cols.reshape(z.shape[:2] + (m * kw, wide)), out=z)   # Z_c
        _sum_shifted_rows(z, kh, f.down, out=grad[channels])                 # dx_c[p] = Σ_i Z_c[i, p + s_i]

    _by_blocks(c, [(n, m, kw, wide), (n, kh, wide)], grad_out.dtype, xp, block)
    image = grad.reshape(c, n, height + 2 * padding[0], f.row)
    return image[..., padding[0]:padding[0] + height, padding[1]:padding[1] + width].transpose(1, 0, 2, 3)


def grad_weight(x: Any, grad_out: Any, weight_shape: tuple, stride: Pair, padding: Pair, dilation: Pair,
                groups: int, saved: Any = None) -> Any:
    """dW_c = Σ over images of Δ_c · cols_cᵀ, Δ_c[i, q] = δ_c[q − s_i]; ``saved`` is the forward's flat x."""
    xp = get_array_module(grad_out)
    n, c = x.shape[:2]
    c_out, _, kh, kw = weight_shape
    m = c_out // c
    f = _flat(x.shape, (kh, kw), padding, dilation)
    wide = f.h_out * f.row + f.down * (kh - 1)                # q, as in the forward's columns
    flat = _flat_images(x, padding, extra=f.right * (kw - 1)) if saved is None else saved
    delta = _framed_delta(grad_out, c, f, (kh, kw))
    # Δ's rows are copied last row first (positive steps): row kh−1−i holds δ_c[q − s_i], read
    # from the frame's start less the largest row shift.
    first = f.right * (kw - 1)
    grad_w = xp.empty((c, m, kh, kw), dtype=grad_out.dtype)

    def block(channels: slice, cols: Any, shifted: Any) -> None:
        _shifted(flat[channels], kw, f.right, out=cols)                     # cols_c[j, q] = x_c[q + t_j]
        _shifted(delta[channels, ..., first:], kh, f.down, out=shifted)     # Δ_c, rows last first
        products = xp.matmul(shifted.reshape(cols.shape[:2] + (m * kh, wide)), cols.transpose(0, 1, 3, 2))
        xp.sum(products, axis=1, out=grad_w[channels].reshape(-1, m * kh, kw))   # dW_c = Σ_n Δ_c · cols_cᵀ

    _by_blocks(c, [(n, kw, wide), (n, m, kh, wide)], grad_out.dtype, xp, block)
    if not bool(xp.isfinite(grad_w).all()):       # perhaps 0 · inf: see the module's docstring
        return algo_im2col.grad_weight(x, grad_out, weight_shape, stride, padding, dilation, groups)
    return xp.ascontiguousarray(grad_w[:, :, ::-1]).reshape(tuple(weight_shape))
