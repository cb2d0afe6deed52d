"""The default ``'im2col'``: ``algo_im2col.py``'s formulas, computed faster. Read that file first.

Same products, same columns, same numbers; what differs is only how the work is laid out
for the processor (measurements and how to rerun them: docs/performance.md, "Convolution"):

- **Bands.** The products run in bands of output rows. Every column (h, w, n) of them
  belongs to one output row h, so each formula holds band by band: Y's columns of a band
  need only that band's columns, and dW sums over the bands. A band's columns (about
  ``BAND_BYTES``) are made, multiplied and dropped while they are still in the cache;
  the whole column matrix would go out to memory and be read back. Bands are a handful of
  cache-sized blocks per layer, not a loop over pixels.
- **Kept columns.** A layer whose columns are one small band keeps them from the forward
  for ``grad_weight``, instead of making them again.
- **Memory layout.** The input is moved to (C, H, W, N) memory once (``im2col.padded_source``),
  δ likewise, once for both gradients (``prepare_grad_output``), and the output is handed on
  as an NCHW view of the product's (C, H, W, N) result, without a transposed copy.
- **Threads.** The copies (the layout moves, im2col, col2im) run in pieces over channels on
  minigrad's thread pool (``im2col_threads.py``); the products run on the BLAS's own threads.
- **Depthwise** convolutions (one input channel per group, stride 1) do not come here:
  ``algorithms.algorithm_module`` sends them to ``depthwise.py``, which sums shifted images.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.backend import get_array_module
from minigrad.ops.conv.algo_im2col import per_group
from minigrad.ops.conv.geometry import Pair, output_shape
from minigrad.ops.conv.im2col import interior
from minigrad.ops.conv.im2col_threads import batch_last, col2im_rows, im2col_rows, padded_source

__all__ = ["forward", "prepare_grad_output", "grad_input", "grad_weight"]

# Small enough to stay in the cache between im2col and the product, big enough for efficient
# products (the sizes tried: docs/performance.md).
BAND_BYTES = 3 * 1024 * 1024
# Columns this small are kept for grad_weight rather than made again (docs/performance.md).
KEPT_COLUMNS_BYTES = BAND_BYTES * 3 // 2


def _bands(xp: Any, h_out: int, column_rows: int, w_out: int, n: int, itemsize: int) -> list[slice]:
    """Output rows in bands of about equal height whose column matrices take about ``BAND_BYTES`` each.

    A matrix below 1.5 ``BAND_BYTES`` stays one band; a single row too big is a band of its own.
    On a GPU (CuPy) there is no such cache to fit, and fewer, bigger products are better: one band.
    """
    if xp is not numpy:
        return [slice(0, h_out)]
    row_bytes = column_rows * w_out * n * itemsize
    bands = max(1, min(h_out, (h_out * row_bytes + BAND_BYTES // 2) // BAND_BYTES))
    rows_per_band = -(-h_out // bands)
    return [slice(start, min(start + rows_per_band, h_out)) for start in range(0, h_out, rows_per_band)]


def _columns_of(rows: slice, w_out: int, n: int) -> slice:
    """Where the output rows ``rows`` lie among the (h, w, n) columns of a product."""
    return slice(rows.start * w_out * n, rows.stop * w_out * n)


def _grouped_weight(weight: Any, groups: int) -> Any:
    """(C_out, C_in/G, kh, kw) -> (G, C_out/G, C_in/G·kh·kw)."""
    return per_group(weight.reshape(weight.shape[0], -1), groups)


def _grouped_grad(grad_out: Any, groups: int) -> Any:
    """δ (N, C_out, H_out, W_out) -> (G, C_out/G, L·N), the layout of the forward's product.

    No copy when δ is already in (C, H, W, N) memory order (see ``prepare_grad_output``).
    """
    n, c_out, h_out, w_out = grad_out.shape
    return per_group(batch_last(grad_out).reshape(c_out, h_out * w_out * n), groups)


def prepare_grad_output(grad_out: Any, weight_shape: tuple, stride: Pair, groups: int) -> Any:
    """δ laid out (C, H, W, N) in memory, once, for grad_input and grad_weight to share (same values)."""
    return batch_last(grad_out).transpose(3, 0, 1, 2)


def forward(x: Any, weight: Any, stride: Pair, padding: Pair, dilation: Pair, groups: int) -> tuple:
    """Y_g = W_g · cols_g for all groups, band by band; returns ``(out (N, C_out, H_out, W_out), saved)``.

    ``saved`` is ``(padded input, columns)`` for ``grad_weight``: the columns when they were
    one band of at most ``KEPT_COLUMNS_BYTES``, else None, and ``grad_weight`` makes them again.
    """
    xp = get_array_module(x)
    n = x.shape[0]
    c_out, _, kh, kw = weight.shape
    h_out, w_out = output_shape(x.shape, (kh, kw), stride, padding, dilation)
    source = padded_source(x, padding)
    w_g = _grouped_weight(weight, groups)
    out = xp.empty((groups, c_out // groups, h_out * w_out * n), dtype=x.dtype)
    bands = _bands(xp, h_out, w_g.shape[2] * groups, w_out, n, x.dtype.itemsize)
    for rows in bands:
        cols = im2col_rows(source, rows, (kh, kw), stride, dilation, w_out)
        xp.matmul(w_g, per_group(cols, groups), out=out[:, :, _columns_of(rows, w_out, n)])
    kept_cols = cols if len(bands) == 1 and cols.nbytes <= KEPT_COLUMNS_BYTES else None
    # The product is (C, H, W, N); hand out the NCHW view of it instead of a transposed copy.
    return out.reshape(c_out, h_out, w_out, n).transpose(3, 0, 1, 2), (source, kept_cols)


def grad_input(grad_out: Any, weight: Any, input_shape: tuple, stride: Pair, padding: Pair,
               dilation: Pair, groups: int) -> Any:
    """dx = col2im(W_gᵀ · δ_g): every column's gradient added back onto its window, band by band."""
    xp = get_array_module(grad_out)
    n, c, height, width = input_shape
    kh, kw = weight.shape[2:]
    h_out, w_out = grad_out.shape[2:]
    w_g_t, delta_g = _grouped_weight(weight, groups).transpose(0, 2, 1), _grouped_grad(grad_out, groups)
    image = xp.zeros((c, height + 2 * padding[0], width + 2 * padding[1], n), dtype=grad_out.dtype)
    for rows in _bands(xp, h_out, c * kh * kw, w_out, n, grad_out.dtype.itemsize):
        grad_cols = xp.matmul(w_g_t, delta_g[:, :, _columns_of(rows, w_out, n)])      # (G, K, band)
        grad_cols = grad_cols.reshape(c * kh * kw, grad_cols.shape[2])
        col2im_rows(grad_cols, image, rows, (kh, kw), stride, dilation, w_out)
    return interior(image, padding)


