"""The convolution on one set of threads: the default's products and copies, and the opt-in tuned
driver's bands, on minigrad's pool with the BLAS held to one thread.

Each call's result is compared with the same call on one thread (the BLAS's own threads, no
pool): equal up to rounding — products are cut in pieces (the BLAS may round a piece differently
in the last bit, partial sums add in another order) — and the same bits on every run with a given
thread count. ``products_on_pool`` and ``bands_on_pool`` lower the thresholds so that these small
cases take the pool's path, and record the threads that ran a piece and the BLAS's thread count
inside.
"""

import json
import subprocess
import sys
import threading

import numpy
import pytest
from _pool import let_the_pool_start
from conv_reference import CASE_IDS, CASES, ConvCase, output_grad
from test_conv_algorithms import RANDOM_CASES

from minigrad.ops.conv import algo_im2col, algo_im2col_tuned
from minigrad.performance import blas, parallel

# Where threadpoolctl can set no BLAS (Apple's Accelerate), the bands never run on the pool: the
# tests of that path need one; the fallback is tested everywhere (it pretends there is none).
needs_blas_control = pytest.mark.skipif(not blas.controllable(), reason="no BLAS whose threads can be set")


def _blas_threads() -> list[int]:
    return [library.num_threads for library in blas._blas_libraries()]


@pytest.fixture
def products_on_pool(monkeypatch):
    """Every product and copy worth cutting; yields what the pieces saw: their threads, and the BLAS's
    counts inside the pieces of products."""
    monkeypatch.setattr(parallel, "MIN_PRODUCT_WORK", 1)
    monkeypatch.setattr(parallel, "SMALL_PRODUCT_WORK", 0)
    monkeypatch.setattr(parallel, "MIN_CHUNK_BYTES", 1)
    seen = {"threads": set(), "blas": set()}
    run_chunk, parallel_products = parallel._run_chunk, parallel.parallel_products

    def recorded(*args):
        seen["threads"].add(threading.get_ident())
        let_the_pool_start()
        run_chunk(*args)

    def products_recorded(n_items, fn, pieces=None):
        def piece(start, stop):
            seen["blas"].update(_blas_threads())
            fn(start, stop)

        parallel_products(n_items, piece, pieces)

    monkeypatch.setattr(parallel, "_run_chunk", recorded)
    monkeypatch.setattr(parallel, "parallel_products", products_recorded)
    yield seen
    parallel.resize(None)


@pytest.fixture
def bands_on_pool(monkeypatch):
    """Every call worth the pool; yields what the pieces saw: their threads and the BLAS's counts."""
    monkeypatch.setattr(algo_im2col_tuned, "POOL_MIN_WIDTH", 1)
    monkeypatch.setattr(algo_im2col_tuned, "POOL_MIN_BYTES", 0)
    seen = {"threads": set(), "blas": set()}
    run_chunk = parallel._run_chunk

    def recorded(*args):
        seen["threads"].add(threading.get_ident())
        seen["blas"].update(_blas_threads())
        let_the_pool_start()
        run_chunk(*args)

    monkeypatch.setattr(parallel, "_run_chunk", recorded)
    yield seen
    parallel.resize(None)


def _tuned(case, x, weight, grad_out, module=algo_im2col_tuned):
    """Forward, δ prepared, both gradients: as Conv2dFunction calls the driver (or ``module``)."""
    out, saved = module.forward(x, weight, *case.settings)
    delta = module.prepare_grad_output(grad_out, weight.shape, case.stride, case.groups)
    grad_w = module.grad_weight(x, delta, weight.shape, *case.settings, saved=saved)
    grad_w_fresh = module.grad_weight(x, delta, weight.shape, *case.settings)   # nn.grad's way
    grad_x = module.grad_input(delta, weight, x.shape, *case.settings)
    return {"out": out, "x": grad_x, "weight": grad_w, "weight without saved": grad_w_fresh}


def _on_threads(threads, case, x, weight, grad_out, module=algo_im2col_tuned):
    parallel.resize(threads)
    return _tuned(case, x, weight, grad_out, module)


def assert_close(a, b, what):
    a, b = numpy.asarray(a), numpy.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, what
    tolerance = 1e-12 if a.dtype == numpy.float64 else 1e-5
    numpy.testing.assert_allclose(a, b, rtol=tolerance, atol=tolerance, err_msg=what)


def assert_same_bits(a, b, what):
    a, b = numpy.asarray(a), numpy.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, what
    assert a.tobytes() == b.tobytes(), what


