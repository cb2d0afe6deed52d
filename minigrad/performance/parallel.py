"""Performance machinery: a small thread pool that runs the chunks of one array operation at once.

This module is about speed, not about backpropagation; every operation that uses it computes
exactly what it computes without it. NumPy releases Python's lock (the GIL) inside copies,
ufuncs, ``einsum`` and BLAS calls on large arrays, so disjoint pieces of one large array — a range of
images of a batch, or of channels — can be worked on by several threads at the same time.

**One set of threads.** A BLAS such as OpenBLAS runs a product on threads of its own, and those
keep spinning on the cores for a while after it returns: copies and element-wise work handed to
other threads then find no free core. So, with two threads or more, minigrad runs its matrix
products on this pool too (:func:`matmul`), each thread multiplying its piece with the BLAS held
to one thread, and the BLAS's own threads stay asleep. The pool then runs all of it: products,
im2col's copies, pooling, ReLU, the optimiser's update.

How it works:

- :func:`parallel_for` splits ``range(n_items)`` into at most :func:`pool_size` contiguous
  ranges, runs ``fn(start, stop)`` for each — the calling thread takes the first, the pool's
  threads the others — and returns when all are done. Each range is an independent piece of
  the output, so the result is the same, bit for bit, as one call ``fn(0, n_items)``.
- A range no pool thread has started by the time the caller is done with its own, the caller
  runs itself: on a machine busy with other work a woken thread may wait for a core, while
  the caller is on one already. So a call never takes much longer than on one thread.
- Below :data:`MIN_CHUNK_BYTES` of work per chunk it makes fewer chunks, down to one call on
  the calling thread: waking a thread costs more than a small copy.
- The pool is made on first use (importing minigrad starts no thread), with
  ``mg.get_num_threads() - 1`` threads; ``mg.set_num_threads(n)`` replaces it, and a replaced
  pool's threads end once no call uses it (resizing never strands a piece). Several Python
  threads may compute at once, each waiting for its own pieces. CuPy arrays run as one call.
- A process made by ``os.fork()`` starts without the parent's threads and makes its own pool
  (``blas.py`` holds a fork back until no thread is inside a product cut between threads).
- A ``parallel_for`` inside a chunk runs its ranges one after another: the pool never waits on itself.
- An exception in any chunk (or a KeyboardInterrupt in the caller) is raised to the caller after
  every chunk has finished, so no chunk still writes into an array the caller sees.
- Chunks run in a copy of the caller's ``contextvars`` context (NumPy's ``errstate`` lives there)
  and under its grad, inference and anomaly modes and default device, which are per thread.

A ``parallel_for`` chunk must not call the BLAS (``matmul``, ``tensordot``, ``dot``): outside
:func:`parallel_products` the BLAS may have threads of its own, ``n²`` on ``n`` cores. Chunks wrap
copies, ufuncs and ``einsum`` (unoptimised, as minigrad calls it, it does not call the BLAS).
Products go to :func:`parallel_products`, which holds the BLAS to one thread while each of the
pool's threads runs its pieces: :func:`matmul` cuts one product so (the default convolution's),
the banded convolution runs whole bands so (``algo_im2col_tuned.py``); both ask
:func:`product_threads` whether they can (NumPy arrays, a pool of two or more, a BLAS whose
threads can be set: not Apple's Accelerate). A thin product goes to OpenBLAS's AVX-512 kernels
in tiles small enough for their direct path (:func:`_product`).
"""

from __future__ import annotations

import contextvars
import os
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from minigrad import backend
from minigrad.autograd.grad_mode import _GradMode
from minigrad.backend import get_array_module
from minigrad.performance import blas

__all__ = ["MIN_CHUNK_BYTES", "MIN_PRODUCT_WORK", "chunk_ranges", "copy_into", "in_pieces", "map_into",
           "matmul", "outer_axis", "parallel_for", "parallel_products", "pool_size", "product_threads"]

# The least work (bytes read and written) worth handing to another thread: waking one costs more
# than a small copy (docs/performance.md, "Threads": how it was measured and how to tune it).
MIN_CHUNK_BYTES = 4 << 20

# The least work (multiply-adds) each piece of a matrix product cut between the pool's threads gets;
# a product under twice this runs whole, on the calling thread (docs/performance.md, "Threads").
MIN_PRODUCT_WORK = 1 << 21
# Below this a BLAS runs a product on one thread anyway (OpenBLAS's own cut-off is 4·65536).
SMALL_PRODUCT_WORK = 1 << 18
# Thin products in tiles of columns, at most SMALL_MATRIX_WORK multiply-adds each (see :func:`_product`).
TILE_COLUMNS = 128
SMALL_MATRIX_WORK = 10**6

