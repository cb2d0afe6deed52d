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
in an ``os.register_at_fork`` hook, until no other thread is inside a :func:`one_thread` block
(at most :data:`FORK_WAIT` seconds), and no block starts until it is done; the child starts
with no block open.

threadpoolctl finds the BLAS libraries NumPy loaded (OpenBLAS, MKL, BLIS, FlexiBLAS) and sets their
thread counts through their own C functions, which costs microseconds. Where it finds none that
it can control (Apple's Accelerate, for one), :func:`controllable` is False and the products keep
the BLAS's own threads.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy  # noqa: F401 (loaded before the BLAS libraries are looked for: they are NumPy's)
from threadpoolctl import ThreadpoolController

__all__ = ["controllable", "one_thread", "set_threads", "small_matrix_kernels", "thread_counts"]

_libraries: list[Any] | None = None   # threadpoolctl's controllers of the loaded BLAS libraries
_lock = threading.Lock()
_changed = threading.Condition(_lock)   # notified when the last block ends, and after a fork
_open: dict[object, int] = {}         # the one_thread blocks open now, in any thread: token -> thread id
_lowered = False                      # the BLAS is held to one thread; _counts are the counts to give back
_counts: list[int] = []
_forks = 0                            # forks waiting for the blocks to end: no new block starts
SMALL_MATRIX_CORES = frozenset({"SkylakeX", "Cooperlake", "SapphireRapids"})  # small_matrix_kernels()
# The longest a fork waits for other threads' blocks to end. Only a block left open by a
# KeyboardInterrupt striking inside this module's own bookkeeping would hold it that long.
FORK_WAIT = 30.0


def _others_blocks() -> int:
    me = threading.get_ident()
    return sum(1 for thread in _open.values() if thread != me)


def _before_fork() -> None:
    """Hold the fork until no other thread is inside a block; ``_lock`` stays held through it."""
    global _forks
    _lock.acquire()
    _forks += 1
    deadline = time.monotonic() + FORK_WAIT
    while _others_blocks() and time.monotonic() < deadline:
        _changed.wait(deadline - time.monotonic())


def _after_fork_in_parent() -> None:
    global _forks
    _forks -= 1
    _changed.notify_all()
    _lock.release()


def _reset_in_child() -> None:
    """After ``os.fork()`` only the forking thread is left: its blocks end with it, and the BLAS
    gets its count back."""
    global _lock, _changed, _open, _forks
    _lock = threading.Lock()
    _changed = threading.Condition(_lock)
    _open, _forks = {}, 0
    _give_back_counts()


if hasattr(os, "register_at_fork"):   # POSIX; Windows starts processes afresh
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_reset_in_child)


def _give_back_counts() -> None:
    """With ``_lock`` held: once no block is open, the BLAS gets back the counts it had before them."""
    global _lowered
    if _lowered and not _open:
        for library, count in zip(_blas_libraries(), _counts):
            library.set_num_threads(count)
        _lowered = False
        _changed.notify_all()


def _blas_libraries() -> list[Any]:
    """The BLAS libraries loaded in this process, looked for once, on first use."""
    global _libraries
    if _libraries is None:
        _libraries = list(ThreadpoolController().select(user_api="blas").lib_controllers)
    return _libraries


def controllable() -> bool:
    """True when a BLAS whose thread count can be set is loaded (threadpoolctl found one)."""
    return bool(_blas_libraries())


def small_matrix_kernels() -> bool:
    """Whether NumPy's BLAS runs OpenBLAS's AVX-512 kernels, which multiply small products unpacked."""
    return any(getattr(library, "architecture", None) in SMALL_MATRIX_CORES for library in _blas_libraries())


def thread_counts() -> list[int]:
    """Each BLAS library's thread count outside :func:`one_thread` blocks (the one it has after them)."""
    with _lock:
        return list(_counts) if _lowered else [library.num_threads for library in _blas_libraries()]


def set_threads(threads: int) -> None:
    """Give every BLAS library ``threads`` threads, now or, inside a :func:`one_thread` block, when
    the last block ends (``mg.set_num_threads``)."""
    global _counts
    with _lock:   # held throughout: a block starting meanwhile would give back the old count
        if _lowered:
            _counts = [threads] * len(_blas_libraries())
        else:
            ThreadpoolController().limit(limits=threads, user_api="blas")


@contextmanager
def one_thread() -> Iterator[None]:
    """Inside the block, every BLAS call runs on the thread that makes it; after it, the BLAS has
    the thread count it had before. Blocks may overlap (in one thread or several): the first
    one in sets the count to 1, the last one out gives it back.

    The bookkeeping is written for a KeyboardInterrupt striking anywhere in it: a block counts
    as open only once its token is in ``_open``, and ``_lowered`` is set before the count is
    changed, so the ``finally`` gives back exactly what was taken.
    """
    global _counts, _lowered
    libraries = _blas_libraries()
    token = object()
    try:
        with _lock:
            me = threading.get_ident()
            while _forks and me not in _open.values():   # a fork waits for the blocks to end
                _changed.wait()
            if not _lowered:
                _counts = [library.num_threads for library in libraries]
                _lowered = True
                for library in libraries:
                    library.set_num_threads(1)
            _open[token] = me
        yield
    finally:
        with _lock:
            _open.pop(token, None)
            _give_back_counts()
