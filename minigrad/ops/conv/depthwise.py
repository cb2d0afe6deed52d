"""Depthwise convolution (one input channel per group, stride 1): kw shifted copies, small products.

Each group sees one input channel c and makes m = C_out / C_in output channels (usually 1). Each
image is held flat, its rows one after another, ``row`` = R numbers each (R = max(W_in, W_out):
the image's own rows when the padding keeps the width, as 'same' does). Output position
p = h·R + w then reads kernel tap (i, j) a flat shift away: s_i = i·d_h·R (whole rows) plus
t_j = j·d_w − p_w (a few columns), from the image with p_h zero rows above and below:

    y_c[p] = Σ_i Σ_j W_c[i, j] · x_c[p + s_i + t_j]

im2col would copy each image kh·kw times, one shifted copy per tap, for products only kh·kw
deep, which run at memory speed; so the default ``'im2col'`` hands such calls here
(``algorithms.is_depthwise`` decides, once per call). Here only the kw column shifts are copied;
the row shifts are read in place, by views whose row i starts s_i later:

    cols_c[j, q] = x_c[q + t_j]                        kw shifted copies of each image
    forward:      Z_c = W_c · cols_c                   (m·kh × kw) · (kw × q)
                  y_c[p] = Σ_i Z_c[i, p + s_i]
    grad_input:   the forward's formula over δ with W_c rotated by 180° (the adjoint of a shift
                  is the opposite shift), δ padded by the kernel's reach d·(k − 1) − p
    grad_weight:  dW_c[i, j] = Σ_q Δ_c[i, q] · cols_c[j, q],   Δ_c[i, q] = δ_c[q − s_i]
                  dW_c = Σ over images of Δ_c · cols_cᵀ   (m·kh × q) · (q × kw), Δ: kh shifted copies of δ

A column shift t_j reads, at a row's first or last columns, the row before or after: those
entries of cols are padding, and are set to 0 (``_columns``). When R > W_out the positions past
W_out in each row come along and are cropped (their δ is 0). The gradients' products also meet
zeros of the padding and of those positions: 0 · x there is 0 unless x (or W, for grad_input)
holds inf or NaN, and then the plain file's ``algo_im2col``, which sums over real positions
only, gives the answer.

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
from minigrad.ops.conv.geometry import Pair, output_shape
from minigrad.performance.parallel import copy_into, parallel_products, product_threads

__all__ = ["forward", "prepare_grad_output", "grad_input", "grad_weight"]

# A block of channels' copies and products take about this much; measured in docs/performance.md,
# "The worst shapes".
COLUMN_BLOCK_BYTES = 4 << 20


class _Flat(NamedTuple):
    """Images (H_in, W_in) held flat in rows of R numbers, seen through a kernel with its padding."""

    row: int          # R = max(W_in, W_out)
    down: int         # d_h·R: one kernel row further down
    shifts: tuple     # t_j = j·d_w − p_w: kernel column j's offset within a row
    top: int          # p_h: zero rows above the image (and as many below)
    rows: int         # H_in + 2·p_h = H_out + d_h·(kh − 1): the rows the columns run over
    width: int        # W_in
    h_out: int
    w_out: int


def _flat(size: tuple, kernel_size: Pair, padding: Pair, dilation: Pair) -> _Flat:
    """The flat layout of images of ``size`` (H_in, W_in), and the output's size (stride 1)."""
    height, width = size
    h_out, w_out = output_shape(size, kernel_size, (1, 1), padding, dilation)
    row = max(width, w_out)
    shifts = tuple(j * dilation[1] - padding[1] for j in range(kernel_size[1]))
    return _Flat(row, dilation[0] * row, shifts, padding[0], height + 2 * padding[0], width, h_out, w_out)


def _in_rows(images: Any, row: int) -> Any:
    """``images`` (..., H, W) flat, (..., H·row): each row followed by row − W zeros (a view when row = W)."""
    xp = get_array_module(images)
    height, width = images.shape[-2:]
    if width == row:
        return images.reshape(images.shape[:-2] + (height * row,))
    flat = xp.zeros(images.shape[:-2] + (height, row), dtype=images.dtype)
    copy_into(flat[..., :width], images)
    return flat.reshape(images.shape[:-2] + (height * row,))


