"""benchmarks/band_threads.py at its smallest, and ``--bands`` reaching the benchmarks' minigrad workers
(no timing is judged)."""

from __future__ import annotations

import subprocess
import sys

from _example_helpers import ROOT, example_env

from minigrad.ops.conv import algo_im2col_tuned
from minigrad.performance import parallel


def test_band_threads_times_each_part_both_ways_and_names_the_rules_pick():
    command = [sys.executable, "benchmarks/band_threads.py", "--repeats", "1", "--shapes", "1,2"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, env=example_env())
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith("64,")]
    assert [(row[0], row[1]) for row in rows] == [(shape, part) for shape in ("64,32,14,14,64,3,1,1,1,1",
                                                                              "64,1,28,28,6,5,1,2,1,1")
                                                  for part in ("forward", "grad_input", "grad_weight")]
    assert all(float(row[2]) > 0 and float(row[4]) > 0 and float(row[7]) > 0 for row in rows)  # ms, 3 ways
    mnist_second, mnist_first = rows[0][-1], rows[3][-1]
    assert mnist_second == "bands" and mnist_first == "cut"   # the shipped rule: a wide layer in bands


def test_the_bands_setting_reaches_the_minigrad_workers(monkeypatch):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import _runner
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    monkeypatch.setattr(algo_im2col_tuned, "POOL_MIN_WIDTH", algo_im2col_tuned.POOL_MIN_WIDTH)
    monkeypatch.setattr(algo_im2col_tuned, "POOL_MIN_BYTES", algo_im2col_tuned.POOL_MIN_BYTES)
    env = _runner.with_chunk_setting({}, None, "pool")
    assert "conv bands: pool" in _runner.chunk_setting(env)
    monkeypatch.setenv(_runner.BANDS_VARIABLE, env[_runner.BANDS_VARIABLE])
    _runner.use_chunk_setting()
    assert (algo_im2col_tuned.POOL_MIN_WIDTH, algo_im2col_tuned.POOL_MIN_BYTES) == (1, 0)
    assert parallel.MIN_PRODUCT_WORK < 1 << 62                                 # products still cut
    monkeypatch.setattr(parallel, "MIN_PRODUCT_WORK", parallel.MIN_PRODUCT_WORK)
    monkeypatch.setattr(parallel, "SMALL_PRODUCT_WORK", parallel.SMALL_PRODUCT_WORK)
    monkeypatch.setenv(_runner.BANDS_VARIABLE, "blas")
    _runner.use_chunk_setting()
    assert parallel.MIN_PRODUCT_WORK == parallel.SMALL_PRODUCT_WORK == 1 << 62  # every product whole
    assert _runner.with_chunk_setting({}, None) == {}                        # the rule: nothing passed
