"""Opt in to keeping freed array memory in the process, so the next array of that size needs no new pages.

A training step allocates and frees the same big arrays again and again (im2col's
columns, activations, their gradients). glibc's ``malloc`` hands big freed blocks back
to the kernel, and every page of the next such array then costs a page fault and the
kernel zeroing it. Raising glibc's mmap and trim thresholds keeps freed blocks in the
process for reuse — what PyTorch's caching allocators do for their own tensors. Arrays
larger than the highest threshold glibc accepts (32 MiB) are still handed back.

This changes the C allocator of the whole process, so minigrad never does it by itself:
a program opts in with one call, as ``examples/mnist_cnn.py`` does::

    import minigrad as mg
    mg.memory.keep_freed_memory()   # True where it took effect (glibc, i.e. Linux)

Only glibc (Linux) has these knobs; on macOS, Windows or musl the call does nothing and
returns False. docs/performance.md has the measurements.
"""

from __future__ import annotations

import ctypes
import os

# mallopt's parameter numbers (glibc's malloc.h) and the values we give them.
M_TRIM_THRESHOLD = -1          # free memory at the heap's top beyond this is returned to the kernel
M_MMAP_THRESHOLD = -3          # blocks at least this big get their own mapping, unmapped on free
LARGEST_MMAP_THRESHOLD = 32 * 1024 * 1024    # glibc refuses more on 64-bit systems
NEVER_TRIM = 2**31 - 1


__all__ = ["keep_freed_memory"]


def keep_freed_memory() -> bool:
    """Tune glibc's allocator, for the whole process, to keep freed blocks up to 32 MiB; True if done."""
    if not _is_glibc():
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    kept_big_blocks = mallopt(M_MMAP_THRESHOLD, LARGEST_MMAP_THRESHOLD)
    kept_heap_top = mallopt(M_TRIM_THRESHOLD, NEVER_TRIM)
    return bool(kept_big_blocks and kept_heap_top)


def _is_glibc() -> bool:
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (AttributeError, ValueError, OSError):   # Windows has no confstr; other libcs no such name
        return False