def _shifted_copies(image: Any, offsets: list[int], out: Any) -> Any:
    """out[..., k, q] = image[..., q − offsets[k]], and 0 where that is outside the image."""
    length, wide = image.shape[-1], out.shape[-1]
    for k, offset in enumerate(offsets):
        start, stop = min(max(offset, 0), wide), max(min(offset + length, wide), 0)
        out[..., k, :start] = 0
        out[..., k, start:stop] = image[..., start - offset:stop - offset]
        out[..., k, max(start, stop):] = 0
    return out


def _columns(image: Any, f: _Flat, out: Any) -> Any:
    """cols[..., j, q] = x_pad[q + t_j], x_pad the flat image with its p_h zero rows above and below.

    Where tap j reads across a row's end (column (q mod R) + t_j outside 0 .. W_in − 1) the entry
    is padding, so 0: in rows of W_in numbers the read would land in the next or previous row.
    """
    _shifted_copies(image, [f.top * f.row - shift for shift in f.shifts], out)
    rows = out.reshape(out.shape[:-1] + (f.rows, f.row))
    for j, shift in enumerate(f.shifts):
        rows[..., j, :, :min(max(-shift, 0), f.w_out)] = 0              # left of column 0
        rows[..., j, :, max(f.width - shift, 0):f.w_out] = 0             # right of column W_in − 1
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
    """Z_c = W_c · cols_c, y_c[p] = Σ_i Z_c[i, p + s_i]; returns ``(y, x in rows)`` (for ``grad_weight``)."""
    xp = get_array_module(x)
    n, c = x.shape[:2]
    c_out, _, kh, kw = weight.shape
    m = c_out // c
    f = _flat(x.shape[2:], (kh, kw), padding, dilation)
    wide = f.rows * f.row                                    # Z's row i is read up to s_i further on
    image = _in_rows(x.transpose(1, 0, 2, 3), f.row)         # (C, N, H_in·R)
    w_c = weight.reshape(c, 1, m * kh, kw)
    out = xp.empty((c, m, n, f.h_out * f.row), dtype=x.dtype)

    def block(channels: slice, cols: Any, z: Any) -> None:
        _columns(image[channels], f, out=cols)                               # cols_c[j, q] = x_c[q + t_j]
        xp.matmul(w_c[channels], cols, out=z)                                # Z_c = W_c · cols_c
        y_c = out[channels].transpose(0, 2, 1, 3)
        _sum_shifted_rows(z, kh, f.down, out=y_c)                            # y_c[p] = Σ_i Z_c[i, p + s_i]

    _by_blocks(c, [(n, kw, wide), (n, m * kh, wide)], x.dtype, xp, block)
    y = out.reshape(c_out, n, f.h_out, f.row)[..., :f.w_out]     # whole rows when R = W_out ('same')
    return y.transpose(1, 0, 2, 3), image


def prepare_grad_output(grad_out: Any, weight_shape: tuple, stride: Pair, groups: int) -> Any:
    """δ as it is: both gradients below lay it out in rows of their own."""
    return grad_out


