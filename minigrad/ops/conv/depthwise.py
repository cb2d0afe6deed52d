"""Depthwise convolution (one input channel per group, stride 1): sums of shifted, scaled images.

When each group sees a single input channel, im2col's per-group products are
(m × kh·kw)·(kh·kw × N·L) with m = C_out / C_in tiny (usually 1): too thin for BLAS,
while the column buffer is kh·kw times the input. So the default ``'im2col'`` hands such
calls here (``algorithms.is_depthwise`` decides, once per call), and the kernel taps
are summed directly, as depthwise kernels in production libraries do:

    forward:      y[n, c·m + o]     = Σ_{i,j} W[c·m + o, 0, i, j] · x_pad[n, c, h + i·d, w + j·d]
    grad_weight:  dW[c·m + o, 0, i, j] = Σ_{n,h,w} δ[n, c·m + o, h, w] · x_pad[n, c, h + i·d, w + j·d]
    grad_input:   the same sum as the forward, run over δ framed by d·(k−1) zeros, with the
                  kernel rotated by 180° (the adjoint of a shift is the opposite shift)

How it stays fast in NumPy: each image is flattened, rows after one another, so the
tap (i, j) is the flat shift i·d·W_pad + j·d. Evaluated at every flat position (the
W_pad − W_out positions per row that run off the edge come along and are cropped;
their δ is 0), a tap is one long contiguous run instead of H_out short rows, and for
each kernel column j one ``einsum`` sums the kh row-shifts while each image line is
still in cache.

Every output channel needs one input channel only, so the work is cut over channels and the
pieces run on minigrad's threads (``minigrad/performance/parallel.py``): the same sums, in the same order.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.ops.conv.geometry import Pair
from minigrad.performance.parallel import copy_into, parallel_for

__all__ = ["forward", "prepare_grad_output", "grad_input", "grad_weight"]


def _flat_images(x: Any, padding: Pair, extra: int) -> Any:
    """x (N, C, H, W) zero padded, each image flattened: (N, C, H_pad·W_pad + extra)."""
    xp = get_array_module(x)
    n, c, height, width = x.shape
    ph, pw = padding
    padded_h, padded_w = height + 2 * ph, width + 2 * pw
    flat = xp.zeros((n, c, padded_h * padded_w + extra), dtype=x.dtype)
    # Splitting the contiguous last axis is always a view (NumPy and CuPy), so the write goes through.
    image = flat[..., :padded_h * padded_w].reshape(n, c, padded_h, padded_w)
    copy_into(image[..., ph:ph + height, pw:pw + width], x)
    return flat


def _row_shifts(flat: Any, kernel_size: Pair, dilation: Pair, row: int) -> Any:
    """View (..., P, kh) of ``flat`` (..., L): entry [..., p, i] = flat[..., p + i·d·row] (no copy).

    Kernel column j then takes positions ``j·d ...`` of it: the tap (i, j) is the shift i·d·row + j·d.
    """
    xp = get_array_module(flat)
    extent = dilation[0] * row * (kernel_size[0] - 1) + 1
    windows = xp.lib.stride_tricks.sliding_window_view(flat, extent, axis=-1)
    return windows[..., ::dilation[0] * row]


def _sum_of_shifts(flat: Any, scale: Any, length: int, kernel_size: Pair, dilation: Pair, row: int,
                   subscripts: str, out: Any) -> Any:
    """Σ_{i,j} scale[c, ..., i, j] · flat[:, c, ..., p + i·d·row + j·d] for p < length, contracted as
    ``subscripts`` into ``out``; channel c's sum needs only channel c, so ranges of channels run
    on minigrad's threads.

    One einsum per kernel column j sums its kh row-shifts (the view's last axis, i).
    """
    xp = get_array_module(flat)
    shifts = _row_shifts(flat, kernel_size, dilation, row)

    def channels(first: int, last: int) -> None:
        total = out[:, first:last]
        for j in range(kernel_size[1]):
            start = j * dilation[1]
            column = shifts[:, first:last, ..., start:start + length, :]
            term = xp.einsum(subscripts, column, scale[first:last, ..., j])  # CuPy's einsum takes no out=
            if j == 0:
                total[...] = term
            else:
                total += term

    c = scale.shape[0]
    parallel_for(xp, c, kernel_size[0] * kernel_size[1] * (flat.nbytes + out.nbytes) // c, channels)
    return out


def forward(x: Any, weight: Any, stride: Pair, padding: Pair, dilation: Pair, groups: int) -> tuple:
    """y = Σ_taps W[:, tap] · shifted x_pad; returns ``(out, flattened padded x)``."""
    n, c, height, width = x.shape
    c_out, _, kh, kw = weight.shape
    row = width + 2 * padding[1]
    h_out, w_out = height + 2 * padding[0] - dilation[0] * (kh - 1), row - dilation[1] * (kw - 1)
    xp = get_array_module(x)
    flat = _flat_images(x, padding, extra=dilation[1] * (kw - 1))
    scale = weight.reshape(c, c_out // c, kh, kw)
    out = xp.empty((n, c, c_out // c, h_out * row), dtype=x.dtype)
    _sum_of_shifts(flat, scale, h_out * row, (kh, kw), dilation, row, "ncpi,cmi->ncmp", out)
    return out.reshape(n, c_out, h_out, row)[..., :w_out], flat


def _delta_rows(grad_out: Any, c: int, row: int, before: int, after: int) -> Any:
    """δ (N, C·m, H_out, W_out) as (N, C, m, before + H_out·W_pad + after): rows W_pad long, zeros around."""
    xp = get_array_module(grad_out)
    n, c_out, h_out, w_out = grad_out.shape
    flat = xp.zeros((n, c, c_out // c, before + h_out * row + after), dtype=grad_out.dtype)
    rows = flat[..., before:before + h_out * row].reshape(n, c, c_out // c, h_out, row)
    copy_into(rows[..., :w_out], grad_out.reshape(n, c, c_out // c, h_out, w_out))
    return flat


def prepare_grad_output(grad_out: Any, weight_shape: tuple, stride: Pair, groups: int) -> Any:
    """δ as it is: both gradients below copy it into rows of their own."""
    return grad_out


def grad_input(grad_out: Any, weight: Any, input_shape: tuple, stride: Pair, padding: Pair, dilation: Pair,
               groups: int) -> Any:
    """dx_pad[p] = Σ_taps W[tap] · δ[p − shift(tap)] = the forward's sum over framed δ with rot180(W)."""
    xp = get_array_module(grad_out)
    n, c, height, width = input_shape
    c_out, _, kh, kw = weight.shape
    row, padded_h = width + 2 * padding[1], height + 2 * padding[0]
    frame = dilation[0] * (kh - 1) * row + dilation[1] * (kw - 1)          # the largest shift
    delta = _delta_rows(grad_out, c, row, before=frame, after=padded_h * row - grad_out.shape[2] * row)
    rotated = weight.reshape(c, c_out // c, kh, kw)[..., ::-1, ::-1]
    grad = xp.empty((n, c, padded_h * row), dtype=grad_out.dtype)
    _sum_of_shifts(delta, rotated, padded_h * row, (kh, kw), dilation, row, "ncmpi,cmi->ncp", grad)
    image = grad.reshape(n, c, padded_h, row)
    return image[..., padding[0]:padding[0] + height, padding[1]:padding[1] + width]


def grad_weight(x: Any, grad_out: Any, weight_shape: tuple, stride: Pair, padding: Pair, dilation: Pair,
                groups: int, saved: Any = None) -> Any:
    """dW[c·m + o, 0, i, j] = Σ δ · shifted x_pad; ``saved`` is the forward's flattened padded x."""
    xp = get_array_module(grad_out)
    n, c, height, width = x.shape
    c_out, _, kh, kw = weight_shape
    row = width + 2 * padding[1]
    flat = _flat_images(x, padding, extra=dilation[1] * (kw - 1)) if saved is None else saved
    delta = _delta_rows(grad_out, c, row, before=0, after=0)                  # (N, C, m, H_out·W_pad)
    length = delta.shape[-1]
    grad_w = xp.empty((c, c_out // c, kh, kw), dtype=grad_out.dtype)
    shifts = _row_shifts(flat, (kh, kw), dilation, row)                          # (N, C, P, kh)

    def channels(first: int, last: int) -> None:   # channel c's dW needs only channel c
        for j in range(kw):
            column = shifts[:, first:last, j * dilation[1]:j * dilation[1] + length, :]
            grad_w[first:last, ..., j] = xp.einsum("ncmp,ncpi->cmi", delta[:, first:last], column)

    parallel_for(xp, c, kh * kw * (flat.nbytes + delta.nbytes) // c, channels)
    return grad_w.reshape(tuple(weight_shape))
