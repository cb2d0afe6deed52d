"""benchmarks/scaling.py in its quickest mode: it writes the plot and the tables (no timing is judged)."""

from __future__ import annotations

import csv
import importlib.util
import subprocess
import sys

from _example_helpers import ROOT, example_env


def test_scaling_quick_writes_the_plot_and_a_row_per_library_and_thread_count(tmp_path):
    result = subprocess.run([sys.executable, "benchmarks/scaling.py", "--quick", "--out", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=600, env=example_env())
    assert result.returncode == 0, result.stderr[-3000:]
    libraries = ["minigrad", "torch"] if importlib.util.find_spec("torch") else ["minigrad"]

    with open(tmp_path / "scaling.png", "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"
    with open(tmp_path / "scaling.csv", newline="", encoding="utf-8") as table:
        rows = list(csv.DictReader(table))
    assert sorted((row["library"], int(row["threads"])) for row in rows) == \
        sorted((library, threads) for library in libraries for threads in (1, 2))
    assert all(row["benchmark"] == "mnist" and float(row["ms"]) > 0 for row in rows)
    assert [float(row["speedup"]) for row in rows if row["threads"] == "1"] == [1.0] * len(libraries)

    text = (tmp_path / "scaling.md").read_text(encoding="utf-8")
    assert "NumPy's BLAS:" in text and "BLAS setting: native" in text
    first_cells = [line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| ")]
    assert first_cells == ["threads", "1", "2"]


def test_the_blas_setting_removes_the_pinning_only_when_native(monkeypatch):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import _runner
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    monkeypatch.setenv("OPENBLAS_L2_SIZE", "1048576")
    native, pinned = _runner.blas_environment(3, True), _runner.blas_environment(3, False)
    assert "OPENBLAS_CORETYPE" not in native and "OPENBLAS_L2_SIZE" not in native
    assert pinned["OPENBLAS_CORETYPE"] == "Haswell" and pinned["OPENBLAS_L2_SIZE"] == "1048576"
    assert native["OPENBLAS_NUM_THREADS"] == pinned["OPENBLAS_NUM_THREADS"] == "3"
    assert _runner.blas_setting(True) == \
        "BLAS setting: native (OPENBLAS_CORETYPE=Haswell, OPENBLAS_L2_SIZE=1048576 removed)"
    assert _runner.blas_setting(False) == \
        "BLAS setting: pinned (OPENBLAS_CORETYPE=Haswell, OPENBLAS_L2_SIZE=1048576)"
    kernel = _runner.blas_kernel(_runner.blas_environment(1, True))        # threadpoolctl, in a fresh process
    assert "1 thread(s)" in kernel and "kernel" in kernel
