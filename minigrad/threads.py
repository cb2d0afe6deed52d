"""How many threads minigrad computes with: ``mg.set_num_threads(n)`` and ``mg.get_num_threads()``.

minigrad's arithmetic runs in NumPy. With two threads or more it all runs on minigrad's own
thread pool (``minigrad/performance/parallel.py``): its matrix products (every convolution and
linear layer) cut between the pool's threads, the BLAS held to one thread while they multiply
(``blas.py``), and the rest (copies, pooling, ReLU, the optimiser's update) in pieces on the same
threads. ``set_num_threads`` sets the pool's size and the BLAS's own thread count (through
threadpoolctl, which a program's own NumPy products use), for the rest of the process, as
``torch.set_num_threads`` limits PyTorch's intra-op threads; ``get_num_threads`` says how many
they use. Until a program calls ``set_num_threads``, both use the BLAS's own count (the
processor count where no BLAS is found). On the GPU (CuPy) the number does not apply. Any
thread may call ``set_num_threads`` at any time, also while others compute on the pool
(docs/guarantees.md, "Threads").

``set_num_interop_threads`` / ``get_num_interop_threads`` exist for PyTorch's programs: minigrad
runs one operation at a time, so the number is kept and reported, and changes nothing.
"""

from __future__ import annotations

import os
import threading

from minigrad.performance import blas, parallel

__all__ = ["get_num_interop_threads", "get_num_threads", "set_num_interop_threads", "set_num_threads"]

_threads: int | None = None   # set by set_num_threads; None: whatever the BLAS uses
_setting = threading.Lock()   # two threads setting at once leave the BLAS and the pool agreeing
_interop_threads = 1


def _new_lock_in_child() -> None:
    """After ``os.fork()`` only the forking thread is left: another thread's hold on the lock is gone."""
    global _setting
    _setting = threading.Lock()


if hasattr(os, "register_at_fork"):   # POSIX; Windows starts processes afresh
    os.register_at_fork(after_in_child=_new_lock_in_child)


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuntimeError(f"{name} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return value


def set_num_threads(n: int) -> None:
    """Compute with at most ``n`` threads (NumPy's BLAS and minigrad's pool), from now on in this process."""
    global _threads
    threads = _positive_int(n, "set_num_threads")
    with _setting:
        _threads = threads
        blas.set_threads(threads)
        parallel.resize(threads)


def get_num_threads() -> int:
    """The threads minigrad computes with: the last ``set_num_threads``, else the BLAS's own count."""
    if _threads is not None:
        return _threads
    counts = blas.thread_counts()
    return max(counts) if counts else os.cpu_count() or 1


def set_num_interop_threads(n: int) -> None:
    """Accepted for PyTorch's programs; minigrad runs one operation at a time."""
    global _interop_threads
    _interop_threads = _positive_int(n, "set_num_interop_threads")


def get_num_interop_threads() -> int:
    """1 unless set: minigrad runs one operation at a time."""
    return _interop_threads
