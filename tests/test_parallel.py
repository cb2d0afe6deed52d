"""minigrad/performance/parallel.py: the thread pool behind the parallel loops, and the ops that use it.

The ops are checked bit for bit against their one-piece run (one thread): the pieces are disjoint,
so nothing may change, not even the last bit or a nan's place. ``many_pieces`` makes every array
worth cutting (the byte threshold down to 1) and the pool 4 threads wide, so that small test
arrays go through the parallel path.
"""

import json
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import standin_cupy
from _pool import let_the_pool_start

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.performance import blas, parallel


@pytest.fixture
def many_pieces(monkeypatch):
    """Every array worth cutting, a pool of 4; yields the set of threads that ran a piece."""
    monkeypatch.setattr(parallel, "MIN_CHUNK_BYTES", 1)
    threads = set()
    run_chunk = parallel._run_chunk

    def recorded(*args):
        threads.add(threading.get_ident())
        let_the_pool_start()
        run_chunk(*args)

    monkeypatch.setattr(parallel, "_run_chunk", recorded)
    parallel.resize(4)
    yield threads
    parallel.resize(None)


def one_thread_and_many(compute):
    """``compute()`` run as one piece (a pool of 1), then in pieces on 4 threads: both results."""
    parallel.resize(1)
    whole = compute()
    parallel.resize(4)
    return whole, compute()


def assert_same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    assert a.tobytes() == b.tobytes()


# --- the pool ---------------------------------------------------------------------------------------------

def _run(code: str) -> object:
    completed = subprocess.run([sys.executable, "-c", "import json, threading\n" + code],
                               capture_output=True, text=True, check=True, timeout=120)
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_importing_minigrad_starts_no_thread():
    code = ("import minigrad as mg\n"
            "before = threading.active_count()\n"
            "mg.nn.functional.relu(mg.randn(3, 4))\n"       # small: no piece is worth a thread
            "print(json.dumps([before, threading.active_count()]))")
    assert _run(code) == [1, 1]


def test_the_pool_follows_set_num_threads():
    code = ("import minigrad as mg\nfrom minigrad.performance import parallel\n"
            "default = parallel.pool_size() == mg.get_num_threads()\n"
            "mg.set_num_threads(3)\n"
            "three = parallel.pool_size()\n"
            "parallel.MIN_CHUNK_BYTES = 1\n"
            "seen = set()\n"
            "def record(start, stop):\n"
            "    seen.add(threading.get_ident()); import time; time.sleep(0.05)\n"
            "parallel.parallel_for(__import__('numpy'), 3, 1, record)\n"
            "mg.set_num_threads(1)\n"
            "print(json.dumps([default, three, len(seen), parallel.pool_size()]))")
    assert _run(code) == [True, 3, 3, 1]


def test_a_replaced_pool_lets_its_threads_end():
    code = ("import time, minigrad as mg\nfrom minigrad.performance import parallel\n"
            "mg.set_num_threads(3)\nparallel.MIN_CHUNK_BYTES = 1\n"
            "parallel.parallel_for(__import__('numpy'), 3, 1, lambda start, stop: time.sleep(0.05))\n"
            "running = threading.active_count()\n"
            "mg.set_num_threads(1)\n"
            "deadline = time.monotonic() + 10\n"
            "while threading.active_count() > 1 and time.monotonic() < deadline:\n"
            "    time.sleep(0.01)\n"
            "print(json.dumps([running, threading.active_count()]))")
    assert _run(code) == [3, 1]


def test_the_ranges_cover_every_item_once(many_pieces):
    for n in (1, 2, 3, 7, 100):
        covered = []
        lock = threading.Lock()

        def record(start, stop, covered=covered, lock=lock):
            with lock:
                covered.extend(range(start, stop))

        parallel.parallel_for(np, n, 1, record)
        assert sorted(covered) == list(range(n))


def test_chunk_ranges_respect_the_threshold(monkeypatch):
    monkeypatch.setattr(parallel, "MIN_CHUNK_BYTES", 1000)
    assert parallel.chunk_ranges(10, 10, 4) == [(0, 10)]                  # 100 bytes in all: one piece
    assert parallel.chunk_ranges(10, 250, 4) == [(0, 5), (5, 10)]         # 2500 bytes: two pieces of 1000+
    assert parallel.chunk_ranges(10, 10_000, 4) == [(0, 2), (2, 5), (5, 7), (7, 10)]
    assert parallel.chunk_ranges(3, 10_000, 4) == [(0, 1), (1, 2), (2, 3)]  # never more pieces than items


