"""Which way the tuned conv's products should use the threads: measured per shape, for the rule.

    python benchmarks/band_threads.py                  # 2 threads, the conv set's shapes
    python benchmarks/band_threads.py --threads 4 --blas pinned --repeats 40

For each shape of ``benchmarks/conv.py`` (the depthwise one runs ``depthwise.py``, not this
driver) it times ``algo_im2col_tuned``'s forward, grad_input and grad_weight, float32, three ways
in turns of blocks of calls: every product on the BLAS's own threads (the copies in pieces: minigrad
before "one set of threads"); each product cut between minigrad's pool's threads, the BLAS on one
thread (``parallel.matmul``); and whole bands on the pool, each thread its band's copies and
product. It prints the medians, the ratios to the first, and the way ``algo_im2col_tuned._threads``
picks for the shape (docs/performance.md, "One set of threads"). Everything runs in one worker
process with the thread count and BLAS setting asked for. Each part alone: in a training step
the BLAS's threads also slow the copies and element-wise work that follow its products.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _runner import NEVER, add_blas_arguments, blas_environment, blas_header, processor  # noqa: E402
from conv import SHAPES  # noqa: E402

PARTS = ("forward", "grad_input", "grad_weight")
# Each way runs in blocks of calls, the blocks of the three ways taking turns; before a block the
# process sleeps long enough for the BLAS's own threads, which spin for a while after a product,
# to go to sleep: otherwise they would take a core from the next way's first calls.
BLOCKS = 3
QUIET_SECONDS = 0.3


def _worker(threads: int, repeats: int, chosen: list[int]) -> None:
    import numpy

    import minigrad as mg
    from minigrad.ops.conv import algo_im2col_tuned as tuned
    from minigrad.ops.conv.algorithms import is_depthwise
    from minigrad.ops.conv.im2col import batch_last
    from minigrad.performance import parallel

    mg.set_num_threads(threads)
    product_settings = parallel.SMALL_PRODUCT_WORK, parallel.MIN_PRODUCT_WORK
    ways = {"blas": (NEVER, NEVER, (NEVER, NEVER)), "cut": (NEVER, NEVER, product_settings),
            "bands": (1, 0, product_settings)}
    rng = numpy.random.default_rng(0)
    rows = []
    for shape in (SHAPES[i] for i in chosen):
        n, c_in, h, w, c_out, k, s, p, d, g = shape
        if is_depthwise((c_out, c_in // g, k, k), g, (s, s)):
            continue
        settings = ((s, s), (p, p), (d, d), g)
        x = rng.standard_normal((n, c_in, h, w)).astype(numpy.float32)
        weight = rng.standard_normal((c_out, c_in // g, k, k)).astype(numpy.float32)
        out, saved = tuned.forward(x, weight, *settings)
        # δ in (C, H, W, N) memory, as the layers after a convolution hand it back
        delta = batch_last(rng.standard_normal(out.shape).astype(numpy.float32)).transpose(3, 0, 1, 2)
        calls = {"forward": partial(tuned.forward, x, weight, *settings),
                 "grad_input": partial(tuned.grad_input, delta, weight, x.shape, *settings),
                 "grad_weight": partial(tuned.grad_weight, x, delta, weight.shape, *settings, saved=saved)}
        width = c_in // g * k * k
        picked = tuned._threads(numpy, width, c_in * k * k * out.size // c_out * x.itemsize,
                                min(out.shape[2], c_in if g == 1 else g)) > 1
        defaults = tuned.POOL_MIN_WIDTH, tuned.POOL_MIN_BYTES
        for part, call in calls.items():
            times: dict = {way: [] for way in ways}
            for _ in range(BLOCKS):
                for way, (min_width, min_bytes, products) in ways.items():
                    tuned.POOL_MIN_WIDTH, tuned.POOL_MIN_BYTES = min_width, min_bytes
                    parallel.SMALL_PRODUCT_WORK, parallel.MIN_PRODUCT_WORK = products
                    time.sleep(QUIET_SECONDS)
                    for repeat in range(-(-repeats // BLOCKS) + 1):
                        start = time.perf_counter()
                        call()
                        if repeat:   # the first warms the caches and the pool
                            times[way].append(time.perf_counter() - start)
            tuned.POOL_MIN_WIDTH, tuned.POOL_MIN_BYTES = defaults
            parallel.SMALL_PRODUCT_WORK, parallel.MIN_PRODUCT_WORK = product_settings
            rows.append({"shape": shape, "part": part, "picked": "bands" if picked else "cut",
                         **{way: statistics.median(values) for way, values in times.items()}})
    print(json.dumps(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--shapes", default="", help="indices into conv.py's SHAPES, e.g. 1,5 (default all)")
    add_blas_arguments(parser)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    chosen = [int(i) for i in args.shapes.split(",")] if args.shapes else list(range(len(SHAPES)))
    if args.worker:
        _worker(args.threads, args.repeats, chosen)
        return
    native = args.blas == "native"
    env = blas_environment(args.threads, native)
    print(f"{processor()}; {args.threads} threads. {blas_header(env, native)}")
    completed = subprocess.run([sys.executable, __file__, "--worker", "--threads", str(args.threads),
                                "--repeats", str(args.repeats), "--shapes", ",".join(map(str, chosen))],
                               capture_output=True, text=True, env=env, check=True)
    rows = json.loads(completed.stdout.strip().splitlines()[-1])
    print(f"{'shape (N,Cin,H,W,Cout,k,s,p,d,g)':<34} {'part':<12} {'BLAS threads':>12} {'cut':>11} "
          f"{'ratio':>6} {'bands':>11} {'ratio':>6}  rule picks")
    for row in rows:
        print(f"{','.join(map(str, row['shape'])):<34} {row['part']:<12} {row['blas'] * 1e3:>9.2f} ms "
              f"{row['cut'] * 1e3:>8.2f} ms {row['cut'] / row['blas']:>6.2f} "
              f"{row['bands'] * 1e3:>8.2f} ms {row['bands'] / row['blas']:>6.2f}  {row['picked']}")


if __name__ == "__main__":
    main()