EXTRA_CASES = [
    ConvCase("batch1-wide", 1, 5, (9, 11), 6, (3, 3), (1, 1), (1, 1)),
    ConvCase("batch2-below-threads", 2, 7, (6, 5), 3, (3, 3), (1, 1), (1, 1)),
    ConvCase("odd-sizes-stride2", 3, 5, (13, 7), 5, (3, 3), (2, 2), (1, 1)),
    ConvCase("groups3", 3, 6, (7, 7), 9, (3, 3), (1, 1), (1, 1), (1, 1), 3),
    ConvCase("depthwise-stride2", 2, 4, (9, 9), 4, (3, 3), (2, 2), (1, 1), (1, 1), 4),
    ConvCase("one-output-row", 4, 3, (3, 8), 2, (3, 3)),
]
ALL_CASES = CASES + EXTRA_CASES + RANDOM_CASES[:20]
ALL_IDS = CASE_IDS + [case.name for case in EXTRA_CASES + RANDOM_CASES[:20]]


@needs_blas_control
@pytest.mark.parametrize("band_bytes", [3 << 20, 1], ids=["one band", "bands of one row"])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32])
@pytest.mark.parametrize("case", ALL_CASES, ids=ALL_IDS)
def test_bands_on_two_and_three_threads_agree_with_one_thread(case, dtype, band_bytes, bands_on_pool,
                                                              monkeypatch):
    monkeypatch.setattr(algo_im2col_tuned, "BAND_BYTES", band_bytes)
    x, weight = case.arrays(seed=31)[:2]
    x, weight = x.astype(dtype), weight.astype(dtype)
    grad_out = output_grad(case, seed=32).astype(dtype)
    one = _on_threads(1, case, x, weight, grad_out)
    assert not bands_on_pool["threads"]                  # one thread: nothing ran on the pool
    for threads in (2, 3):
        many = _on_threads(threads, case, x, weight, grad_out)
        again = _on_threads(threads, case, x, weight, grad_out)
        for key in one:
            assert_close(many[key], one[key], f"{key} on {threads} threads")
            assert_same_bits(again[key], many[key], f"{key} on {threads} threads, run again")
    assert len(bands_on_pool["threads"]) > 1
    assert bands_on_pool["blas"] == {1}                  # every piece computed with the BLAS on one thread


@needs_blas_control
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32])
@pytest.mark.parametrize("case", ALL_CASES, ids=ALL_IDS)
def test_the_default_on_two_and_three_threads_agrees_with_one_thread(case, dtype, products_on_pool):
    """algo_im2col.py: its products cut by parallel.matmul, its copies in pieces, on the pool."""
    x, weight = case.arrays(seed=31)[:2]
    x, weight = x.astype(dtype), weight.astype(dtype)
    grad_out = output_grad(case, seed=32).astype(dtype)
    one = _on_threads(1, case, x, weight, grad_out, algo_im2col)
    assert not products_on_pool["threads"]                # one thread: nothing ran on the pool
    for threads in (2, 3):
        many = _on_threads(threads, case, x, weight, grad_out, algo_im2col)
        again = _on_threads(threads, case, x, weight, grad_out, algo_im2col)
        for key in one:
            assert_close(many[key], one[key], f"{key} on {threads} threads")
            assert_same_bits(again[key], many[key], f"{key} on {threads} threads, run again")
    assert len(products_on_pool["threads"]) > 1
    assert products_on_pool["blas"] == {1}               # every product's piece with the BLAS on one thread


def test_the_pool_runs_bands_only_where_the_shape_pays(monkeypatch):
    """The rule: thin products (a first layer's few channels), small layers and work that cannot be
    cut run each product and copy cut between the threads instead of whole bands."""
    monkeypatch.setattr(parallel, "product_threads", lambda xp: 2)
    assert algo_im2col_tuned._threads(numpy, 288, 14 << 20, 14) == 2       # MNIST's second layer
    assert algo_im2col_tuned._threads(numpy, 25, 5 << 20, 28) == 1         # its first: 1 channel, 5×5
    assert algo_im2col_tuned._threads(numpy, 288, 100 << 10, 14) == 1      # too little work
    assert algo_im2col_tuned._threads(numpy, 288, 14 << 20, 1) == 1        # nothing to cut
    monkeypatch.setattr(parallel, "product_threads", lambda xp: 1)
    assert algo_im2col_tuned._threads(numpy, 288, 14 << 20, 14) == 1


@needs_blas_control
@pytest.mark.parametrize("function", ["forward", "grad_input", "grad_weight"])
def test_the_blas_gets_its_threads_back_after_an_error_in_a_band(function, bands_on_pool, monkeypatch):
    case = EXTRA_CASES[1]
    x, weight = case.arrays(seed=33)[:2]
    grad_out = output_grad(case, seed=34)
    before = _blas_threads()
    calls = []

    def failing(*args, **kwargs):
        calls.append(threading.get_ident())
        raise MemoryError("no room for a band")

    name = "im2col_rows" if function != "grad_input" else "col2im_rows"
    monkeypatch.setattr(algo_im2col_tuned, name, failing)
    parallel.resize(2)
    with pytest.raises(MemoryError, match="no room for a band"):
        if function == "forward":
            algo_im2col_tuned.forward(x, weight, *case.settings)
        elif function == "grad_weight":
            algo_im2col_tuned.grad_weight(x, grad_out, weight.shape, *case.settings)
        else:
            algo_im2col_tuned.grad_input(grad_out, weight, x.shape, *case.settings)
    assert len(set(calls)) == 2                           # both threads got as far as their first band
    assert _blas_threads() == before


