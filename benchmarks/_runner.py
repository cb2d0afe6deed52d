"""Shared machinery for the benchmarks: run each library in its own process, interleave, take medians.

Two BLAS thread pools in one process slow each other, and these machines are shared
and noisy; so every measurement is a fresh subprocess running one library, the
libraries take turns, and the table shows medians over the rounds.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from typing import Any


def torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def run_interleaved(script: str, libraries: list[str], rounds: int, extra_args: list[str]) -> dict:
    """Run ``script --worker LIB ...`` ``rounds`` times per library, alternating; collect JSON results."""
    results: dict = {lib: [] for lib in libraries}
    for _ in range(rounds):
        for lib in libraries:
            completed = subprocess.run([sys.executable, script, "--worker", lib, *extra_args],
                                       capture_output=True, text=True, check=False)
            if completed.returncode != 0:
                raise RuntimeError(f"{lib} worker failed:\n{completed.stderr}")
            results[lib].append(json.loads(completed.stdout.strip().splitlines()[-1]))
    return results


def median_of(runs: list[dict], key: str) -> Any:
    """For each entry name in the runs, the median of ``key`` over the rounds."""
    names = runs[0].keys()
    return {name: statistics.median(run[name][key] for run in runs) for name in names}