def test_small_work_runs_on_the_calling_thread():
    threads = set()
    parallel.parallel_for(np, 1000, 1, lambda start, stop: threads.add(threading.get_ident()))
    assert threads == {threading.get_ident()}


def test_the_caller_runs_a_piece_no_pool_thread_has_started(monkeypatch):
    """With the pool's only thread held up (as by another program on its core), a call does not wait
    for it: the caller, done with its own range, takes the other back and runs it."""
    monkeypatch.setattr(parallel, "MIN_CHUNK_BYTES", 1)
    parallel.resize(2)
    held, release = threading.Event(), threading.Event()

    def hold_the_pool_thread(start, stop):
        if threading.current_thread() is not threading.main_thread():
            held.set()
            release.wait(30)

    try:
        other = threading.Thread(target=parallel.parallel_for, args=(np, 2, 1, hold_the_pool_thread))
        other.start()
        assert held.wait(30)
        ran = []
        parallel.parallel_for(np, 2, 1, lambda start, stop: ran.append((start, threading.get_ident())))
        assert sorted(ran) == [(0, threading.get_ident()), (1, threading.get_ident())]
        assert not release.is_set()                         # returned while the pool thread was held
    finally:
        release.set()
        other.join(30)
        parallel.resize(None)


def test_an_exception_reaches_the_caller_after_every_piece_is_done(many_pieces):
    finished = []

    def work(start, stop):
        if start == 0:
            raise ValueError("piece 0 failed")
        time.sleep(0.05)
        finished.append(start)

    with pytest.raises(ValueError, match="piece 0 failed"):
        parallel.parallel_for(np, 4, 1, work)
    assert sorted(finished) == [1, 2, 3]                                   # the others ran to their end


def test_an_exception_in_a_pool_thread_reaches_the_caller(many_pieces):
    def work(start, stop):
        if start == 3:
            raise IndexError("last piece")

    with pytest.raises(IndexError, match="last piece"):
        parallel.parallel_for(np, 4, 1, work)


def test_nested_loops_run_serially_inside_a_piece(many_pieces):
    inner_threads = []

    def outer(start, stop):
        me = threading.get_ident()
        seen = set()
        parallel.parallel_for(np, 8, 1, lambda a, b: seen.add(threading.get_ident()))
        inner_threads.append(seen == {me})

    parallel.parallel_for(np, 4, 1, outer)                                 # returns: no deadlock
    assert inner_threads == [True] * 4


def test_pieces_compute_under_the_callers_numpy_error_state(many_pieces):
    states = []
    with np.errstate(divide="ignore", invalid="raise"):
        parallel.parallel_for(np, 4, 1, lambda start, stop: states.append(np.geterr()["invalid"]))
    assert states == ["raise"] * 4


def test_the_cupy_standin_runs_in_one_piece_on_the_calling_thread(many_pieces):
    cp = standin_cupy.standin
    calls = []
    parallel.parallel_for(cp, 100, 10**6,
                          lambda start, stop: calls.append((start, stop, threading.get_ident())))
    assert calls == [(0, 100, threading.get_ident())]
    out = cp.empty((64, 8))
    parallel.map_into(lambda x, out: cp.negative(x, out=out), out, cp.ones((64, 8)))
    assert float(out.sum().get()) == -512.0


def _blas_threads():
    return [library.num_threads for library in blas._blas_libraries()]