def grad_weight(x: Any, grad_out: Any, weight_shape: tuple, stride: Pair, padding: Pair,
                dilation: Pair, groups: int, saved: Any = None) -> Any:
    """dW_g = δ_g · cols_gᵀ, summed over the bands; ``saved`` is the forward's (padded input, columns)."""
    xp = get_array_module(grad_out)
    n = x.shape[0]
    kernel_size = tuple(weight_shape[2:])
    h_out, w_out = grad_out.shape[2:]
    source, kept_cols = (padded_source(x, padding), None) if saved is None else saved
    delta_g = _grouped_grad(grad_out, groups)
    column_rows = weight_shape[1] * groups * kernel_size[0] * kernel_size[1]
    # Summed as (cols_g · δ_gᵀ)ᵀ, the same numbers, in the orientation BLAS runs faster with the long
    # (h, w, n) axis summed over (docs/performance.md).
    grad_w_t = xp.zeros((groups, column_rows // groups, weight_shape[0] // groups), dtype=grad_out.dtype)
    bands = _bands(xp, h_out, column_rows, w_out, n, grad_out.dtype.itemsize)
    for rows in bands:
        if kept_cols is not None:   # the forward kept them only when they were this one band
            cols = kept_cols
        else:
            cols = im2col_rows(source, rows, kernel_size, stride, dilation, w_out)
        band_delta = delta_g[:, :, _columns_of(rows, w_out, n)]
        grad_w_t += xp.matmul(per_group(cols, groups), band_delta.transpose(0, 2, 1))
    return xp.ascontiguousarray(grad_w_t.transpose(0, 2, 1)).reshape(tuple(weight_shape))