@needs_blas_control
def test_overlapping_blocks_restore_the_count_once_the_last_ends():
    before = _blas_threads()
    with blas.one_thread():
        with blas.one_thread():
            assert set(_blas_threads()) == {1}
        assert set(_blas_threads()) == {1}
    assert _blas_threads() == before


def test_without_a_controllable_blas_the_products_keep_the_blas_threads(bands_on_pool, monkeypatch):
    monkeypatch.setattr(blas, "_libraries", [])
    parallel.resize(2)
    assert not blas.controllable() and parallel.product_threads(numpy) == 1
    case = EXTRA_CASES[0]
    x, weight = case.arrays(seed=35)[:2]
    grad_out = output_grad(case, seed=36)
    result = _tuned(case, x, weight, grad_out)
    assert not bands_on_pool["threads"]
    parallel.resize(1)
    for key, expected in _tuned(case, x, weight, grad_out).items():
        assert_same_bits(result[key], expected, key)


def _run(code: str) -> object:
    completed = subprocess.run([sys.executable, "-c", "import json, threading, numpy\n" + code],
                               capture_output=True, text=True, check=True, timeout=120)
    return json.loads(completed.stdout.strip().splitlines()[-1])


BLAS = "[i['num_threads'] for i in __import__('threadpoolctl').threadpool_info() if i['user_api'] == 'blas']"
A_LAYER = ("x = mg.randn(8, 32, 12, 12, requires_grad=True); w = mg.randn(64, 32, 3, 3, requires_grad=True)\n"
           "mg.nn.functional.conv2d(x, w, padding=1, algorithm=ALGORITHM).sum().backward()\n")


def test_importing_minigrad_leaves_the_blas_and_starts_no_thread():
    code = (f"before = {BLAS}\nimport minigrad as mg\n"
            f"print(json.dumps([before == {BLAS}, threading.active_count()]))")
    assert _run(code) == [True, 1]


@needs_blas_control
@pytest.mark.parametrize("algorithm", ["im2col", "im2col_tuned"])
@pytest.mark.parametrize("threads", [1, 2])
def test_set_num_threads_sets_how_many_threads_run_a_layer(threads, algorithm):
    """With the thresholds down, a layer (the default, or the tuned driver's bands) runs on exactly
    ``set_num_threads`` threads, and the BLAS has that count again afterwards."""
    code = ("import minigrad as mg\nfrom minigrad.ops.conv import algo_im2col_tuned as tuned\n"
            "from minigrad.performance import parallel\n"
            f"ALGORITHM = {algorithm!r}\n"
            "tuned.POOL_MIN_BYTES = 0; parallel.MIN_PRODUCT_WORK = 1; parallel.MIN_CHUNK_BYTES = 1\n"
            f"mg.set_num_threads({threads})\n"
            "seen = set(); run_chunk = parallel._run_chunk\n"
            "def recorded(*args):\n    seen.add(threading.get_ident())\n"
            "    __import__('time').sleep(0.002); run_chunk(*args)\n"
            "parallel._run_chunk = recorded\n" + A_LAYER
            + f"print(json.dumps([len(seen), {BLAS}]))")
    ran, blas_after = _run(code)
    assert ran == (threads if threads > 1 else 0)
    assert set(blas_after) == {threads}


@needs_blas_control
def test_a_first_layers_grad_weight_is_cut_over_output_rows(bands_on_pool, monkeypatch):
    """One input channel cannot be shared between threads: each thread sums its own output rows."""
    case = ConvCase("one-channel", 4, 1, (12, 9), 5, (3, 3), (1, 1), (1, 1))
    x, weight = case.arrays(seed=35)[:2]
    grad_out = output_grad(case, seed=36)
    by_rows = []
    original = algo_im2col_tuned._grad_weight_by_rows
    monkeypatch.setattr(algo_im2col_tuned, "_grad_weight_by_rows",
                        lambda *args: by_rows.append(args[-1]) or original(*args))
    one = _on_threads(1, case, x, weight, grad_out)
    assert by_rows == []                                  # one thread: the usual loop over the bands
    many = _on_threads(2, case, x, weight, grad_out)
    assert by_rows == [2, 2]                              # with and without the forward's columns
    assert_close(many["weight"], one["weight"], "grad_weight by output rows")
    assert_same_bits(_on_threads(2, case, x, weight, grad_out)["weight"], many["weight"], "run again")
    assert bands_on_pool["blas"] == {1}
