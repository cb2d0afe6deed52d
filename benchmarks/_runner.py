"""Shared machinery for the benchmarks: run each library in its own process, interleave, take medians.

Two BLAS thread pools in one process slow each other, and these machines are shared
and noisy; so every measurement is a fresh subprocess running one library, the
libraries take turns, and the table shows medians over the rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# Set on some machines to pin OpenBLAS to older kernels (older builds failed on newer processors).
# A current NumPy runs slower under them and a user's laptop has neither, so by default the
# benchmarks drop both from the measured processes (``--blas native``); ``--blas pinned`` keeps
# them. Only the benchmarks' own worker processes are affected: never the tests, never CI.
BLAS_PINNING = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
BLAS_SETTINGS = ("native", "pinned")


def add_blas_arguments(parser: argparse.ArgumentParser) -> None:
    """``--blas native|pinned`` (and ``--pinned-blas``, short for ``--blas pinned``)."""
    parser.add_argument("--blas", choices=BLAS_SETTINGS, default="native",
                        help="native (default): the measured processes run without this machine's "
                             f"{' / '.join(BLAS_PINNING)}; pinned: with them, as this machine sets them")
    parser.add_argument("--pinned-blas", dest="blas", action="store_const", const="pinned",
                        help="the same as --blas pinned")


def blas_environment(threads: int, native: bool) -> dict:
    """The environment for a worker: ``threads`` BLAS threads, and without the pinning if ``native``."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    if native:
        for name in BLAS_PINNING:
            env.pop(name, None)
    return env


def blas_setting(native: bool) -> str:
    """In words: which of the two BLAS settings the measured processes run under."""
    found = ", ".join(f"{name}={os.environ[name]}" for name in BLAS_PINNING if name in os.environ)
    if native:
        return f"BLAS setting: native ({found} removed)" if found else \
            "BLAS setting: native (this machine sets no pinning)"
    return f"BLAS setting: pinned ({found or 'this machine sets no pinning'})"


def blas_info(env: dict) -> list:
    """threadpoolctl's record of every BLAS NumPy loads under ``env`` (empty without threadpoolctl)."""
    probe = ("import json, numpy, threadpoolctl\n"
             "print(json.dumps([i for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas']))")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                               check=False)
    return json.loads(completed.stdout) if completed.returncode == 0 else []


def blas_kernel(env: dict) -> str:
    """Which BLAS, version, processor kernel and thread count NumPy runs under ``env``, in one line."""
    infos = blas_info(env)
    if not infos:
        return "unknown (pip install threadpoolctl)"
    return "; ".join(f"{i['internal_api']} {i.get('version') or '?'}, kernel "
                     f"{i.get('architecture') or i.get('corename') or '?'}, {i['num_threads']} thread(s)"
                     for i in infos)


def blas_header(env: dict, native: bool) -> str:
    """The line every benchmark prints: NumPy's BLAS for the measured processes, and the setting."""
    return f"NumPy's BLAS: {blas_kernel(env)}. {blas_setting(native)}"


# The benchmarks' own way to try another threshold for minigrad's thread pool, or another way for the
# tuned convolution to use the threads, without editing minigrad: the driver puts them into its
# workers' environment, the minigrad worker applies them.
CHUNK_VARIABLE = "MINIGRAD_BENCHMARK_MIN_CHUNK_BYTES"
BANDS_VARIABLE = "MINIGRAD_BENCHMARK_BANDS"
NEVER = 1 << 62
# --bands, how minigrad's products use the threads: the banded conv (layers whose columns pass 16 MiB, or
# any with --algorithm im2col_tuned) by its rule; always in whole bands
# on the pool; never in bands, each product cut between the pool's threads; or every product on the
# BLAS's own threads, none cut (minigrad before "one set of threads", docs/performance.md).
# (POOL_MIN_WIDTH, POOL_MIN_BYTES, products cut on the pool)
BANDS_SETTINGS = {"rule": None, "pool": (1, 0, True), "cut": (NEVER, NEVER, True),
                  "blas": (NEVER, NEVER, False)}


def add_chunk_argument(parser: argparse.ArgumentParser) -> None:
    """``--min-chunk-bytes N``: minigrad's workers use N as ``performance.parallel.MIN_CHUNK_BYTES``;
    ``--bands rule|pool|cut|blas``: how minigrad's products use the threads."""
    parser.add_argument("--min-chunk-bytes", type=int, default=None,
                        help="minigrad's workers cut work into pieces of at least N bytes "
                             "(default: minigrad.performance.parallel.MIN_CHUNK_BYTES); for tuning it")
    parser.add_argument("--bands", choices=list(BANDS_SETTINGS), default="rule",
                        help="minigrad's products: the banded conv's (large layers, or --algorithm "
                             "im2col_tuned) by its shape rule (default), always in "
                             "bands on minigrad's pool with the BLAS on one thread, each product cut between "
                             "the pool's threads, or all on the BLAS's own threads")


def with_chunk_setting(env: dict, min_chunk_bytes: int | None, bands: str = "rule") -> dict:
    """``env`` carrying ``--min-chunk-bytes`` and ``--bands`` to the workers (unchanged without them)."""
    env = env if min_chunk_bytes is None else dict(env, **{CHUNK_VARIABLE: str(min_chunk_bytes)})
    return env if bands == "rule" else dict(env, **{BANDS_VARIABLE: bands})


