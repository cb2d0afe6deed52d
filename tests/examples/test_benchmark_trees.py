"""benchmarks/mnist.py and conv.py with ``--tree`` (another checkout's minigrad in the same run) and
``--load`` (beside a busy process), at their smallest; no timing is judged."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from _example_helpers import ROOT, example_env

sys.path.insert(0, str(ROOT / "benchmarks"))
try:
    import _runner
finally:
    sys.path.remove(str(ROOT / "benchmarks"))


def _run(*command: str) -> list[str]:
    result = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=600,
                            env=example_env())
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.splitlines()


def test_each_checkout_is_first_on_its_workers_path(tmp_path):
    trees = _runner.minigrad_trees([str(ROOT)])
    assert trees == {"minigrad": str(ROOT), f"minigrad@{ROOT.name}": str(ROOT)}
    env = _runner.tree_environment({"PYTHONPATH": "elsewhere"}, "/a/checkout")
    assert env["PYTHONPATH"].split(os.pathsep) == ["/a/checkout", "elsewhere"]
    with pytest.raises(SystemExit, match="no minigrad"):
        _runner.minigrad_trees([str(tmp_path)])


def test_mnist_times_another_checkout_beside_a_busy_process():
    lines = _run("benchmarks/mnist.py", "--tree", str(ROOT), "--rounds", "1", "--steps", "1", "--batch-size",
                 "4", "--threads", "1", "--load", "busy")
    assert "beside one busy-looping process" in lines[0]
    header = next(line for line in lines if "minigrad ms" in line)
    assert f"minigrad@{ROOT.name} ms" in header and f"minigrad/minigrad@{ROOT.name}" in header
    step = next(line for line in lines if line.startswith("step"))
    assert all(float(cell) > 0 for cell in step.split()[1:])


def test_conv_prints_each_checkouts_times_and_the_geomeans():
    lines = _run("benchmarks/conv.py", "--tree", str(ROOT), "--shapes", "3", "--rounds", "1", "--number", "1",
                 "--threads", "1", "--no-torch")
    rows = [line.split() for line in lines if line.startswith("64,6,14,14")]
    assert [row[1] for row in rows] == ["forward", "forward+backward"]
    assert all(float(row[-2]) > 0 and float(row[-1]) > 0 for row in rows)   # the other's ms, this/it
    assert any(line.startswith("forward+backward") and f"minigrad/minigrad@{ROOT.name}" in line
               for line in lines)