_lock = threading.Lock()       # guards _workers, _size and each pool's users
_workers: _Workers | None = None   # the pool new calls use; made on first use
_size: int | None = None       # threads the loops use (the caller's included); None: ask get_num_threads
_local = threading.local()     # .inside: this thread is running a chunk


def pool_size() -> int:
    """How many threads a parallel loop uses, the caller's included: ``mg.get_num_threads()``."""
    size = _size
    if size is None:
        with _lock:
            size = _size_locked()
    return size


def _size_locked() -> int:
    """:func:`pool_size`, with ``_lock`` held: a resize cannot slip in between reading and keeping it."""
    global _size
    if _size is None:
        from minigrad.threads import get_num_threads  # noqa: PLC0415 (threads imports this module)

        _size = get_num_threads()
    return _size


def resize(threads: int | None) -> None:
    """Use ``threads`` threads from now on (None: ask ``get_num_threads`` again on next use).

    Called by ``mg.set_num_threads``. The old pool is retired: calls already using it keep it
    until their pieces are done, and its threads end after that.
    """
    global _workers, _size
    with _lock:
        old, _workers, _size = _workers, None, threads
        if old is not None:
            old.retire()


def _forget_pool_in_child() -> None:
    """After ``os.fork()`` the child has none of the parent's pool threads: it makes its own on first use."""
    global _workers, _lock, _local
    _workers, _lock, _local = None, threading.Lock(), threading.local()


if hasattr(os, "register_at_fork"):   # POSIX; Windows starts processes afresh
    os.register_at_fork(after_in_child=_forget_pool_in_child)


class _Workers:
    """The pool's threads: each takes a chunk from one queue, runs it, and opens the chunk's lock.

    Leaner than ``concurrent.futures``: a chunk is handed over through a C-level queue and a lock,
    which halves the time from handing a chunk over to its thread starting it.
    """

    def __init__(self, count: int) -> None:
        self.tasks: queue.SimpleQueue = queue.SimpleQueue()
        self.count = count
        self.users = 0          # calls that may still queue chunks here (counted under _lock)
        self.retired = False    # replaced by resize(): end the threads once users is 0
        for number in range(count):
            threading.Thread(target=self._serve, name=f"minigrad_{number}", daemon=True).start()

    def _serve(self) -> None:
        while True:
            task = self.tasks.get()
            if task is None:   # _stop(): this pool was retired and no call uses it
                return
            context, modes, fn, start, stop, claim, done, ran = task
            error = None
            if claim.acquire(blocking=False):   # else the caller took it back and ran it
                try:
                    _run_chunk(context, modes, fn, start, stop)
                except BaseException as raised:  # noqa: BLE001 (handed to the caller, which raises it)
                    error = raised
            ran.append((done, error))   # before the release: the caller may look here instead
            done.release()

    def submit(self, modes: tuple, fn: Callable[[int, int], None], start: int, stop: int,
               ran: list) -> tuple[threading.Lock, threading.Lock]:
        """Queue ``fn(start, stop)`` (in a copy of the caller's context, under ``modes``); returns
        ``(claim, done)``: whoever acquires ``claim`` first (a pool thread, or the caller taking the
        piece back) runs it; ``done`` is released once a pool thread is through with it, after
        ``(done, exception or None)`` is appended to ``ran``."""
        claim, done = threading.Lock(), threading.Lock()
        done.acquire()
        self.tasks.put((contextvars.copy_context(), modes, fn, start, stop, claim, done, ran))
        return claim, done

    def retire(self) -> None:
        """With ``_lock`` held: no new call will use this pool; its threads end when the last one is done."""
        self.retired = True
        if self.users == 0:
            self._stop()

    def _stop(self) -> None:
        """Let each thread end once the chunks already queued have run."""
        for _ in range(self.count):
            self.tasks.put(None)


def _borrow_pool() -> _Workers | None:
    """The current pool, held for one call (None where there is only the calling thread)."""
    global _workers
    with _lock:
        if _workers is None:
            if _size_locked() < 2:
                return None
            _workers = _Workers(_size_locked() - 1)
        _workers.users += 1
        return _workers


def _give_back(pool: _Workers) -> None:
    with _lock:
        pool.users -= 1
        if pool.retired and pool.users == 0:
            pool._stop()


