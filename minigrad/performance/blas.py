"""Performance machinery: NumPy's BLAS held to one thread for a block of code, then given back its own.

With two threads or more, minigrad runs its products on its own pool, each thread calling the
BLAS for its own piece (``parallel.matmul``, the tuned convolution's bands, both through
``parallel.parallel_products``). The BLAS must then compute on the thread that calls it: with
threads of its own as well, ``n`` pool threads would start ``n²`` threads on ``n`` cores.
:func:`one_thread` holds it to one thread inside a ``with`` block and restores the count it had
on the way out, an exception included; nothing outside such a block changes, and importing
minigrad changes nothing.

**Fork.** OpenBLAS cannot be forked while another thread is inside a product that it runs with a
thread count changed around it: the parent's next product can spin forever. So a fork waits,
in an ``os.register_at_fork`` hook, until no thread is inside a :func:`one_thread` block, and
no block starts until it is done; the child starts with no block open.

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
_changed = threading.Condition(_lock)   # notified when the last block ends, and after a fork
_holders = 0                          # blocks inside one_thread now, in any thread
_forks = 0                            # forks waiting for the blocks to end: no new block starts
_counts: list[int] = []               # the thread counts to restore when the last block ends
_local = threading.local()            # .blocks: this thread's blocks (a fork from inside one waits for the others)


def _before_fork() -> None:
    """Hold the fork until no other thread is inside a block; ``_lock`` stays held through it."""
    global _forks
    _lock.acquire()
    _forks += 1
    while _holders > getattr(_local, "blocks", 0):
        _changed.wait()


def _after_fork_in_parent() -> None:
    global _forks
    _forks -= 1
    _changed.notify_all()
    _lock.release()


def _reset_in_child() -> None:
    """After ``os.fork()`` only the forking thread is left: its blocks end with it; give the BLAS its count back."""
    global _lock, _changed, _holders, _forks, _local
    _lock = threading.Lock()
    _changed = threading.Condition(_lock)
    if _holders:
        for library, count in zip(_blas_libraries(), _counts):
            library.set_num_threads(count)
    _holders, _forks, _local = 0, 0, threading.local()


if hasattr(os, "register_at_fork"):   # POSIX; Windows starts processes afresh
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_reset_in_child)


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
    with _lock:   # held throughout: a block starting meanwhile would restore the old count
        if _holders:
            _counts = [threads] * len(_blas_libraries())
        else:
            ThreadpoolController().limit(limits=threads, user_api="blas")


@contextmanager
def one_thread() -> Iterator[None]:
    """Inside the block, every BLAS call runs on the thread that makes it; after it, the BLAS has
    the thread count it had before. Blocks may overlap (in one thread or several): the first
    one in sets the count to 1, the last one out restores it."""
    global _holders, _counts
    libraries = _blas_libraries()
    with _lock:
        while _forks and not getattr(_local, "blocks", 0):   # a fork waits for the blocks to end
            _changed.wait()
        if _holders == 0:
            _counts = [library.num_threads for library in libraries]
            for library in libraries:
                library.set_num_threads(1)
        _holders += 1
        _local.blocks = getattr(_local, "blocks", 0) + 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            _local.blocks -= 1
            if _holders == 0:
                for library, count in zip(libraries, _counts):
                    library.set_num_threads(count)
                _changed.notify_all()
