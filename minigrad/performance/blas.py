"""Performance machinery: NumPy's BLAS held to one thread for a block of code, then given back its own.

With two threads or more, minigrad runs its products on its own pool, each thread calling the
BLAS for its own piece (``parallel.matmul``, the tuned convolution's bands, both through
``parallel.parallel_products``). The BLAS must then compute on the thread that calls it: with
threads of its own as well, ``n`` pool threads would start ``n²`` threads on ``n`` cores.
:func:`one_thread` holds it to one thread inside a ``with`` block and restores the count it had
on the way out, an exception included; nothing outside such a block changes, and importing
minigrad changes nothing.

threadpoolctl finds the BLAS libraries NumPy loaded (OpenBLAS, MKL, BLIS, FlexiBLAS) and sets their
thread counts through their own C functions, which costs microseconds. Where it finds none that
it can control (Apple's Accelerate, for one), :func:`controllable` is False and the products keep
the BLAS's own threads.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy  # noqa: F401 (loaded before the BLAS libraries are looked for: they are NumPy's)
from threadpoolctl import ThreadpoolController

__all__ = ["controllable", "one_thread", "set_threads", "thread_counts"]

_libraries: list[Any] | None = None   # threadpoolctl's controllers of the loaded BLAS libraries
_lock = threading.Lock()
_holders = 0                          # blocks inside one_thread now, in any thread
_counts: list[int] = []               # the thread counts to restore when the last block ends


def _reset_in_child() -> None:
    """After ``os.fork()`` the child has no thread that is inside a block: give the BLAS its count back."""
    global _lock, _holders
    _lock = threading.Lock()
    if _holders:
        for library, count in zip(_blas_libraries(), _counts):
            library.set_num_threads(count)
    _holders = 0


if hasattr(os, "register_at_fork"):   # POSIX; Windows starts processes afresh
    os.register_at_fork(after_in_child=_reset_in_child)


def _blas_libraries() -> list[Any]:
    """The BLAS libraries loaded in this process, looked for once, on first use."""
    global _libraries
    if _libraries is None:
        _libraries = list(ThreadpoolController().select(user_api="blas").lib_controllers)
    return _libraries


def controllable() -> bool:
    """True when a BLAS whose thread count can be set is loaded (threadpoolctl found one)."""
    return bool(_blas_libraries())


def thread_counts() -> list[int]:
    """Each BLAS library's thread count outside :func:`one_thread` blocks (the one it has after them)."""
    with _lock:
        return list(_counts) if _holders else [library.num_threads for library in _blas_libraries()]


def set_threads(threads: int) -> None:
    """Give every BLAS library ``threads`` threads, now or, inside a :func:`one_thread` block, when
    the last block ends (``mg.set_num_threads``)."""
    global _counts
    with _lock:
        if _holders:
            _counts = [threads] * len(_blas_libraries())
            return
    ThreadpoolController().limit(limits=threads, user_api="blas")


@contextmanager
def one_thread() -> Iterator[None]:
    """Inside the block, every BLAS call runs on the thread that makes it; after it, the BLAS has
    the thread count it had before. Blocks may overlap (in one thread or several): the first
    one in sets the count to 1, the last one out restores it."""
    global _holders, _counts
    libraries = _blas_libraries()
    with _lock:
        if _holders == 0:
            _counts = [library.num_threads for library in libraries]
            for library in libraries:
                library.set_num_threads(1)
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                for library, count in zip(libraries, _counts):
                    library.set_num_threads(count)
