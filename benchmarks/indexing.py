"""Per-sample access: minigrad vs PyTorch (eager, CPU), as a course's Dataset does it.

Times (1) ``x[i], y[i]`` for an int ``i`` (MNIST-sized float rows and int64 labels that need no
gradient), per pair, and (2) ``default_collate`` of 128 such pairs into a batch. Each library runs
in its own process; rounds alternate; each worker reports the median CPU time
(``time.process_time``) of many repeats, and the table shows the medians over the rounds.

    python benchmarks/indexing.py [--rounds 5] [--repeats 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _runner import blas_environment, median_of, processor, run_interleaved, torch_available  # noqa: E402

PAIRS = 128  # one batch: the pairs timed together, and collated


def _cpu_seconds(run, repeats: int) -> float:
    """The median CPU time of ``run()`` over ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return statistics.median(times)


def worker(library: str, repeats: int) -> None:
    if library == "torch":
        import torch as lib
        from torch.utils.data import default_collate
    else:
        import minigrad as lib
        from minigrad.data.collate import default_collate
    lib.manual_seed(0)
    x, y = lib.rand(1000, 1, 28, 28), lib.randint(0, 10, (1000,))

    def pairs() -> list:
        return [(x[i], y[i]) for i in range(PAIRS)]

    batch = pairs()
    pairs_seconds = _cpu_seconds(pairs, repeats)
    collate_seconds = _cpu_seconds(lambda: default_collate(batch), repeats)
    print(json.dumps({"pair": {"us": pairs_seconds / PAIRS * 1e6},
                      "collate": {"us": collate_seconds * 1e6}}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=200, help="timed repeats in each worker (default 200)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.repeats)
        return
    libraries = ["minigrad"] + (["torch"] if torch_available() else [])
    env = blas_environment(1, native=True)
    runs = run_interleaved(__file__, libraries, args.rounds, ["--repeats", str(args.repeats)],
                           {lib: env for lib in libraries})
    medians = {lib: median_of(runs[lib], "us") for lib in libraries}
    print(f"median of {args.rounds} interleaved rounds of {args.repeats} repeats (CPU time), each library in "
          f"its own process, one thread; {processor()}")
    print(f"{'benchmark':<44}{'minigrad':>12}{'torch':>12}{'ratio':>8}")
    labels = {"pair": "x[i], y[i] (µs a pair)", "collate": f"default_collate of {PAIRS} pairs (µs)"}
    for key, label in labels.items():
        mine = medians["minigrad"][key]
        if "torch" in medians:
            theirs = medians["torch"][key]
            print(f"{label:<44}{mine:>12.2f}{theirs:>12.2f}{mine / theirs:>8.2f}")
        else:
            print(f"{label:<44}{mine:>12.2f}{'-':>12}{'-':>8}")


if __name__ == "__main__":
    main()