@pytest.mark.skipif(not blas.controllable(), reason="no BLAS whose threads threadpoolctl can set")
def test_products_run_one_range_per_thread_with_the_blas_on_one_thread(many_pieces):
    before = _blas_threads()
    for n in (1, 2, 3, 7):
        covered, counts = [], []
        lock = threading.Lock()

        def record(start, stop, covered=covered, counts=counts, lock=lock):
            product = np.ones((64, 64)) @ np.ones((64, 64))           # a BLAS call inside a range is allowed
            with lock:
                covered.append((start, stop))
                counts.extend(_blas_threads())
            assert product[0, 0] == 64.0

        parallel.parallel_products(n, record)
        assert sorted(covered) == [(n * i // min(n, 4), n * (i + 1) // min(n, 4)) for i in range(min(n, 4))]
        assert set(counts) == ({1} if n > 1 else set(before))          # one range: no block, nothing held
    assert _blas_threads() == before


def test_products_inside_a_piece_or_on_the_cupy_standin_run_on_the_calling_thread(many_pieces):
    assert parallel.product_threads(standin_cupy.standin) == 1
    inner = []
    parallel.parallel_for(np, 4, 1, lambda start, stop: inner.append(parallel.product_threads(np)))
    assert inner == [1] * 4
    parallel.resize(1)
    assert parallel.product_threads(np) == 1


@pytest.mark.skipif(not blas.controllable(), reason="no BLAS whose threads threadpoolctl can set")
def test_an_exception_in_products_gives_the_blas_its_threads_back(many_pieces):
    before = _blas_threads()

    def work(start, stop):
        if start > 0:
            raise ArithmeticError("a band failed")

    with pytest.raises(ArithmeticError, match="a band failed"):
        parallel.parallel_products(4, work)
    assert _blas_threads() == before


@pytest.mark.skipif(not blas.controllable(), reason="no BLAS whose threads threadpoolctl can set")
def test_set_num_threads_inside_a_block_applies_when_it_ends():
    before = _blas_threads()
    try:
        with blas.one_thread():
            blas.set_threads(3)
            assert set(_blas_threads()) == {1} and set(blas.thread_counts()) == {3}
        assert set(_blas_threads()) == {3}
    finally:
        blas.set_threads(max(before))
    assert _blas_threads() == before


@pytest.fixture
def cut_products(many_pieces, monkeypatch):
    """Products of any size cut between the pool's 4 threads; records the BLAS's thread counts in pieces."""
    monkeypatch.setattr(parallel, "MIN_PRODUCT_WORK", 1)
    monkeypatch.setattr(parallel, "SMALL_PRODUCT_WORK", 1)
    counts = []
    matmul = np.matmul

    def recorded(*args, **kwargs):
        counts.extend(_blas_threads())
        return matmul(*args, **kwargs)

    monkeypatch.setattr(np, "matmul", recorded)   # parallel.matmul calls xp.matmul, xp being numpy
    return counts


# (a, b) shapes: output columns cut, output rows cut, the summed axis cut (a small output), a batch
# broadcast against a matrix, and batches on both sides
PRODUCTS = [((6, 5), (5, 40)), ((40, 5), (5, 6)), ((3, 200), (200, 4)), ((2, 7, 9), (9, 30)),
            ((4, 1, 6, 8), (3, 8, 12))]


@pytest.mark.skipif(not blas.controllable(), reason="no BLAS whose threads threadpoolctl can set")
@pytest.mark.parametrize("shapes", PRODUCTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_product_cut_between_the_threads_equals_one_call(cut_products, shapes, dtype):
    rng = np.random.default_rng(8)
    a, b = (rng.standard_normal(shape).astype(dtype) for shape in shapes)
    before = _blas_threads()
    product = parallel.matmul(a, b)
    exact = a.astype(np.float64) @ b.astype(np.float64)                 # the operator: not the patched name
    assert product.shape == exact.shape and product.dtype == dtype
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(product, exact, rtol=tolerance, atol=tolerance * np.abs(exact).max())
    assert_same_bits(product, parallel.matmul(a, b))                     # the same on every run
    assert len(cut_products) > 1 and set(cut_products) == {1}            # pieces, the BLAS on one thread
    assert _blas_threads() == before


def assert_product_written_into_a_view(rng, columns):
    """parallel.matmul(a, b, out=view): a view of `columns` columns in rows of columns + 70."""
    a, b = rng.standard_normal((8, 6)), rng.standard_normal((6, columns))
    target = np.full((8, columns + 70), np.nan)
    view = target[:, 10:10 + columns]
    assert parallel.matmul(a, b, out=view) is view
    np.testing.assert_allclose(target[:, 10:10 + columns], a @ b, rtol=1e-12)
    assert np.isnan(target[:, :10]).all() and np.isnan(target[:, 10 + columns:]).all()


@pytest.mark.skipif(not blas.controllable(), reason="no BLAS whose threads threadpoolctl can set")
def test_a_cut_product_writes_into_a_strided_out(cut_products):
    rng = np.random.default_rng(9)
    assert_product_written_into_a_view(rng, 50)
    summed, long_a, long_b = np.zeros((3, 4)), rng.standard_normal((3, 300)), rng.standard_normal((300, 4))
    assert parallel.matmul(long_a, long_b, out=summed) is summed        # a small output: the summed axis cut
    np.testing.assert_allclose(summed, long_a @ long_b, rtol=1e-12)


@pytest.fixture
def tile_calls(monkeypatch):
    """Products tiled as on a BLAS with small-matrix kernels; yields the shapes of b in each matmul call."""
    monkeypatch.setattr(blas, "small_matrix_kernels", lambda: True)
    shapes = []
    matmul = np.matmul

    def recorded(a, b, *args, **kwargs):
        shapes.append(np.shape(b))
        return matmul(a, b, *args, **kwargs)

    monkeypatch.setattr(np, "matmul", recorded)
    return shapes


# (a, b) shapes of thin products: columns left over after the tiles, a batch against a matrix, a matrix
# against a batch, batches broadcast on both sides, and columns that are exactly tiles
THIN_PRODUCTS = [((6, 5), (5, 700)), ((2, 7, 9), (9, 300)), ((6, 5), (3, 5, 384)),
                 ((4, 1, 6, 8), (3, 8, 512)), ((3, 4), (4, 256))]


@pytest.mark.parametrize("shapes", THIN_PRODUCTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("threads", [1, 4])
def test_a_thin_product_in_tiles_equals_one_call(tile_calls, shapes, dtype, threads):
    rng = np.random.default_rng(12)
    a, b = (rng.standard_normal(shape).astype(dtype) for shape in shapes)
    parallel.resize(threads)
    try:
        product = parallel.matmul(a, b)
    finally:
        parallel.resize(None)
    exact = a.astype(np.float64) @ b.astype(np.float64)                 # the operator: not the patched name
    assert product.shape == exact.shape and product.dtype == dtype
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(product, exact, rtol=tolerance, atol=tolerance * np.abs(exact).max())
    tiles = [shape for shape in tile_calls if len(shape) > b.ndim and shape[-1] == parallel.TILE_COLUMNS]
    assert tiles, tile_calls                                            # a batched call over the tiles
    assert sum(shape[-3] for shape in tiles) * parallel.TILE_COLUMNS <= b.shape[-1] * threads


def test_a_tiled_product_writes_into_a_strided_out(tile_calls):
    assert_product_written_into_a_view(np.random.default_rng(13), 300)
    assert any(len(shape) == 3 for shape in tile_calls)                 # in tiles


def test_products_are_tiled_only_when_thin_wide_and_on_small_matrix_kernels(tile_calls, monkeypatch):
    rng = np.random.default_rng(14)
    thick, wide = rng.standard_normal((100, 100)), rng.standard_normal((100, 1000))
    np.testing.assert_allclose(parallel.matmul(thick, wide), thick @ wide, rtol=1e-12)  # 100·100·128 > 10⁶
    narrow = rng.standard_normal((4, 200))
    np.testing.assert_allclose(parallel.matmul(thick[:4, :4], narrow[:4]), thick[:4, :4] @ narrow[:4])
    integers = np.arange(1200).reshape(4, 300)
    assert (parallel.matmul(np.eye(4, dtype=int), integers) == integers).all()
    monkeypatch.setattr(blas, "small_matrix_kernels", lambda: False)
    np.testing.assert_allclose(parallel.matmul(thick[:4, :4], wide[:4]), thick[:4, :4] @ wide[:4], rtol=1e-12)
    assert all(len(shape) == 2 for shape in tile_calls)                 # each the one plain call


class _Library:
    def __init__(self, internal_api, architecture):
        self.internal_api, self.architecture = internal_api, architecture


@pytest.mark.parametrize("libraries, expected", [
    ([_Library("openblas", "SkylakeX")], True), ([_Library("openblas", "SapphireRapids")], True),
    ([_Library("openblas", "Haswell")], False), ([_Library("openblas", "Zen")], False),
    ([_Library("mkl", None)], False), ([], False)])
def test_small_matrix_kernels_are_openblas_avx512_ones(monkeypatch, libraries, expected):
    monkeypatch.setattr(blas, "_libraries", libraries)
    assert blas.small_matrix_kernels() is expected


def test_products_that_are_not_cut_are_numpys_own(many_pieces, monkeypatch):
    """Small products, integer or mixed dtypes, vectors, one thread, and the CuPy stand-in: the one call."""
    rng = np.random.default_rng(10)
    calls = []
    matmul = np.matmul
    monkeypatch.setattr(np, "matmul", lambda *args, **kwargs: calls.append(1) or matmul(*args, **kwargs))
    small = rng.standard_normal((4, 4)).astype(np.float32)
    assert_same_bits(parallel.matmul(small, small), matmul(small, small))
    integers = np.arange(12).reshape(3, 4)
    assert_same_bits(parallel.matmul(integers, integers.T), matmul(integers, integers.T))
    monkeypatch.setattr(parallel, "MIN_PRODUCT_WORK", 1)
    monkeypatch.setattr(parallel, "SMALL_PRODUCT_WORK", 1)
    mixed = parallel.matmul(small, small.astype(np.float64))
    assert mixed.dtype == np.float64
    vector = rng.standard_normal(4).astype(np.float32)
    assert_same_bits(parallel.matmul(small, vector), matmul(small, vector))
    parallel.resize(1)
    assert_same_bits(parallel.matmul(small, small), matmul(small, small))
    assert calls == [1] * 5                                             # each made one call
    cupy_like = standin_cupy.standin.asarray(small)
    assert parallel.matmul(cupy_like, cupy_like).shape == (4, 4)


@pytest.mark.skipif(not blas.controllable(), reason="no BLAS whose threads threadpoolctl can set")
def test_a_product_too_small_to_cut_keeps_the_blas_on_one_thread(many_pieces, monkeypatch):
    monkeypatch.setattr(parallel, "SMALL_PRODUCT_WORK", 1)
    monkeypatch.setattr(parallel, "MIN_PRODUCT_WORK", 1 << 62)
    counts = []
    matmul = np.matmul
    monkeypatch.setattr(np, "matmul", lambda *args, **kwargs: counts.extend(_blas_threads()) or
                        matmul(*args, **kwargs))
    before = _blas_threads()
    a = np.ones((16, 16))
    assert (parallel.matmul(a, a) == 16).all()
    assert set(counts) == {1} and len(counts) == len(before)           # one call, the BLAS on one thread
    assert _blas_threads() == before


def test_linear_layers_and_the_tuned_convolution_cut_their_products(cut_products):
    """The MNIST step's products go through parallel.matmul: nn.Linear's forward and backward, conv's."""
    rng = np.random.default_rng(11)
    linear = mg.nn.Linear(12, 7)
    x = mg.tensor(rng.standard_normal((5, 12)).astype(np.float32), requires_grad=True)
    linear(x).sum().backward()
    assert len(cut_products) >= 3 * 2                                  # forward, dx, dW: each in pieces
    cut_products.clear()
    image = mg.tensor(rng.standard_normal((2, 1, 6, 6)).astype(np.float32), requires_grad=True)
    F.conv2d(image, mg.randn(3, 1, 3, 3, requires_grad=True)).sum().backward()
    assert len(cut_products) >= 3 * 2


def test_outer_axis_is_the_outermost_in_memory():
    x = np.empty((4, 3, 5, 6))
    assert parallel.outer_axis(x) == 0
    assert parallel.outer_axis(x.transpose(3, 0, 1, 2)) == 1                # (C, H, W, N) memory read as NCHW
    assert parallel.outer_axis(np.empty((1, 3, 5)).transpose(0, 1, 2)) == 1  # a length-1 axis is no cut


# --- the ops that use it, bit for bit -----------------------------------------------------------------

def _activation(order: str, seed: int = 0) -> np.ndarray:
    """A (N, C, H, W) float32 array with nan, ±inf, −0.0 and ties, C-ordered or in (C, H, W, N) memory."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((6, 5, 8, 8)).astype(np.float32)
    x[0, 0, 0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    x[1, 1, 2:4, 2:4] = 1.5                                                 # a window of ties
    return x if order == "nchw" else np.ascontiguousarray(x.transpose(1, 2, 3, 0)).transpose(3, 0, 1, 2)


@pytest.mark.parametrize("order", ["nchw", "chwn"])
def test_relu_forward_and_backward_are_the_same_in_pieces(many_pieces, order):
    x = _activation(order)
    grad = _activation("nchw", seed=1)

    def compute():
        a = mg.tensor(x, requires_grad=True)
        y = F.relu(a)
        y.backward(mg.tensor(grad))
        return y.detach().numpy(), a.grad.numpy()

    (y1, g1), (y4, g4) = one_thread_and_many(compute)
    assert_same_bits(y1, y4)
    assert_same_bits(g1, g4)
    assert_same_bits(y1, np.where(x < 0, np.float32(0), x))                # and right
    assert len(many_pieces) > 1


@pytest.mark.parametrize("order", ["nchw", "chwn"])
@pytest.mark.parametrize("settings", [
    dict(kernel_size=2),                                                    # tiling windows
    dict(kernel_size=3, stride=2, padding=1),                               # overlapping, padded
    dict(kernel_size=3, stride=2, ceil_mode=True),                          # a partial last window
    dict(kernel_size=2, stride=1, dilation=2),
])
def test_max_pool_forward_and_backward_are_the_same_in_pieces(many_pieces, order, settings):
    x = _activation(order)
    x[0, 0, 0, 0] = 0.0                                                     # finite maxima: the fast backward
    x[0, 0, 0, 1:3] = 2.0

    def compute():
        a = mg.tensor(x, requires_grad=True)
        y = F.max_pool2d(a, **settings)
        rng = np.random.default_rng(2)
        y.backward(mg.tensor(rng.standard_normal(tuple(y.shape)).astype(np.float32)))
        return y.detach().numpy(), a.grad.numpy()

    (y1, g1), (y4, g4) = one_thread_and_many(compute)
    assert_same_bits(y1, y4)
    assert_same_bits(g1, g4)
    assert len(many_pieces) > 1


@pytest.mark.parametrize("order", ["nchw", "chwn"])
@pytest.mark.parametrize("settings", [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=3, stride=2, ceil_mode=True),
    dict(kernel_size=2, stride=1, divisor_override=3),
])
def test_avg_pool_forward_and_backward_are_the_same_in_pieces(many_pieces, order, settings):
    x = _activation(order)
    x[0, 0, 0, :4] = [1.0, 2.0, -3.0, -0.0]                                # finite: the sums stay numbers

    def compute():
        a = mg.tensor(x, requires_grad=True)
        y = F.avg_pool2d(a, **settings)
        y.backward(mg.tensor(np.random.default_rng(7).standard_normal(tuple(y.shape)).astype(np.float32)))
        whole_numbers = F.avg_pool2d(mg.tensor((x * 10).astype(np.int64)), **settings)
        return y.detach().numpy(), a.grad.numpy(), whole_numbers.numpy()

    whole, pieces = one_thread_and_many(compute)
    for one, many in zip(whole, pieces):
        assert_same_bits(one, many)
    assert len(many_pieces) > 1


def test_max_pool_of_a_single_image_is_the_same_in_pieces(many_pieces):
    x = _activation("nchw")[0]                                              # (C, H, W): cut along C
    (y1, _), (y4, _) = one_thread_and_many(lambda: (F.max_pool2d(mg.tensor(x), 2).numpy(), None))
    assert_same_bits(y1, y4)


@pytest.mark.parametrize("options", [dict(), dict(amsgrad=True, weight_decay=0.1),
                                     dict(maximize=True, decoupled_weight_decay=True, weight_decay=0.1)])
def test_adam_updates_are_the_same_in_pieces(many_pieces, options):
    rng = np.random.default_rng(3)
    start = rng.standard_normal((33, 17)).astype(np.float32)
    grads = [rng.standard_normal((33, 17)).astype(np.float32) for _ in range(3)]

    def compute():
        p = mg.tensor(start.copy(), requires_grad=True)
        optimizer = mg.optim.Adam([p], lr=0.1, **options)
        for g in grads:
            p.grad = mg.tensor(g)
            optimizer.step()
        state = optimizer.state[p]
        return p.detach().numpy(), state["exp_avg_sq"].numpy()

    (p1, v1), (p4, v4) = one_thread_and_many(compute)
    assert_same_bits(p1, p4)
    assert_same_bits(v1, v4)
    assert not np.array_equal(p1, start)
    assert len(many_pieces) > 1


@pytest.mark.parametrize("options", [dict(), dict(momentum=0.9, weight_decay=0.1),
                                     dict(momentum=0.9, nesterov=True, maximize=True),
                                     dict(momentum=0.5, dampening=0.3)])
def test_sgd_updates_are_the_same_in_pieces(many_pieces, options):
    rng = np.random.default_rng(6)
    start = rng.standard_normal((40, 9)).astype(np.float32)
    grads = [rng.standard_normal((40, 9)).astype(np.float32) for _ in range(3)]

    def compute():
        p = mg.tensor(start.copy(), requires_grad=True)
        optimizer = mg.optim.SGD([p], lr=0.1, **options)
        for g in grads:
            p.grad = mg.tensor(g)
            optimizer.step()
        return p.detach().numpy()

    one, many = one_thread_and_many(compute)
    assert_same_bits(one, many)
    assert not np.array_equal(one, start)
    assert len(many_pieces) > 1


@pytest.mark.parametrize("settings", [
    dict(in_channels=6, out_channels=8, kernel=3, padding=1),                          # padded
    dict(in_channels=1, out_channels=4, kernel=5, padding=2),                          # im2col cut over rows
    dict(in_channels=3, out_channels=4, kernel=3, stride=2, padding=1),                # rows, strided
    dict(in_channels=6, out_channels=4, kernel=3, stride=2),                           # strided, no padding
    dict(in_channels=8, out_channels=8, kernel=3, padding=2, dilation=2, groups=2),    # dilated, grouped
    dict(in_channels=6, out_channels=12, kernel=3, padding=1, groups=6),               # depthwise, m = 2
    dict(in_channels=6, out_channels=6, kernel=(3, 2), padding=(1, 0), dilation=(1, 2), groups=6),
])
def test_the_default_convolution_is_the_same_in_pieces(many_pieces, settings):
    """The default im2col's copies (im2col.py) and the depthwise path, cut over channels."""
    settings = dict(settings)
    c_in, c_out, kernel = settings.pop("in_channels"), settings.pop("out_channels"), settings.pop("kernel")
    kh, kw = kernel if isinstance(kernel, tuple) else (kernel, kernel)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, c_in, 9, 10)).astype(np.float32)
    weight = rng.standard_normal((c_out, c_in // settings.get("groups", 1), kh, kw)).astype(np.float32)

    def compute():
        a, w = mg.tensor(x, requires_grad=True), mg.tensor(weight, requires_grad=True)
        y = F.conv2d(a, w, **settings)
        y.backward(mg.tensor(np.random.default_rng(5).standard_normal(tuple(y.shape)).astype(np.float32)))
        return y.detach().numpy(), a.grad.numpy(), w.grad.numpy()

    whole, pieces = one_thread_and_many(compute)
    for one, many in zip(whole, pieces):
        assert_same_bits(one, many)
    assert len(many_pieces) > 1


def test_blocked_copies_are_the_same_in_pieces(many_pieces, monkeypatch):
    from minigrad.performance import layout as _layout

    monkeypatch.setattr(_layout, "BLOCK_BYTES", 64)
    array = np.ascontiguousarray(_activation("chwn").transpose(1, 2, 3, 0)).transpose(3, 0, 1, 2)
    parallel.resize(4)
    copy = _layout.contiguous_copy(array)
    assert copy.flags.c_contiguous and copy.tobytes() == np.ascontiguousarray(array).tobytes()
    assert len(many_pieces) > 1


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="os.fork is POSIX only")
def test_a_forked_child_makes_its_own_pool():
    code = ("import os, numpy\nfrom minigrad.performance import parallel\n"
            "parallel.MIN_CHUNK_BYTES = 1\nparallel.resize(2)\n"
            "parallel.parallel_for(numpy, 2, 1, lambda a, b: None)\n"       # the parent's pool runs
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    seen = []\n"
            "    parallel.parallel_for(numpy, 2, 1, lambda a, b: seen.append(a))\n"  # hangs on the old pool
            "    os._exit(0 if sorted(seen) == [0, 1] else 1)\n"
            "print(json.dumps(os.waitpid(pid, 0)[1]))")
    assert _run(code) == 0