def chunk_ranges(n_items: int, item_bytes: int, threads: int) -> list[tuple[int, int]]:
    """``range(n_items)`` cut into at most ``threads`` near-equal ``(start, stop)`` ranges, each at
    least :data:`MIN_CHUNK_BYTES` of work (``item_bytes`` per item) unless there is only one."""
    worth = (n_items * item_bytes) // MIN_CHUNK_BYTES
    count = max(1, min(threads, n_items, worth))
    bounds = [n_items * i // count for i in range(count + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(count)]


def _callers_modes() -> tuple:
    """What a chunk runs under, taken from the thread that hands it over: its grad, inference and
    anomaly modes and default device, which are per thread (a chunk is the caller's work)."""
    return _GradMode.enabled, _GradMode.inference, _GradMode.anomaly, backend.default_device()


def _set_modes(modes: tuple) -> None:
    _GradMode.enabled, _GradMode.inference, _GradMode.anomaly, backend._default.device = modes


def _run_chunk(context: contextvars.Context, modes: tuple, fn: Callable[[int, int], None],
               start: int, stop: int) -> None:
    own = _callers_modes()
    try:
        _local.inside = True   # set and cleared inside the try: an interrupt cannot leave it set
        _set_modes(modes)
        context.run(fn, start, stop)
    finally:
        _local.inside = False
        _set_modes(own)


def parallel_for(xp: Any, n_items: int, item_bytes: int, fn: Callable[[int, int], None]) -> None:
    """Run ``fn(start, stop)`` over disjoint ranges that cover ``range(n_items)``, concurrently.

    ``item_bytes``: the bytes one item's work reads and writes (all passes), which sets how many
    chunks are worth it. ``fn`` must only write its own range's part of the output, and call no BLAS.
    """
    if n_items <= 0:
        return
    if xp is not numpy or getattr(_local, "inside", False):
        fn(0, n_items)
        return
    _run_ranges(chunk_ranges(n_items, item_bytes, pool_size()), fn)


def product_threads(xp: Any) -> int:
    """How many threads :func:`parallel_products` would run: ``pool_size()``, or 1 where it cannot
    (arrays not NumPy's, a pool of one, inside a chunk, or no BLAS whose threads can be set)."""
    if xp is not numpy or getattr(_local, "inside", False) or pool_size() < 2 or not blas.controllable():
        return 1
    return pool_size()


def parallel_products(n_items: int, fn: Callable[[int, int], None], pieces: int | None = None) -> None:
    """Run ``fn(start, stop)`` over :func:`product_threads` near-equal ranges of ``range(n_items)``
    (at most ``pieces``, if given) at once, the BLAS held to one thread throughout, so that ``fn``
    may call it.

    For NumPy arrays only, and for work the caller has found worth cutting: every thread gets a range.
    ``fn`` must only write its own range's part of the output.
    """
    count = min(product_threads(numpy), n_items, n_items if pieces is None else pieces)
    if count <= 1:
        fn(0, n_items)
        return
    bounds = [n_items * i // count for i in range(count + 1)]
    with blas.one_thread():
        _run_ranges([(bounds[i], bounds[i + 1]) for i in range(count)], fn)


def matmul(a: Any, b: Any, out: Any = None) -> Any:
    """``xp.matmul(a, b, out=out)``, on minigrad's threads: one set of threads for products and copies.

    With :func:`product_threads` > 1, for two float arrays of one dtype, each at least 2-D, of at
    least :data:`MIN_PRODUCT_WORK` multiply-adds per piece, the product is cut into one piece per
    thread (fewer where it is smaller) and each thread multiplies its piece with the BLAS held to
    one thread (:func:`parallel_products`):

    - a wide output is cut into ranges of its columns (or of its rows, when there are more):
      each output number is the same dot product as in one call;
    - an output smaller than the summed axis (``grad_weight``'s δ · colsᵀ: a small matrix summed
      over every pixel of the batch) is cut along the summed axis instead, each thread summing
      its range into a matrix of its own, and those few partial sums are added at the end.

    The BLAS may round a piece's edges differently in the last bit, and partial sums add in
    another order than one call would: the result equals one call's up to rounding, and is the
    same on every run with the same thread count. A product too small to cut runs on the calling
    thread, the BLAS held to one thread all the same; one below :data:`SMALL_PRODUCT_WORK` (which
    a BLAS runs on one thread anyway), on one thread, or on a GPU is one call (:func:`_product`).
    """
    xp = get_array_module(a)
    rows, inner, columns = (a.shape[-2], a.shape[-1], b.shape[-1]) if min(a.ndim, b.ndim) >= 2 else (0, 0, 0)
    batch = max(a.size // max(rows * inner, 1), b.size // max(inner * columns, 1), 1)
    work = rows * inner * columns * batch
    if product_threads(xp) < 2 or work < SMALL_PRODUCT_WORK or a.dtype != b.dtype or a.dtype.kind != "f":
        return _product(xp, a, b, out)
    pieces = min(product_threads(xp), work // MIN_PRODUCT_WORK)   # each at least MIN_PRODUCT_WORK
    if pieces < 2:   # not worth cutting, but kept off the BLAS's threads all the same
        with blas.one_thread():
            return _product(xp, a, b, out)
    shape = xp.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (rows, columns)
    if rows * columns < inner:
        return _summed_in_ranges(xp, a, b, shape, out, pieces)
    if out is None:
        out = xp.empty(shape, dtype=a.dtype)
    if columns >= rows:
        def column_range(start: int, stop: int) -> None:
            _product(xp, a, b[..., start:stop], out[..., start:stop])

        parallel_products(columns, column_range, pieces)
    else:
        def row_range(start: int, stop: int) -> None:
            _product(xp, a[..., start:stop, :], b, out[..., start:stop, :])

        parallel_products(rows, row_range, pieces)
    return out


def _product(xp: Any, a: Any, b: Any, out: Any) -> Any:
    """``xp.matmul(a, b, out=out)``; where the BLAS multiplies small products directly
    (``blas.small_matrix_kernels``), about twice as fast (docs/performance.md, "Tiles"), a thin one
    (rows · summed axis · ``TILE_COLUMNS`` ≤ ``SMALL_MATRIX_WORK``) as one batched call over
    (…, T, rows, ``TILE_COLUMNS``) views of ``b`` and ``out``, plus one for the columns left over."""
    whole = b.shape[-1] - b.shape[-1] % TILE_COLUMNS if min(a.ndim, b.ndim) >= 2 else 0
    thin = whole >= 2 * TILE_COLUMNS and a.shape[-2] * a.shape[-1] * TILE_COLUMNS <= SMALL_MATRIX_WORK
    floats = a.dtype == b.dtype and a.dtype.kind == "f"
    if not (thin and floats and xp is numpy and blas.small_matrix_kernels()):
        return xp.matmul(a, b, out=out)
    if out is None:
        shape = xp.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
        out = xp.empty(shape, dtype=a.dtype)

    def tiles(matrix: Any) -> Any:   # (…, r, whole) -> (…, T, r, TILE_COLUMNS): splitting an axis is a view
        return matrix[..., :whole].reshape(*matrix.shape[:-1], -1, TILE_COLUMNS).swapaxes(-3, -2)

    xp.matmul(a[..., None, :, :], tiles(b), out=tiles(out))
    if whole < b.shape[-1]:
        xp.matmul(a, b[..., whole:], out=out[..., whole:])
    return out


def _summed_in_ranges(xp: Any, a: Any, b: Any, shape: tuple, out: Any, pieces: int) -> Any:
    """``a @ b`` as the sum of ``pieces`` products, one per thread, over ranges of the summed axis."""
    parts = xp.empty((pieces,) + shape, dtype=a.dtype)
    inner = a.shape[-1]
    bounds = [inner * i // len(parts) for i in range(len(parts) + 1)]

    def summed_range(first: int, last: int) -> None:
        for part in range(first, last):   # one part per thread
            start, stop = bounds[part], bounds[part + 1]
            xp.matmul(a[..., start:stop], b[..., start:stop, :], out=parts[part])

    parallel_products(len(parts), summed_range)
    return xp.sum(parts, axis=0, out=out)


def _run_ranges(ranges: list[tuple[int, int]], fn: Callable[[int, int], None]) -> None:
    """``fn`` over ``ranges``: the first on the calling thread, the others on the pool; errors after all.

    The pool is the one current when the call starts, held until its chunks are done (a resize
    meanwhile retires it, without stopping it). With no pool (one thread) the calling thread
    runs every range itself.
    """
    if len(ranges) == 1:
        fn(*ranges[0])
        return
    modes = _callers_modes()
    pool = _borrow_pool()
    if pool is None:
        for start, stop in ranges:
            _run_chunk(contextvars.copy_context(), modes, fn, start, stop)
        return
    ran: list[tuple[threading.Lock, BaseException | None]] = []
    handed: list[tuple[threading.Lock, threading.Lock, int, int]] = []   # (claim, done, start, stop)
    taken_back: list[threading.Lock] = []
    error: BaseException | None = None
    try:
        for start, stop in ranges[1:]:
            handed.append((*pool.submit(modes, fn, start, stop, ran), start, stop))
        _run_chunk(contextvars.copy_context(), modes, fn, *ranges[0])
        for claim, done, start, stop in reversed(handed):   # the last handed over: the least likely started
            if claim.acquire(blocking=False):   # no pool thread has started it: run it here
                taken_back.append(done)
                _run_chunk(contextvars.copy_context(), modes, fn, start, stop)
    except BaseException as first_error:  # noqa: BLE001 (re-raised below, once every chunk is done)
        error = first_error
    interrupted = _wait_for([done for _, done, _, _ in handed if done not in taken_back], ran)
    _give_back(pool)
    if interrupted is not None:
        raise interrupted
    errors = [raised for _, raised in ran if raised is not None]
    if error is None and errors:
        error = errors[0]
    if error is not None:
        raise error


def _wait_for(done: list[threading.Lock], ran: list) -> BaseException | None:
    """Wait until every chunk has run, even through a KeyboardInterrupt (returned, to be raised
    then): a chunk still running writes into an array the caller is about to see.

    A chunk that has run is in ``ran``: that, not the lock, says when to stop waiting, since an
    interrupt may strike just after ``acquire`` returned, and a second ``acquire`` would never return.
    """
    interrupted = None
    for lock in done:
        while True:
            try:
                if any(handed is lock for handed, _ in ran):
                    break
                lock.acquire()
            except BaseException as error:  # noqa: BLE001 (a signal in the calling thread; raised after)
                interrupted = interrupted or error
    return interrupted


def outer_axis(array: Any, axes: Sequence[int] | None = None) -> int:
    """Of ``axes`` (default: all), the one with the largest stride: the outermost in memory.

    Cutting an array along it gives pieces that are each one block of memory (for a dense array),
    whatever order its axes are stored in — (N, C, H, W) or the convolution's (C, H, W, N).
    """
    candidates = range(array.ndim) if axes is None else axes
    return max(candidates, key=lambda axis: (abs(array.strides[axis]) * (array.shape[axis] > 1), -axis))


def map_into(fn: Callable[..., Any], out: Any, *inputs: Any, passes: int = 1) -> Any:
    """``out[...] = fn(*inputs)`` piece by piece, for an ``fn`` that works element by element.

    ``fn(*input_pieces, out=out_piece)`` writes its result into ``out_piece``. The inputs have
    ``out``'s shape; they are cut along ``out``'s outermost axis in memory. ``passes``: how many
    times ``fn`` goes over the data (it sets how much work a chunk is). Returns ``out``.
    """
    if any(array.shape != out.shape for array in inputs) or out.ndim == 0:
        fn(*inputs, out=out)
        return out
    axis = outer_axis(out)
    before = (slice(None),) * axis
    item_bytes = passes * (out.nbytes + sum(array.nbytes for array in inputs)) // max(out.shape[axis], 1)

    def chunk(start: int, stop: int) -> None:
        piece = before + (slice(start, stop),)
        fn(*(array[piece] for array in inputs), out=out[piece])

    parallel_for(get_array_module(out), out.shape[axis], item_bytes, chunk)
    return out


def in_pieces(fn: Callable[..., None], *arrays: Any, passes: int = 1) -> None:
    """``fn(*arrays)`` for an ``fn`` that works element by element, in place, on pieces of the arrays.

    The arrays (None entries are passed on as None) must have one shape and be C-contiguous to be
    cut — into flat, matching pieces; otherwise ``fn`` gets them whole. ``passes``: how many times
    ``fn`` goes over the data.
    """
    present = [array for array in arrays if array is not None]
    first = present[0]
    xp = get_array_module(first)
    if xp is not numpy or first.ndim == 0 or any(array.shape != first.shape or not array.flags.c_contiguous
                                                 for array in present):
        fn(*arrays)
        return
    flat = [None if array is None else array.reshape(-1) for array in arrays]
    item_bytes = passes * sum(array.itemsize for array in present)

    def chunk(start: int, stop: int) -> None:
        fn(*(None if array is None else array[start:stop] for array in flat))

    parallel_for(xp, first.size, item_bytes, chunk)


def copy_into(out: Any, source: Any) -> Any:
    """``out[...] = source`` in pieces along ``out``'s outermost axis in memory; returns ``out``."""
    return map_into(_assign, out, source, passes=1)


def _assign(source: Any, out: Any) -> None:
    out[...] = source
