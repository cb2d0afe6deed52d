"""The memory-bound array passes (im2col's copies, col2im's adds, ...) on several CPU cores.

BLAS runs the convolution's matrix products on every core, but a NumPy copy or add runs
on one. NumPy lets go of Python's GIL while it copies or adds large arrays, so threads
that each handle one slice of the channels really do work at once: col2im of a 32×32
batch of 32×32 images runs in 1.9 ms on two threads instead of 3.6 ms on one.

A pass is written as a function of a slice of its outermost axis and handed to
:func:`split`, which runs it on ``get_num_threads()`` consecutive parts at once (in the
calling thread alone for small arrays and for CuPy arrays, which the GPU handles in
parallel already). The parts are never more than the threads: this is a split of the
work between cores, not a loop over channels.

``set_num_threads(n)`` and ``get_num_threads()`` are PyTorch's names. They set minigrad's
own passes only; NumPy's BLAS has its own setting (``OPENBLAS_NUM_THREADS``, or
threadpoolctl). The default is ``OMP_NUM_THREADS`` when set, as PyTorch reads it, else
the number of CPUs this process may use, at most 4: copies are limited by memory
bandwidth, which a few cores already saturate.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy

from minigrad.backend import get_array_module

__all__ = ["split", "set_num_threads", "get_num_threads"]

MOST_THREADS_BY_DEFAULT = 4
SMALLEST_PART = 256 * 1024   # bytes a thread: below this a thread's start costs more than it saves

_threads: int | None = None
_pool: ThreadPoolExecutor | None = None
_pool_owner: tuple = ()   # (process id, worker count) the pool was made for


def _default_threads() -> int:
    from_environment = os.environ.get("OMP_NUM_THREADS", "")
    if from_environment.isdigit() and int(from_environment) > 0:
        return int(from_environment)
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(available or 1, MOST_THREADS_BY_DEFAULT))


def get_num_threads() -> int:
    """How many threads minigrad's own array passes use (as ``torch.get_num_threads``)."""
    global _threads
    if _threads is None:
        _threads = _default_threads()
    return _threads


def set_num_threads(threads: int) -> None:
    """Use ``threads`` threads for minigrad's own array passes (as ``torch.set_num_threads``)."""
    global _threads
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"set_num_threads expects an int, but got {type(threads).__name__}")
    if threads <= 0:
        raise RuntimeError(f"Number of threads must be positive, but got {threads}")
    _threads = threads


def _worker_pool() -> ThreadPoolExecutor:
    """The shared pool, made anew in a forked child (whose copy of the pool has no threads)."""
    global _pool, _pool_owner
    owner = (os.getpid(), get_num_threads() - 1)   # the calling thread is the other one
    if _pool is None or _pool_owner != owner:
        _pool = ThreadPoolExecutor(max_workers=owner[1], thread_name_prefix="minigrad")
        _pool_owner = owner
    return _pool


def split(work: Callable[[slice], Any], length: int, array: Any) -> None:
    """Run ``work(part)`` over slices ``part`` that together cover ``range(length)``, in parallel.

    ``array`` is the biggest array the pass touches: its size decides how many threads
    pay off, its module whether threads are used at all. ``work`` must write only the
    part of the result that belongs to its slice.
    """
    threads = min(get_num_threads(), length, array.nbytes // SMALLEST_PART)
    if threads <= 1 or get_array_module(array) is not numpy:
        work(slice(0, length))
        return
    bounds = [length * part // threads for part in range(threads + 1)]

    def do_part(part: int) -> None:
        work(slice(bounds[part], bounds[part + 1]))

    pool = _worker_pool()
    helpers = [pool.submit(do_part, part) for part in range(1, threads)]
    try:
        do_part(0)                    # the calling thread does the first part itself
    finally:
        for helper in helpers:
            helper.result()
