"""im2col and col2im: turn every receptive field of an image into one column, and back.

``im2col`` copies, for each of the kh·kw kernel taps (i, j), one strided slice of the
padded input — never single pixels — into the matching rows of the column matrix:

    cols[(c, i, j), (h, w, n)] = x_pad[n, c, h·s_h + i·d_h, w·s_w + j·d_w]

so a convolution becomes one matrix product, ``out = W.reshape(C_out, C_in·kh·kw) @ cols``.
``col2im`` is its exact adjoint (⟨im2col(x), y⟩ = ⟨x, col2im(y)⟩): it adds each tap's
rows back onto the same slice of a zero image. Overlapping windows add up; no
scatter is needed. ``im2col_rows`` and ``col2im_rows`` do the same for a band of
output rows only (``algo_im2col_tuned.py`` works band by band).

Column layout (a choice made for speed): rows are ``(c, i, j)``, channel-major, so
the rows of one group of channels are one contiguous block and a grouped convolution
is a single batched product over ``(groups, ...)`` views; columns are ``(h, w, n)``,
so the whole batch sits in one wide matrix and the product is one large GEMM per
group instead of many small ones per image. The batch is the *innermost* axis: the
image is held as (C, H, W, N) in memory, and then a tap's slice of one image row is
one contiguous run of W_out·N numbers (with N outermost it would be W_out numbers, and
NumPy's per-run overhead would dominate the copy; docs/performance.md). The convolution's output comes out
of the product in the same (C, H, W, N) order and is handed on as an NCHW view; layers
that keep their input's memory order (ReLU, pooling) pass it to the next convolution
without a transposed copy.

Threads: channel c of the image fills rows (c, i, j) of the columns only, and col2im adds
those rows back onto channel c only, so the copies run in pieces, a range of channels each,
on minigrad's threads (``parallel_for``, ``minigrad/performance/parallel.py``): the same
numbers, bit for bit. (im2col of an input with fewer channels than threads, a first layer's
one or three, is cut over output rows instead; col2im never is: overlapping windows of
different output rows add onto the same pixels.) Inside a piece already running on the
pool, ``parallel_for`` runs on that thread.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.ops.conv.geometry import Pair, output_shape, window
from minigrad.performance.layout import short_run_ufuncs
from minigrad.performance.parallel import copy_into, parallel_for, pool_size

__all__ = ["im2col", "col2im", "batch_last", "padded_source", "im2col_rows", "col2im_rows", "interior"]


def batch_last(x: Any) -> Any:
    """``x`` (N, C, H, W) as a (C, H, W, N) array, contiguous (a free view when memory is already so)."""
    xp = get_array_module(x)
    moved = x.transpose(1, 2, 3, 0)
    if moved.flags.c_contiguous:
        return moved
    return copy_into(xp.empty(moved.shape, dtype=x.dtype), _batch_moved(x))


def _batch_moved(x: Any) -> Any:
    """``x`` (N, C, H, W) as a (C, H, W, N) *view* that copies fast into (C, H, W, N) memory.

    Moving the batch innermost reads, for each output run, one number from every image.
    Images whose size is a multiple of a large power of two start at addresses that share
    cache sets, and those reads evict each other (docs/performance.md). One plain copy
    into rows a cache line longer than an image spreads them out first.
    """
    xp = get_array_module(x)
    if x.transpose(1, 2, 3, 0).flags.c_contiguous or x.size == 0:
        return x.transpose(1, 2, 3, 0)
    n, per_image = x.shape[0], x.size // x.shape[0]
    rows = xp.empty((n, per_image + 16), dtype=x.dtype)   # 16 floats: one 64-byte cache line
    spread = copy_into(rows[:, :per_image].reshape(x.shape), x)   # splitting the last axis: a view
    return spread.transpose(1, 2, 3, 0)


def padded_source(x: Any, padding: Pair) -> Any:
    """``x`` (N, C, H, W) framed by ``padding`` zeros, as a (C, H + 2p_h, W + 2p_w, N) array."""
    xp = get_array_module(x)
    n, c, height, width = x.shape
    ph, pw = padding
    if not (ph or pw):
        return batch_last(x)
    source = xp.zeros((c, height + 2 * ph, width + 2 * pw, n), dtype=x.dtype)
    copy_into(source[:, ph:ph + height, pw:pw + width], _batch_moved(x))   # the frame and the move at once
    return source


def im2col_rows(source: Any, rows: slice, kernel_size: Pair, stride: Pair, dilation: Pair, w_out: int,
                out: Any = None) -> Any:
    """The columns of output rows ``rows`` only: ``(C·kh·kw, len(rows)·W_out·N)`` (written into ``out``
    if given).

    ``source`` is the padded (C, H, W, N) input of :func:`padded_source`.
    """
    xp = get_array_module(source)
    c, n = source.shape[0], source.shape[3]
    kh, kw = kernel_size
    count = rows.stop - rows.start
    cols = xp.empty((c * kh * kw, count * w_out * n), dtype=source.dtype) if out is None else out
    # every entry of cols is written below, through a view (splitting axes of ``out``, even a strided one)
    taps = cols.reshape(c, kh, kw, count, w_out, n)

    def fill(channels: slice, part: slice) -> None:
        """Channels ``channels``, output rows ``rows.start + part``: one strided copy per tap."""
        for i in range(kh):
            source_rows = window((rows.start + part.start) * stride[0] + i * dilation[0],
                                 part.stop - part.start, stride[0])
            for j in range(kw):
                source_columns = window(j * dilation[1], w_out, stride[1])
                taps[channels, i, j, part] = source[channels, source_rows, source_columns]

    # Performance: ranges of channels (or, with fewer channels than threads, of output rows) on the pool.
    if c >= pool_size():
        parallel_for(xp, c, 2 * cols.nbytes // max(c, 1), lambda a, b: fill(slice(a, b), slice(0, count)))
    else:
        parallel_for(xp, count, 2 * cols.nbytes // max(count, 1), lambda a, b: fill(slice(None), slice(a, b)))
    return cols


def col2im_rows(cols: Any, image: Any, rows: slice, kernel_size: Pair, stride: Pair, dilation: Pair,
                w_out: int) -> None:
    """The adjoint of :func:`im2col_rows`: add the columns of output rows ``rows`` onto ``image``.

    ``image`` is a padded (C, H, W, N) array, as :func:`padded_source` makes.
    """
    c, n = image.shape[0], image.shape[3]
    kh, kw = kernel_size
    count = rows.stop - rows.start
    taps = cols.reshape(c, kh, kw, count, w_out, n)

    def add(first: int, last: int) -> None:
        """Channels ``first:last``: each tap's rows added onto its strided slice of the image."""
        with short_run_ufuncs():  # runs of one row, W_out·N numbers: no buffering (performance/layout.py)
            for i in range(kh):
                image_rows = window(rows.start * stride[0] + i * dilation[0], count, stride[0])
                for j in range(kw):
                    image_columns = window(j * dilation[1], w_out, stride[1])
                    image[first:last, image_rows, image_columns] += taps[first:last, i, j]

    # Performance: ranges of channels on the pool (each adds onto its own channels only).
    parallel_for(get_array_module(cols), c, 3 * cols.nbytes // max(c, 1), add)


def im2col(x: Any, kernel_size: Pair, stride: Pair, padding: Pair, dilation: Pair) -> Any:
    """Columns of ``x`` (N, C, H, W): ``(C·kh·kw, H_out·W_out·N)``, rows (c, i, j), columns (h, w, n)."""
    h_out, w_out = output_shape(x.shape, kernel_size, stride, padding, dilation)
    return im2col_rows(padded_source(x, padding), slice(0, h_out), kernel_size, stride, dilation, w_out)


def col2im(cols: Any, input_shape: tuple, kernel_size: Pair, stride: Pair, padding: Pair,
           dilation: Pair) -> Any:
    """The adjoint of :func:`im2col`: add each column back onto its window; returns (N, C, H, W).

    The result is a view in (C, H, W, N) memory order (of a padded buffer), as computed.
    """
    xp = get_array_module(cols)
    n, c, height, width = input_shape
    h_out, w_out = output_shape(input_shape, kernel_size, stride, padding, dilation)
    ph, pw = padding
    image = xp.zeros((c, height + 2 * ph, width + 2 * pw, n), dtype=cols.dtype)
    col2im_rows(cols, image, slice(0, h_out), kernel_size, stride, dilation, w_out)
    return interior(image, padding)


def interior(image: Any, padding: Pair) -> Any:
    """A padded (C, H, W, N) image without its frame, as an (N, C, H, W) view."""
    ph, pw = padding
    height, width = image.shape[1] - 2 * ph, image.shape[2] - 2 * pw
    return image[:, ph:ph + height, pw:pw + width].transpose(3, 0, 1, 2)
