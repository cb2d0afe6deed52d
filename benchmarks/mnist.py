"""Training-step time of the MNIST example's CNN: minigrad vs PyTorch (CPU, 2 threads).

One step is what ``examples/mnist_cnn.py`` does per batch: forward, cross-entropy,
``zero_grad``, backward, Adam's update, on a batch of 64 images (random numbers: the
arithmetic does not care). The model is built by the example's own ``make_model``, given
``minigrad.nn`` or ``torch.nn``. Each library runs in its own process; rounds alternate;
medians are printed.

    python benchmarks/mnist.py [--rounds 5] [--steps 30] [--batch-size 64] [--threads 2]
    python benchmarks/mnist.py --blas pinned  # keep this machine's OPENBLAS_CORETYPE / _L2_SIZE
    python benchmarks/mnist.py --profile      # where minigrad's step spends its time
    python benchmarks/mnist.py --bands blas   # every product on the BLAS's own threads (see --help)
    python benchmarks/mnist.py --tree ../base --load nice   # also another checkout's minigrad, beside
                                              # a low-priority busy process (--load none|busy|nice)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _runner import (  # noqa: E402
    add_blas_arguments,
    add_chunk_argument,
    add_tree_and_load_arguments,
    background_load,
    blas_environment,
    blas_header,
    chunk_setting,
    load_setting,
    median_of,
    minigrad_trees,
    processor,
    run_interleaved,
    torch_available,
    tree_environment,
    use_chunk_setting,
    with_chunk_setting,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mnist_cnn.py"
PHASES = ("step", "forward", "backward", "optimizer")


def load_example() -> Any:
    """The module ``examples/mnist_cnn.py`` (for its ``make_model``)."""
    spec = importlib.util.spec_from_file_location("mnist_cnn", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def setup(lib: Any, batch_size: int) -> tuple:
    """The example's model and optimiser, and one batch, in library ``lib`` (minigrad or torch)."""
    lib.manual_seed(0)
    model = load_example().make_model(lib.nn)
    optimizer = lib.optim.Adam(model.parameters(), lr=1e-3)
    images = lib.randn(batch_size, 1, 28, 28)
    labels = lib.randint(0, 10, (batch_size,))
    return model, optimizer, images, labels


def timed_steps(lib: Any, model: Any, optimizer: Any, images: Any, labels: Any, steps: int,
                clock: Any = time.perf_counter) -> dict:
    """Median seconds per step, and per phase of a step, over ``steps`` steps, by ``clock``."""
    cross_entropy = lib.nn.functional.cross_entropy
    times: dict = {phase: [] for phase in PHASES}
    for _ in range(steps):
        start = clock()
        loss = cross_entropy(model(images), labels)
        forward = clock()
        optimizer.zero_grad()
        loss.backward()
        backward = clock()
        optimizer.step()
        end = clock()
        for phase, seconds in zip(PHASES, (end - start, forward - start, backward - forward, end - backward)):
            times[phase].append(seconds)
    return {phase: statistics.median(values) for phase, values in times.items()}


def worker(library: str, steps: int, batch_size: int, threads: int, clock_name: str = "wall") -> None:
    """Time ``steps`` steps of ``library`` ('torch', or a minigrad checkout's label) and print JSON."""
    if library == "torch":
        import torch as lib
        lib.set_num_threads(threads)
    else:
        import minigrad as lib
        import minigrad.nn  # noqa: F401
        import minigrad.optim  # noqa: F401
        lib.set_num_threads(threads)
        use_chunk_setting()
        lib.memory.keep_freed_memory()  # as examples/mnist_cnn.py opts in
    model, optimizer, images, labels = setup(lib, batch_size)
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    timed_steps(lib, model, optimizer, images, labels, 3)  # warm up: allocations, BLAS threads
    medians = timed_steps(lib, model, optimizer, images, labels, steps, clock)
    print(json.dumps({phase: {"ms": seconds * 1e3, "images_per_second": batch_size / seconds}
                      for phase, seconds in medians.items()}))


def compare(rounds: int, steps: int, batch_size: int, threads: int, native_blas: bool,
            min_chunk_bytes: int | None, bands: str = "rule", trees: list[str] | None = None,
            load: str = "none", clock: str = "wall") -> None:
    """minigrad (this checkout, and each of ``trees``) and PyTorch, interleaved, each in its own process."""
    checkouts = minigrad_trees(trees or [])
    libraries = [*checkouts] + (["torch"] if torch_available() else [])
    environment = with_chunk_setting(blas_environment(threads, native_blas), min_chunk_bytes, bands)
    environments = {label: tree_environment(environment, root) for label, root in checkouts.items()}
    environments["torch"] = environment
    extra_args = ["--steps", str(steps), "--batch-size", str(batch_size), "--threads", str(threads),
                  "--clock", clock]
    with background_load(load):
        runs = run_interleaved(__file__, libraries, rounds, extra_args, environments)
    ms = {lib: median_of(runs[lib], "ms") for lib in libraries}
    print(f"MNIST CNN training step, batch {batch_size}: median of {rounds} interleaved rounds "
          f"(each the median of {steps} steps), each library in its own process, {threads} thread(s) each, "
          f"{load_setting(load)}, {clock} clock")
    print(f"{blas_header(environment, native_blas)}; {chunk_setting(environment)}; {processor()}")
    for label, root in checkouts.items():
        print(f"{label}: {root}")
    ratios = [(mine, "torch") for mine in checkouts if "torch" in ms]
    ratios += [("minigrad", other) for other in list(checkouts)[1:]]
    columns = [(f"{lib} ms", lambda phase, lib=lib: f"{ms[lib][phase]:.1f}") for lib in libraries]
    columns += [(f"{a}/{b}", lambda phase, a=a, b=b: f"{ms[a][phase] / ms[b][phase]:.2f}") for a, b in ratios]
    widths = [max(10, len(title) + 2) for title, _ in columns]
    print(f"{'':<12}" + "".join(f"{title:>{width}}" for (title, _), width in zip(columns, widths)))
    for phase in PHASES:
        cells = (f"{cell(phase):>{width}}" for (_, cell), width in zip(columns, widths))
        print(f"{phase:<12}" + "".join(cells))
    for lib in libraries:
        print(f"{lib}: {batch_size / ms[lib]['step'] * 1e3:.0f} images/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2, help="BLAS / PyTorch threads per library (2)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall time, or the worker's CPU time (meaningful with --threads 1)")
    parser.add_argument("--profile", action="store_true", help="minigrad only: time spent per operation")
    add_blas_arguments(parser)
    add_chunk_argument(parser)
    add_tree_and_load_arguments(parser)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.steps, args.batch_size, args.threads, args.clock)
    elif args.profile:
        from _mnist_profile import profile
        profile(setup, args.steps, args.batch_size)
    else:
        compare(args.rounds, args.steps, args.batch_size, args.threads, args.blas == "native",
                args.min_chunk_bytes, args.bands, args.tree, args.load, args.clock)


if __name__ == "__main__":
    main()
