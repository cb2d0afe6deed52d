"""``'im2col_tuned'``: ``algo_im2col.py``'s formulas in cache-sized bands. Read that file first.

Same products, same columns, same numbers; what differs is only how the work is laid out
for the processor (measurements and how to rerun them: docs/performance.md, "Convolution").
The default ``'im2col'`` hands it the layers whose column matrix would pass
``algorithms.BANDED_FROM_BYTES``; any layer runs it with ``algorithm='im2col_tuned'`` or
``conv_algorithm('im2col_tuned')``.

- **Bands.** The products run in bands of output rows. Every column (h, w, n) of them
  belongs to one output row h, so each formula holds band by band: Y's columns of a band
  need only that band's columns, and dW sums over the bands. A band's columns (about
  ``BAND_BYTES``) are made, multiplied and dropped while they are still in the cache;
  the whole column matrix would go out to memory and be read back. Bands are a handful of
  cache-sized blocks per layer, not a loop over pixels.
- **Kept columns.** A layer whose columns are one small band keeps them from the forward
  for ``grad_weight``, instead of making them again.
- **Memory layout.** As the default: the input is moved to (C, H, W, N) memory once
  (``im2col.padded_source``), δ likewise, once for both gradients (``prepare_grad_output``, the
  default's), and the output is handed on as an NCHW view of the product's (C, H, W, N) result.
- **Threads.** One set of threads: the BLAS held to one thread, minigrad's pool runs the work
  (``performance/parallel.py``), in one of two ways chosen per call by :func:`_threads`. Whole
  bands: each thread makes its band's columns and multiplies them, so they stay in its core's
  cache (``parallel.parallel_products``); the forward cuts the output rows between the threads,
  the two gradients cut the input channels (or the groups), every thread going through the same
  bands as one thread would (``grad_weight`` of a layer with fewer input channels than threads
  cuts the output rows, each thread summing a partial dW of its own). Otherwise (thin products,
  small layers) each product is cut between the threads (``parallel.matmul``) and the copies in
  pieces over channels (``im2col.py``), as the default does. On one thread, or a GPU, neither applies.
  The results equal one thread's up to rounding: the BLAS may round a product cut in pieces
  differently in the last bit; on a given thread count they are the same on every run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from minigrad.backend import get_array_module
from minigrad.ops.conv.algo_im2col import grouped_delta, per_group, prepare_grad_output
from minigrad.ops.conv.geometry import Pair, output_shape
from minigrad.ops.conv.im2col import col2im_rows, im2col_rows, interior, padded_source
from minigrad.performance import parallel

__all__ = ["forward", "prepare_grad_output", "grad_input", "grad_weight"]

# Small enough to stay in the cache between im2col and the product, big enough for efficient
# products (the sizes tried: docs/performance.md).
BAND_BYTES = 3 * 1024 * 1024
# Columns this small are kept for grad_weight rather than made again (docs/performance.md).
KEPT_COLUMNS_BYTES = BAND_BYTES * 3 // 2
# When whole bands run on the pool's threads (each thread its band's im2col and product) rather than
# each product and copy cut between them: columns at least this wide (C_in/G·kh·kw rows per group;
# a thin product is cut better along its summed axis) and a column matrix at least this big
# (docs/performance.md, "One set of threads").
POOL_MIN_WIDTH = 27
POOL_MIN_BYTES = 1 << 20


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


def _threads(xp: Any, width: int, column_bytes: int, units: int) -> int:
    """How many of the pool's threads run this call's bands, the BLAS on one thread; 1: each product
    and copy is cut between the threads instead (``parallel.matmul``, ``im2col.py``).
    ``width``: rows of a group's column matrix (C_in/G·kh·kw); ``units``: how many pieces the
    work can be cut into."""
    threads = parallel.product_threads(xp)
    if threads == 1 or units < 2 or width < POOL_MIN_WIDTH or column_bytes < POOL_MIN_BYTES:
        return 1
    return threads


def _parts(first: int, last: int, groups: int, c_in: int, taps: int) -> tuple[slice, slice, slice]:
    """The gradients' share ``first:last`` of the work: whole groups, or input channels of a single group.

    Returns (groups, rows of a group's column matrix, input channels) that the share covers.
    """
    if groups > 1:
        per_group_channels = c_in // groups
        return slice(first, last), slice(None), slice(first * per_group_channels, last * per_group_channels)
    return slice(None), slice(first * taps, last * taps), slice(first, last)


def _in_parts(xp: Any, work: Callable[[int, int], None], groups: int, c_in: int, width: int,
              column_bytes: int) -> None:
    """``work(first, last)`` over the gradients' shares (groups, or channels): on the pool's threads,
    each share's copies and products on its own thread, or all at once with each product and copy
    cut between the threads."""
    units = groups if groups > 1 else c_in
    if _threads(xp, width, column_bytes, units) > 1:
        parallel.parallel_products(units, work)
    else:
        work(0, units)


def _grouped_weight(weight: Any, groups: int) -> Any:
    """(C_out, C_in/G, kh, kw) -> (G, C_out/G, C_in/G·kh·kw)."""
    return per_group(weight.reshape(weight.shape[0], -1), groups)


def forward(x: Any, weight: Any, stride: Pair, padding: Pair, dilation: Pair, groups: int) -> tuple:
    """Y_g = W_g · cols_g for all groups, band by band; returns ``(out (N, C_out, H_out, W_out), saved)``.

    ``saved`` is ``(padded input, columns)`` for ``grad_weight``: the columns when they were
    one band of at most ``KEPT_COLUMNS_BYTES``, else None, and ``grad_weight`` makes them again.
    On the pool, each thread computes a range of output rows (each column of Y is the same
    product whichever band it is in).
    """
    xp = get_array_module(x)
    n, itemsize = x.shape[0], x.dtype.itemsize
    c_out, _, kh, kw = weight.shape
    h_out, w_out = output_shape(x.shape, (kh, kw), stride, padding, dilation)
    source = padded_source(x, padding)
    w_g = _grouped_weight(weight, groups)
    column_rows = w_g.shape[2] * groups
    out = xp.empty((groups, c_out // groups, h_out * w_out * n), dtype=x.dtype)
    column_bytes = column_rows * h_out * w_out * n * itemsize
    keep = len(_bands(xp, h_out, column_rows, w_out, n, itemsize)) == 1 and column_bytes <= KEPT_COLUMNS_BYTES
    kept_cols = xp.empty((column_rows, h_out * w_out * n), dtype=x.dtype) if keep else None

    def output_rows(first: int, last: int) -> None:
        for band in _bands(xp, last - first, column_rows, w_out, n, itemsize):
            rows = slice(first + band.start, first + band.stop)
            columns = _columns_of(rows, w_out, n)
            cols = im2col_rows(source, rows, (kh, kw), stride, dilation, w_out,
                               out=None if kept_cols is None else kept_cols[:, columns])
            parallel.matmul(w_g, per_group(cols, groups), out=out[:, :, columns])

    if _threads(xp, w_g.shape[2], column_bytes, h_out) > 1:
        parallel.parallel_products(h_out, output_rows)
    else:
        output_rows(0, h_out)
    # The product is (C, H, W, N); hand out the NCHW view of it instead of a transposed copy.
    return out.reshape(c_out, h_out, w_out, n).transpose(3, 0, 1, 2), (source, kept_cols)


def grad_input(grad_out: Any, weight: Any, input_shape: tuple, stride: Pair, padding: Pair,
               dilation: Pair, groups: int) -> Any:
    """dx = col2im(W_gᵀ · δ_g): every column's gradient added back onto its window, band by band.

    On the pool, each thread takes a range of input channels (or groups): its rows of W_gᵀ · δ_g
    and the col2im onto its own channels, through every band in order, as one thread would.
    """
    xp = get_array_module(grad_out)
    n, c, height, width = input_shape
    kh, kw = weight.shape[2:]
    h_out, w_out = grad_out.shape[2:]
    w_g_t, delta_g = _grouped_weight(weight, groups).transpose(0, 2, 1), grouped_delta(grad_out, groups)
    image = xp.zeros((c, height + 2 * padding[0], width + 2 * padding[1], n), dtype=grad_out.dtype)
    itemsize = grad_out.dtype.itemsize
    bands = _bands(xp, h_out, c * kh * kw, w_out, n, itemsize)

    def share(first: int, last: int) -> None:
        in_groups, group_rows, channels = _parts(first, last, groups, c, kh * kw)
        w_part, delta_part, image_part = w_g_t[in_groups, group_rows], delta_g[in_groups], image[channels]
        for rows in bands:
            grad_cols = parallel.matmul(w_part, delta_part[:, :, _columns_of(rows, w_out, n)])  # (G, K, band)
            grad_cols = grad_cols.reshape(grad_cols.shape[0] * grad_cols.shape[1], grad_cols.shape[2])
            col2im_rows(grad_cols, image_part, rows, (kh, kw), stride, dilation, w_out)

    _in_parts(xp, share, groups, c, w_g_t.shape[1], c * kh * kw * h_out * w_out * n * itemsize)
    return interior(image, padding)


def grad_weight(x: Any, grad_out: Any, weight_shape: tuple, stride: Pair, padding: Pair,
                dilation: Pair, groups: int, saved: Any = None) -> Any:
    """dW_g = δ_g · cols_gᵀ, summed over the bands; ``saved`` is the forward's (padded input, columns).

    On the pool, each thread takes a range of input channels (or groups): their rows of cols, and
    so their rows of dWᵀ, summed over the same bands in the same order as one thread would. With
    fewer channels (or groups) than threads, each thread takes a range of output rows instead and
    sums their bands into a partial dWᵀ of its own (:func:`_grad_weight_by_rows`).
    """
    xp = get_array_module(grad_out)
    n, itemsize = x.shape[0], grad_out.dtype.itemsize
    kernel_size = tuple(weight_shape[2:])
    taps = kernel_size[0] * kernel_size[1]
    h_out, w_out = grad_out.shape[2:]
    source, kept_cols = (padded_source(x, padding), None) if saved is None else saved
    delta_g = grouped_delta(grad_out, groups)
    c_in = weight_shape[1] * groups
    column_rows = c_in * taps
    # Summed as (cols_g · δ_gᵀ)ᵀ, the same numbers, in the orientation BLAS runs faster with the long
    # (h, w, n) axis summed over (docs/performance.md).
    grad_w_t = xp.zeros((groups, column_rows // groups, weight_shape[0] // groups), dtype=grad_out.dtype)

    def bands_of(start: int, stop: int) -> list[slice]:
        """The bands of output rows ``start:stop``."""
        return [slice(start + band.start, start + band.stop)
                for band in _bands(xp, stop - start, column_rows, w_out, n, itemsize)]

    def add_bands(target: Any, in_groups: slice, channels: slice, row_bands: list[slice]) -> None:
        """target += cols_g · δ_gᵀ over ``row_bands``, for the input channels ``channels`` (of the
        groups ``in_groups``); the columns made by ``im2col_rows`` or cut from the kept ones. (In a
        piece on the pool, ``parallel.matmul`` is the plain product.)"""
        delta_part = delta_g[in_groups]
        for rows in row_bands:
            columns = _columns_of(rows, w_out, n)
            if kept_cols is not None:   # the forward kept them only when they were one band
                cols = kept_cols[channels.start * taps:channels.stop * taps, columns]
            else:
                cols = im2col_rows(source[channels], rows, kernel_size, stride, dilation, w_out)
            band_delta = delta_part[:, :, columns].transpose(0, 2, 1)
            target += parallel.matmul(per_group(cols, target.shape[0]), band_delta)

    def share(first: int, last: int) -> None:
        in_groups, group_rows, channels = _parts(first, last, groups, c_in, taps)
        add_bands(grad_w_t[in_groups, group_rows], in_groups, channels, bands_of(0, h_out))

    column_bytes = column_rows * h_out * w_out * n * itemsize
    threads = parallel.product_threads(xp)
    if (groups if groups > 1 else c_in) < threads <= h_out and column_bytes >= POOL_MIN_BYTES:
        def all_channels(target: Any, row_bands: list[slice]) -> None:
            add_bands(target, slice(None), slice(0, c_in), row_bands)

        grad_w_t = _grad_weight_by_rows(all_channels, grad_w_t, bands_of, h_out, threads)
    else:
        _in_parts(xp, share, groups, c_in, column_rows // groups, column_bytes)
    return xp.ascontiguousarray(grad_w_t.transpose(0, 2, 1)).reshape(tuple(weight_shape))


def _grad_weight_by_rows(add_bands: Callable[[Any, list[slice]], None], zeros: Any,
                         bands_of: Callable[[int, int], list[slice]], h_out: int, threads: int) -> Any:
    """dW_gᵀ for a layer with fewer input channels (or groups) than threads, a first layer's one:
    each thread sums the bands of its own range of output rows into a dWᵀ of its own (``zeros``'s
    shape), and the ``threads`` partial sums are added at the end (the same sum in another order:
    equal to one thread's up to rounding). ``add_bands(target, bands)`` adds bands' products."""
    xp = get_array_module(zeros)
    partial = xp.zeros((threads,) + zeros.shape, dtype=zeros.dtype)

    def rows_share(first: int, last: int) -> None:
        for part in range(first, last):   # one part per thread
            add_bands(partial[part], bands_of(h_out * part // threads, h_out * (part + 1) // threads))

    parallel.parallel_products(threads, rows_share)
    return partial.sum(axis=0)
