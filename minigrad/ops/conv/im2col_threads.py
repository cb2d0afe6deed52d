"""Performance machinery: ``im2col.py``'s copies for the tuned driver, in pieces on minigrad's threads.

``algo_im2col_tuned.py`` uses these in place of ``im2col.py``'s helpers of the same names; they
compute the same arrays, bit for bit. Every copy here is cut over channels: channel c of the
(C, H, W, N) image fills rows (c, i, j) of the columns — one contiguous block of rows — and
col2im adds those rows back onto channel c only. (im2col of an input with few channels is cut
over output rows instead; col2im never is: overlapping windows of different output rows add
onto the same pixels.) So ``parallel_for`` (``minigrad/performance/parallel.py``)
can hand each thread a range of channels and no two threads touch the same numbers. The plain
path (``algo_im2col.py``) uses ``im2col.py`` directly, on one thread; so does each thread of the
tuned driver when it runs whole bands on the pool (its products there need the copies on the
same thread, next to them).
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.ops.conv import im2col
from minigrad.ops.conv.geometry import Pair
from minigrad.performance.parallel import copy_into, parallel_for, pool_size

__all__ = ["batch_last", "padded_source", "im2col_rows", "col2im_rows"]


def batch_last(x: Any) -> Any:
    """``im2col.batch_last``, its copies in pieces over the outermost axis."""
    return im2col.batch_last(x, copy_into)


def padded_source(x: Any, padding: Pair) -> Any:
    """``im2col.padded_source``, its copies in pieces over the outermost axis."""
    return im2col.padded_source(x, padding, copy_into)


def im2col_rows(source: Any, rows: slice, kernel_size: Pair, stride: Pair, dilation: Pair, w_out: int,
                out: Any = None) -> Any:
    """``im2col.im2col_rows``: each range of channels fills its own block of rows of the columns, or,
    with fewer channels than threads (a first layer's one or three), each range of output rows its
    own block of columns (the columns (h, w, n) of output row h are one run in every row)."""
    xp = get_array_module(source)
    c, n = source.shape[0], source.shape[3]
    taps = kernel_size[0] * kernel_size[1]
    count = rows.stop - rows.start
    cols = xp.empty((c * taps, count * w_out * n), dtype=source.dtype) if out is None else out

    def fill_channels(start: int, stop: int) -> None:
        im2col.im2col_rows(source[start:stop], rows, kernel_size, stride, dilation, w_out,
                           out=cols[start * taps:stop * taps])

    def fill_output_rows(start: int, stop: int) -> None:
        part = slice(rows.start + start, rows.start + stop)
        im2col.im2col_rows(source, part, kernel_size, stride, dilation, w_out,
                           out=cols[:, start * w_out * n:stop * w_out * n])

    if c >= pool_size():
        parallel_for(xp, c, 2 * cols.nbytes // max(c, 1), fill_channels)
    else:
        parallel_for(xp, count, 2 * cols.nbytes // max(count, 1), fill_output_rows)
    return cols


def col2im_rows(cols: Any, image: Any, rows: slice, kernel_size: Pair, stride: Pair, dilation: Pair,
                w_out: int) -> None:
    """``im2col.col2im_rows``: each range of channels adds its block of rows onto its own channels."""
    c = image.shape[0]
    taps = kernel_size[0] * kernel_size[1]

    def add(start: int, stop: int) -> None:
        im2col.col2im_rows(cols[start * taps:stop * taps], image[start:stop], rows, kernel_size, stride,
                           dilation, w_out)

    parallel_for(get_array_module(cols), c, 3 * cols.nbytes // max(c, 1), add)