def _by_channel(grad_out: Any, c: int) -> Any:
    """δ (N, C·m, H_out, W_out) as a (C, N, m, H_out, W_out) view."""
    n, c_out, h_out, w_out = grad_out.shape
    return grad_out.reshape(n, c, c_out // c, h_out, w_out).transpose(1, 0, 2, 3, 4)


def grad_input(grad_out: Any, weight: Any, input_shape: tuple, stride: Pair, padding: Pair, dilation: Pair,
               groups: int) -> Any:
    """dx_c: the forward's formula over δ with W_c rotated by 180°, δ padded by the kernel's reach
    that the forward's padding did not cover, d·(k − 1) − p (a negative one: cropped from dx)."""
    xp = get_array_module(grad_out)
    n, c, height, width = input_shape
    c_out, _, kh, kw = weight.shape
    m = c_out // c
    if not bool(xp.isfinite(weight).all()):       # perhaps inf · 0: see the module's docstring
        return algo_im2col.grad_input(grad_out, weight, input_shape, stride, padding, dilation, groups)
    reach = [dilation[a] * (weight.shape[2 + a] - 1) - padding[a] for a in (0, 1)]
    pad = (max(reach[0], 0), max(reach[1], 0))
    g = _flat(grad_out.shape[2:], (kh, kw), pad, dilation)    # its output: dx, framed by max(−reach, 0)
    wide = g.rows * g.row
    delta = _in_rows(_by_channel(grad_out, c), g.row)         # (C, N, m, H_out·R)
    # rot180(W)_c as a (kh × m·kw) matrix, its columns in cols(δ)'s order (k, j); a copy, as the
    # flipped view's negative strides would keep the BLAS out of the product.
    rotated = weight.reshape(c, m, kh, kw)[:, :, ::-1, ::-1].transpose(0, 2, 1, 3)
    rotated = xp.ascontiguousarray(rotated).reshape(c, 1, kh, m * kw)
    grad = xp.empty((c, n, 1, g.h_out * g.row), dtype=grad_out.dtype)

    def block(channels: slice, cols: Any, z: Any) -> None:
        _columns(delta[channels], g, out=cols)                               # cols(δ)[k, j, q] = δ_k[q + t_j]
        xp.matmul(rotated[channels], cols.reshape(z.shape[:2] + (m * kw, wide)), out=z)   # Z_c
        _sum_shifted_rows(z, kh, g.down, out=grad[channels])                 # dx_c[p] = Σ_i Z_c[i, p + s_i]

    _by_blocks(c, [(n, m, kw, wide), (n, kh, wide)], grad_out.dtype, xp, block)
    top, left = pad[0] - reach[0], pad[1] - reach[1]
    image = grad.reshape(c, n, g.h_out, g.row)[..., top:top + height, left:left + width]
    return image.transpose(1, 0, 2, 3)


def grad_weight(x: Any, grad_out: Any, weight_shape: tuple, stride: Pair, padding: Pair, dilation: Pair,
                groups: int, saved: Any = None) -> Any:
    """dW_c = Σ over images of Δ_c · cols_cᵀ, Δ_c[i, q] = δ_c[q − s_i]; ``saved``: the forward's x in rows."""
    xp = get_array_module(grad_out)
    n, c = x.shape[:2]
    c_out, _, kh, kw = weight_shape
    m = c_out // c
    f = _flat(x.shape[2:], (kh, kw), padding, dilation)
    wide = f.rows * f.row                                     # q, as in the forward's columns
    image = _in_rows(x.transpose(1, 0, 2, 3), f.row) if saved is None else saved
    delta = _in_rows(_by_channel(grad_out, c), f.row)         # δ in the columns' rows (zeros past W_out)
    grad_w = xp.empty((c, m, kh, kw), dtype=grad_out.dtype)
    row_shifts = [i * f.down for i in range(kh)]              # s_i

    def block(channels: slice, cols: Any, shifted: Any) -> None:
        _columns(image[channels], f, out=cols)                               # cols_c[j, q] = x_c[q + t_j]
        _shifted_copies(delta[channels], row_shifts, out=shifted)            # Δ_c[i, q] = δ_c[q − s_i]
        products = xp.matmul(shifted.reshape(cols.shape[:2] + (m * kh, wide)), cols.transpose(0, 1, 3, 2))
        xp.sum(products, axis=1, out=grad_w[channels].reshape(-1, m * kh, kw))   # dW_c = Σ_n Δ_c · cols_cᵀ

    _by_blocks(c, [(n, kw, wide), (n, m, kh, wide)], grad_out.dtype, xp, block)
    if not bool(xp.isfinite(grad_w).all()):       # perhaps 0 · inf: see the module's docstring
        return algo_im2col.grad_weight(x, grad_out, weight_shape, stride, padding, dilation, groups)
    return grad_w.reshape(tuple(weight_shape))
