"""How NumPy walks strided and permuted views, and two places where it needs help.

**C-ordered copies of arrays whose memory order is permuted, made in cache-sized blocks.**
The convolution hands its gradients on in (C, H, W, N) memory order (see
``ops/conv/im2col.py``); a leaf's ``.grad`` is stored C-ordered, (N, C, H, W), as
PyTorch stores it. NumPy copies such a view by walking the *source* in memory order,
and so writes each number to another image, far from the last one: several times
slower than it need be. Copied one block of channels at a time — a block whose source
and destination both fit in the processor's L2 cache — each write lands near the last.
The blocks are few (the array's size over ``BLOCK_BYTES``) and never single pixels.

**Ufuncs on views with short contiguous runs, without buffering.** A ufunc (``+=``,
``maximum``, ``*``) on a view whose contiguous runs hold fewer than about a third of
NumPy's ufunc buffer (8192 elements by default) goes through that buffer: NumPy copies
the operands in, computes, copies the result out. col2im's adds are such ufuncs (each
run is one output row, W_out·N numbers), while a plain strided *copy* of the same runs
is as fast as a contiguous one. Under :func:`short_run_ufuncs` the buffer is small
enough that short runs need no buffering.

The measurements behind both, and how to rerun them: docs/performance.md, "Convolution".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy

from minigrad.backend import get_array_module
from minigrad.performance.parallel import parallel_for

__all__ = ["contiguous_copy", "empty_like_order", "filled_like_order", "short_run_ufuncs"]

# NumPy's ufunc buffer (in elements) under short_run_ufuncs: below col2im's runs, above per-call costs.
UFUNC_BUFFER_ELEMENTS = 1024
# A block's source and destination fit a small L2 cache (the sizes tried: docs/performance.md).
BLOCK_BYTES = 256 * 1024


def contiguous_copy(array: Any) -> Any:
    """A fresh C-contiguous copy of ``array`` (same values), blocked when its memory order is permuted."""
    xp = get_array_module(array)
    axis = _blocking_axis(array)
    if xp is not numpy or axis is None:
        return xp.array(array, order="C", copy=True)
    out = xp.empty(array.shape, dtype=array.dtype)
    slice_bytes = array.nbytes // array.shape[axis]
    step = max(1, BLOCK_BYTES // slice_bytes)
    before = (slice(None),) * axis

    def copy_blocks(first: int, last: int) -> None:
        for start in range(first, last, step):
            block = before + (slice(start, min(start + step, last)),)
            out[block] = array[block]

    # Ranges of blocks go to minigrad's threads (parallel.py); each writes its own blocks.
    parallel_for(xp, array.shape[axis], 2 * slice_bytes, copy_blocks)
    return out


def filled_like_order(template: Any, shape: tuple, fill: Any, dtype: Any) -> Any:
    """An array of ``shape`` filled with ``fill`` whose axes lie in memory in ``template``'s order.

    Elementwise work between the two then walks both in the same order; between a (C, H, W, N)
    -ordered gradient and a C-ordered (N, C, H, W) buffer it is several times slower
    (docs/performance.md).
    """
    filled = empty_like_order(template, shape, dtype)
    filled.fill(fill)
    return filled


def empty_like_order(template: Any, shape: tuple, dtype: Any) -> Any:
    """:func:`filled_like_order` without the filling: an uninitialised array of ``shape``."""
    xp = get_array_module(template)
    order = sorted(range(template.ndim), key=lambda axis: -abs(template.strides[axis]))
    empty = xp.empty(tuple(shape[axis] for axis in order), dtype=dtype)
    return empty.transpose(tuple(order.index(axis) for axis in range(template.ndim)))


def _blocking_axis(array: Any) -> int | None:
    """The axis to copy block by block, or None where a plain copy is as fast.

    It is the axis that is outer in both memory orders (the destination's is the axes'
    own order, the source's is by stride): for (C, H, W, N) memory read as (N, C, H, W),
    the channels. When that is the first axis, the plain copy already goes block by block.
    """
    if array.ndim < 3 or array.flags.c_contiguous or array.nbytes <= 2 * BLOCK_BYTES:
        return None
    by_stride = sorted(range(array.ndim), key=lambda axis: -abs(array.strides[axis]))
    source_rank = {axis: rank for rank, axis in enumerate(by_stride)}
    axis = min(range(array.ndim), key=lambda axis: max(axis, source_rank[axis]))
    return axis or None


@contextmanager
def short_run_ufuncs() -> Iterator[None]:
    """A ``with`` block in which NumPy's ufuncs work on strided views in place, unbuffered.

    Leaving it restores the buffer size. Only NumPy's ufuncs are affected: CuPy has no such buffer.
    """
    previous = numpy.setbufsize(UFUNC_BUFFER_ELEMENTS)
    try:
        yield
    finally:
        numpy.setbufsize(previous)
