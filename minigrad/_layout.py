"""C-ordered copies of arrays whose memory order is permuted, made in cache-sized blocks.

The convolution hands its gradients on in (C, H, W, N) memory order (see
``ops/conv/im2col.py``); a leaf's ``.grad`` is stored C-ordered, (N, C, H, W), as
PyTorch stores it. NumPy copies such a view by walking the *source* in memory order,
and so writes each number to another image, far from the last one: for a batch of
64 feature maps of 64×16×16 that copy ran at 0.6 GB/s, 6-7x slower than it need be.
Copied one block of channels at a time — a block whose source and destination both
fit in the processor's L2 cache — the same copy runs 4-6x faster. The blocks are
few (the array's size over ``BLOCK_BYTES``) and never single pixels.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.backend import get_array_module

__all__ = ["contiguous_copy"]

# Measured in 256 KiB - 1 MiB blocks alike on a 2 MiB L2 (4 MiB blocks lost the gain): 256 KiB
# leaves room on smaller caches.
BLOCK_BYTES = 256 * 1024


def contiguous_copy(array: Any) -> Any:
    """A fresh C-contiguous copy of ``array`` (same values), blocked when its memory order is permuted."""
    xp = get_array_module(array)
    axis = _blocking_axis(array)
    if xp is not numpy or axis is None:
        return xp.array(array, order="C", copy=True)
    out = xp.empty(array.shape, dtype=array.dtype)
    step = max(1, BLOCK_BYTES // (array.nbytes // array.shape[axis]))
    before = (slice(None),) * axis
    for start in range(0, array.shape[axis], step):
        block = before + (slice(start, start + step),)
        out[block] = array[block]
    return out


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
