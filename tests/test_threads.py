"""mg.set_num_threads / mg.get_num_threads as PyTorch's: they limit NumPy's BLAS for the process.

Each case runs in a fresh interpreter, since the BLAS's thread count belongs to the process.
"""

import json
import subprocess
import sys

import pytest
from _torch import raises_like_torch


def _run(code: str) -> object:
    completed = subprocess.run([sys.executable, "-c", "import json, numpy, minigrad as mg\n" + code],
                               capture_output=True, text=True, check=True)
    return json.loads(completed.stdout.strip().splitlines()[-1])


BLAS_THREADS = """
from threadpoolctl import threadpool_info
blas = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
"""


def test_set_num_threads_limits_numpys_blas():
    before, blas_before = _run(BLAS_THREADS + "print(json.dumps([mg.get_num_threads(), blas]))")
    assert blas_before and before == max(blas_before)   # untouched until asked
    after, blas_after = _run("mg.set_num_threads(1)\n" + BLAS_THREADS
                             + "print(json.dumps([mg.get_num_threads(), blas]))")
    assert after == 1 and set(blas_after) == {1}


def test_interop_threads_are_kept_and_reported():
    assert _run("mg.set_num_interop_threads(3); print(json.dumps(mg.get_num_interop_threads()))") == 3


@pytest.mark.parametrize("value", [0, -1, 2.5, "2", True])
@pytest.mark.parametrize("name", ["set_num_threads", "set_num_interop_threads"])
def test_bad_thread_counts_raise_like_torch(name, value):
    if name == "set_num_interop_threads" and value in (0, -1):
        # PyTorch's check here depends on whether its pool has started; minigrad's is the same check
        import minigrad

        with pytest.raises(RuntimeError, match="expects a positive integer"):
            minigrad.set_num_interop_threads(value)
        return
    raises_like_torch(lambda m: getattr(m, name)(value), RuntimeError, name)


def test_minigrads_products_follow_set_num_threads():
    """SPEC: minigrad's own parallel loops and the BLAS follow set_num_threads. A linear layer's large
    product is cut into that many pieces run on the pool (a thread that finishes early may take a
    second, and the caller one no thread has started), the BLAS on one thread inside, and the BLAS
    has the count set for the process afterwards."""
    code = BLAS_THREADS.replace("blas = ", "def blas_now():\n    return ") + (
        "import threading\nfrom minigrad.performance import parallel\n"
        "mg.set_num_threads(3)\n"
        "seen, calls, inside = set(), [], []\n"
        "matmul = numpy.matmul\n"
        "def recorded(*args, **kwargs):\n"
        "    seen.add(threading.get_ident()); calls.append(1); inside.extend(blas_now())\n"
        "    if threading.current_thread() is threading.main_thread():\n"
        "        __import__('time').sleep(0.002)   # the pool's threads start theirs (else the caller may)\n"
        "    return matmul(*args, **kwargs)\n"
        "numpy.matmul = recorded\n"
        "x = mg.randn(192, 600)\n"
        "mg.nn.Linear(600, 300)(x)\n"
        "numpy.matmul = matmul\n"
        "print(json.dumps([len(calls), len(seen), sorted(set(inside)), blas_now(), parallel.pool_size()]))")
    pieces, threads, inside, blas_after, pool = _run(code)
    if not inside:
        pytest.skip("no BLAS whose threads threadpoolctl can set")
    assert pieces == 3 and threads > 1 and inside == [1] and set(blas_after) == {3} and pool == 3
