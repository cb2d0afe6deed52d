"""Per-operation overhead of the autograd engine: minigrad vs PyTorch (eager, CPU).

Times (1) a forward+backward through a chain of many elementwise ops on 16-element
tensors, where almost all the time is bookkeeping, and (2) a small MLP training
step. Each library runs in its own process; rounds alternate; medians are printed.

    python benchmarks/overhead.py [--ops 10000] [--rounds 5] [--threads 2] [--blas native|pinned]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _runner import (  # noqa: E402
    add_blas_arguments,
    blas_environment,
    blas_header,
    median_of,
    processor,
    run_interleaved,
    torch_available,
)


def _chain(lib, n_ops: int) -> float:
    """Seconds for forward+backward of ``n_ops`` elementwise ops on 16-element tensors."""
    x = lib.ones(16, requires_grad=True)
    w = lib.ones(16) * 0.5
    start = time.perf_counter()
    y = x
    for _ in range(n_ops // 4):  # four kinds of op, n_ops in total
        y = y * w
        y = y + x
        y = y.tanh()
        y = y - 0.1
    y.sum().backward()
    return time.perf_counter() - start


def _mlp_step(lib, repeats: int) -> float:
    """Seconds per SGD step of a 784-128-64-10 MLP on a batch of 64 (manual SGD)."""
    lib.manual_seed(0)
    sizes = [784, 128, 64, 10]
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append((lib.randn(fan_out, fan_in) * fan_in ** -0.5).requires_grad_())
        params.append(lib.zeros(fan_out, requires_grad=True))
    x = lib.randn(64, 784)
    target = lib.randint(0, 10, (64,))
    onehot = (lib.arange(10) == target.reshape(64, 1)).float()

    def step() -> None:
        h = x
        for i in range(0, len(params), 2):
            h = h.matmul(params[i].t()) + params[i + 1]
            if i < len(params) - 2:
                h = h.relu()
        loss = -(h.log_softmax(1) * onehot).sum(1).mean()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None

    step()
    start = time.perf_counter()
    for _ in range(repeats):
        step()
    return (time.perf_counter() - start) / repeats


def worker(library: str, n_ops: int, threads: int) -> None:
    if library == "torch":
        import torch as lib
    else:
        import minigrad as lib
    lib.set_num_threads(threads)
    _chain(lib, 400)  # warm up
    chain = min(_chain(lib, n_ops) for _ in range(3))
    mlp = _mlp_step(lib, 20)
    print(json.dumps({"chain": {"seconds": chain, "per_op_us": chain / n_ops * 1e6},
                      "mlp": {"seconds": mlp, "per_op_us": mlp * 1e6}}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2, help="threads for each library (default 2)")
    add_blas_arguments(parser)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.ops, args.threads)
        return
    libraries = ["minigrad"] + (["torch"] if torch_available() else [])
    native = args.blas == "native"
    env = blas_environment(args.threads, native)
    extra_args = ["--ops", str(args.ops), "--threads", str(args.threads)]
    runs = run_interleaved(__file__, libraries, args.rounds, extra_args, {lib: env for lib in libraries})
    medians = {lib: median_of(runs[lib], "per_op_us") for lib in libraries}
    print(f"median of {args.rounds} interleaved rounds, each library in its own process, "
          f"{args.threads} thread(s) each; {processor()}")
    print(blas_header(env, native))
    print(f"{'benchmark':<44}{'minigrad':>12}{'torch':>12}{'ratio':>8}")
    labels = {"chain": f"chain of {args.ops} ops, fwd+bwd (µs/op)",
              "mlp": "MLP 784-128-64-10 step, batch 64 (µs)"}
    for key, label in labels.items():
        mine = medians["minigrad"][key]
        if "torch" in medians:
            theirs = medians["torch"][key]
            print(f"{label:<44}{mine:>12.1f}{theirs:>12.1f}{mine / theirs:>8.2f}")
        else:
            print(f"{label:<44}{mine:>12.1f}{'-':>12}{'-':>8}")


if __name__ == "__main__":
    main()