def use_chunk_setting() -> str:
    """In a minigrad worker: apply ``--min-chunk-bytes`` and ``--bands`` if the driver passed them;
    say what is used."""
    from minigrad.ops.conv import algo_im2col_tuned
    from minigrad.performance import parallel

    if os.environ.get(CHUNK_VARIABLE):
        parallel.MIN_CHUNK_BYTES = int(os.environ[CHUNK_VARIABLE])
    forced = BANDS_SETTINGS.get(os.environ.get(BANDS_VARIABLE, "rule"))
    if forced is not None:
        algo_im2col_tuned.POOL_MIN_WIDTH, algo_im2col_tuned.POOL_MIN_BYTES, cut = forced
        if not cut:   # parallel.matmul then makes the one plain call
            parallel.SMALL_PRODUCT_WORK = parallel.MIN_PRODUCT_WORK = NEVER
    return f"minigrad's MIN_CHUNK_BYTES: {parallel.MIN_CHUNK_BYTES}"


def chunk_setting(env: dict) -> str:
    """For a header: the threshold minigrad's workers run with under ``env``, and the conv's bands."""
    value = env.get(CHUNK_VARIABLE)
    bands = env.get(BANDS_VARIABLE, "rule")
    return (f"minigrad's MIN_CHUNK_BYTES: {value} (--min-chunk-bytes)" if value else
            "minigrad's MIN_CHUNK_BYTES: its default") + f"; conv bands: {bands}"


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


# --- other checkouts, and other work running meanwhile ----------------------------------------------------

THIS_TREE = str(Path(__file__).resolve().parent.parent)
# --load: what else runs while the libraries are measured (issue 28's three conditions).
LOADS = ("none", "busy", "nice")


def add_tree_and_load_arguments(parser: argparse.ArgumentParser) -> None:
    """``--tree PATH`` (repeatable) and ``--load none|busy|nice``."""
    parser.add_argument("--tree", action="append", default=[], metavar="PATH",
                        help="another checkout's root (e.g. of main): its minigrad is timed too, each in its "
                             "own processes, interleaved with this checkout's and PyTorch's (repeatable)")
    parser.add_argument("--load", choices=LOADS, default="none",
                        help="what else runs meanwhile: nothing (default); one busy-looping process; "
                             "one busy-looping process at the lowest priority (nice 19, POSIX only)")


def minigrad_trees(trees: list[str]) -> dict[str, str]:
    """Label -> checkout root: ``minigrad`` is this checkout, ``minigrad@NAME`` each ``--tree``."""
    labels = {"minigrad": THIS_TREE}
    for tree in trees:
        root = str(Path(tree).resolve())
        if not (Path(root) / "minigrad" / "__init__.py").is_file():
            raise SystemExit(f"--tree {tree}: no minigrad/__init__.py under {root}")
        labels[f"minigrad@{Path(root).name}"] = root
    return labels


def tree_environment(env: dict, root: str) -> dict:
    """``env`` with ``root`` first on PYTHONPATH, so that a worker imports that checkout's minigrad
    (an editable install elsewhere would win otherwise)."""
    rest = [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []
    return dict(env, PYTHONPATH=os.pathsep.join([root, *rest]))


@contextmanager
def background_load(kind: str) -> Iterator[None]:
    """Within the block, ``kind`` of other work runs: none, or one busy-looping Python process, at
    normal or (``'nice'``) the lowest priority. It is killed on leaving."""
    if kind == "none":
        yield
        return
    if kind == "nice" and not hasattr(os, "nice"):
        raise SystemExit("--load nice needs os.nice (POSIX)")
    code = ("import os; os.nice(19)\n" if kind == "nice" else "") + "while True: pass"
    process = subprocess.Popen([sys.executable, "-c", code])
    try:
        yield
    finally:
        process.kill()
        process.wait()


def load_setting(kind: str) -> str:
    """For a header: what ran beside the measured processes."""
    return {"none": "nothing else running", "busy": "beside one busy-looping process",
            "nice": "beside one busy-looping process at nice 19"}[kind]


def geomean(values: list[float]) -> float:
    """The geometric mean (for ratios)."""
    return statistics.geometric_mean(values)


def in_turn(items: list, round_number: int) -> list:
    """``items`` for round ``round_number``, each starting a round in turn: a round's first process
    may find the machine in another state than its last (beside a low-priority load, the first
    minigrad of a round measured 41 ms where the second measured 33 with the same code)."""
    first = round_number % len(items)
    return items[first:] + items[:first]


def run_interleaved(script: str, libraries: list[str], rounds: int, extra_args: list[str],
                    environments: dict | None = None) -> dict:
    """Run ``script --worker LIB ...`` ``rounds`` times per library, alternating; collect JSON results.

    Each round starts with the next library (:func:`in_turn`). ``environments`` maps a library to
    its worker's environment (default: this process's).
    """
    results: dict = {lib: [] for lib in libraries}
    environments = environments or {}
    for round_number in range(rounds):
        for lib in in_turn(libraries, round_number):
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
