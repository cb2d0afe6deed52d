"""Shared machinery for the benchmarks: run each library in its own process, interleave, take medians.

Two BLAS thread pools in one process slow each other, and these machines are shared
and noisy; so every measurement is a fresh subprocess running one library, the
libraries take turns, and the table shows medians over the rounds.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
from typing import Any

# Set on some machines to pin OpenBLAS to older kernels (older builds failed on newer processors).
# A current NumPy runs slower under them and a user's laptop has neither, so the benchmarks drop
# both for minigrad's worker unless asked to keep them (``--pinned-blas``).
BLAS_PINNING = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def blas_environment(threads: int, native: bool) -> dict:
    """The environment for a worker: ``threads`` BLAS threads, and without the pinning if ``native``."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    if native:
        for name in BLAS_PINNING:
            env.pop(name, None)
    return env


def blas_kernel(env: dict) -> str:
    """Which BLAS and processor kernel NumPy runs under ``env`` (needs threadpoolctl; else says so)."""
    probe = ("import numpy, threadpoolctl\n"
             "print(', '.join(f\"{i['internal_api']} {i.get('architecture', '?')}\" "
             "for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas'))")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                               check=False)
    return completed.stdout.strip() if completed.returncode == 0 else "unknown (pip install threadpoolctl)"


def processor() -> str:
    """The processor's name and logical CPU count, for telling apart figures from different machines."""
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:   # Linux: the marketing name
            name = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{name}, {os.cpu_count()} logical CPUs"


def torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def run_interleaved(script: str, libraries: list[str], rounds: int, extra_args: list[str],
                    environments: dict | None = None) -> dict:
    """Run ``script --worker LIB ...`` ``rounds`` times per library, alternating; collect JSON results.

    ``environments`` maps a library to its worker's environment (default: this process's).
    """
    results: dict = {lib: [] for lib in libraries}
    environments = environments or {}
    for _ in range(rounds):
        for lib in libraries:
            completed = subprocess.run([sys.executable, script, "--worker", lib, *extra_args],
                                       capture_output=True, text=True, check=False,
                                       env=environments.get(lib))
            if completed.returncode != 0:
                raise RuntimeError(f"{lib} worker failed:\n{completed.stderr}")
            results[lib].append(json.loads(completed.stdout.strip().splitlines()[-1]))
    return results


def median_of(runs: list[dict], key: str) -> Any:
    """For each entry name in the runs, the median of ``key`` over the rounds."""
    names = runs[0].keys()
    return {name: statistics.median(run[name][key] for run in runs) for name in names}
