"""Time Conv2d forward and forward+backward, minigrad against PyTorch, float32.

    python benchmarks/conv.py                      # all shapes, minigrad's default algorithm
    python benchmarks/conv.py --algorithm rot180 --rounds 5
    python benchmarks/conv.py --blas pinned        # keep this machine's OPENBLAS_CORETYPE / _L2_SIZE
    python benchmarks/conv.py --threads 1 --clock cpu   # CPU seconds, 1 thread: steadier on a busy machine
    python benchmarks/conv.py --parts              # also time the im2col path's pieces one by one
    python benchmarks/conv.py --tree ../base --load nice   # also another checkout's minigrad, beside a
                                                   # low-priority busy process (--load none|busy|nice)
    GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=2147483647 \
        python benchmarks/conv.py                  # both libraries keep freed memory: no page faults
                                                   # in either's times (docs/performance.md, "Fourth session")

Each library runs in its own worker process (two BLAS thread pools in one process
slow each other down); the workers take turns, shape by shape, round after round (each
starting a round in turn), so slow phases of a shared machine hit both alike. Reported times are medians over
all rounds. Both libraries use 2 threads (``--threads``). forward+backward computes the
gradients of the input, the weight and the bias, from a fixed random output gradient.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _runner import (  # noqa: E402
    add_blas_arguments,
    add_chunk_argument,
    add_tree_and_load_arguments,
    background_load,
    blas_environment,
    blas_header,
    chunk_setting,
    geomean,
    in_turn,
    load_setting,
    minigrad_trees,
    processor,
    torch_available,
    tree_environment,
    use_chunk_setting,
    with_chunk_setting,
)

# (N, C_in, H, W, C_out, k, stride, padding, dilation, groups)
SHAPES = [
    (64, 1, 28, 28, 32, 3, 1, 1, 1, 1),
    (64, 32, 14, 14, 64, 3, 1, 1, 1, 1),
    (64, 1, 28, 28, 6, 5, 1, 2, 1, 1),
    (64, 6, 14, 14, 16, 5, 1, 0, 1, 1),
    (64, 3, 32, 32, 64, 3, 1, 1, 1, 1),
    (64, 64, 16, 16, 128, 3, 2, 1, 1, 1),
    (32, 16, 32, 32, 32, 3, 1, 2, 2, 1),
    (32, 32, 32, 32, 64, 3, 1, 1, 1, 4),
    (32, 32, 32, 32, 32, 3, 1, 1, 1, 32),
]
# The goal for fwd+bwd time, as a multiple of PyTorch's: MNIST shapes, others, depthwise.
GOALS = [1.5, 1.5, 1.5, 1.5, 2.0, 2.0, 2.0, 2.0, 4.0]
MODES = ("forward", "forward+backward")
# The pieces of the default (im2col) path, each timed alone (``--parts``).
PARTS = ("layout", "im2col", "GEMM Y", "GEMM dW", "GEMM dcols", "col2im")


def forward_flops(shape: tuple) -> float:
    n, c_in, h, w, c_out, k, stride, padding, dilation, groups = shape
    h_out = (h + 2 * padding - dilation * (k - 1) - 1) // stride + 1
    w_out = (w + 2 * padding - dilation * (k - 1) - 1) // stride + 1
    return 2.0 * n * c_out * h_out * w_out * (c_in // groups) * k * k


# --- the worker: one library, one process ----------------------------------------------------------------

def _torch_runner(shape: tuple, threads: int):
    import torch

    torch.set_num_threads(threads)
    n, c_in, h, w, c_out, k, stride, padding, dilation, groups = shape
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(n, c_in, h, w, generator=gen, requires_grad=True)
    conv = torch.nn.Conv2d(c_in, c_out, k, stride, padding, dilation, groups)
    with torch.no_grad():
        grad = torch.randn_like(conv(x))

    def forward():
        with torch.no_grad():
            conv(x)

    def forward_backward():
        x.grad = conv.weight.grad = conv.bias.grad = None
        conv(x).backward(grad)

    return {"forward": forward, "forward+backward": forward_backward}


def _minigrad_runner(shape: tuple, algorithm: str, threads: int):
    import numpy

    import minigrad as mg
    from minigrad.ops.conv import conv2d

    mg.set_num_threads(threads)
    use_chunk_setting()
    n, c_in, h, w, c_out, k, stride, padding, dilation, groups = shape
    rng = numpy.random.default_rng(0)

    def leaf(*size, scale=1.0):
        return mg.tensor((rng.standard_normal(size) * scale).astype(numpy.float32), requires_grad=True)

    bound = 1.0 / (c_in // groups * k * k) ** 0.5
    x, weight, bias = leaf(n, c_in, h, w), leaf(c_out, c_in // groups, k, k, scale=bound), leaf(c_out)

    def run():
        return conv2d(x, weight, bias, stride, padding, dilation, groups, algorithm=algorithm)

    with mg.no_grad():
        grad = mg.tensor(rng.standard_normal(tuple(run().shape)).astype(numpy.float32))

    def forward():
        with mg.no_grad():
            run()

    def forward_backward():
        x.grad = weight.grad = bias.grad = None
        run().backward(grad)

    return {"forward": forward, "forward+backward": forward_backward}


def _parts_runner(shape: tuple) -> dict:
    """The default im2col path's pieces for one shape, on arrays, as ``algo_im2col`` runs them.

    layout: the padded (C, H, W, N) input and δ moved to (C, H, W, N); im2col: the forward's
    columns (grad_weight reuses them); GEMM Y / dW / dcols: the three products
    (``parallel.matmul``) on columns made beforehand; col2im: grad_input's fold. Their sum is
    what the path costs without Python, autograd and the bias.
    """
    import numpy

    from minigrad.ops.conv.algo_im2col import per_group
    from minigrad.ops.conv.im2col import batch_last, col2im, im2col, padded_source
    from minigrad.performance.parallel import matmul

    n, c_in, h, w, c_out, k, stride, padding, dilation, groups = shape
    stride, padding, dilation, kernel = (stride, stride), (padding, padding), (dilation, dilation), (k, k)
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((n, c_in, h, w), dtype=numpy.float32)
    weight = rng.standard_normal((c_out, c_in // groups, k, k), dtype=numpy.float32)
    cols = im2col(x, kernel, stride, padding, dilation)
    w_g = per_group(weight.reshape(c_out, -1), groups)
    grad = rng.standard_normal((c_out, cols.shape[1]), dtype=numpy.float32)   # δ as a (C_out, L) matrix
    delta = per_group(grad, groups)
    grad_cols = matmul(w_g.transpose(0, 2, 1), delta).reshape(cols.shape)
    h_out = (h + 2 * padding[0] - dilation[0] * (k - 1) - 1) // stride[0] + 1
    grad_nchw = grad.reshape(c_out, h_out, -1, n).transpose(3, 0, 1, 2).copy()   # as a flatten hands δ back

    def layout():
        padded_source(x, padding)
        batch_last(grad_nchw)

    return {"layout": layout,
            "im2col": lambda: im2col(x, kernel, stride, padding, dilation),
            "GEMM Y": lambda: matmul(w_g, per_group(cols, groups)),
            "GEMM dW": lambda: matmul(delta, per_group(cols, groups).transpose(0, 2, 1)),
            "GEMM dcols": lambda: matmul(w_g.transpose(0, 2, 1), delta),
            "col2im": lambda: col2im(grad_cols, x.shape, kernel, stride, padding, dilation)}


def worker(library: str, algorithm: str, threads: int, clock_name: str) -> None:
    """Answer requests on stdin, one JSON line each: {"shape": i, "mode": m, "number": k}.

    ``library``: 'torch', or a minigrad checkout's label (its root is first on PYTHONPATH).
    """
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    runners = {}
    for line in sys.stdin:
        request = json.loads(line)
        index = request["shape"]
        if index not in runners:
            shape = SHAPES[index]
            make = (lambda s: _torch_runner(s, threads)) if library == "torch" else \
                (lambda s: _minigrad_runner(s, algorithm, threads))
            runners[index] = make(shape)
        if request["mode"] in PARTS and request["mode"] not in runners[index]:
            runners[index].update(_parts_runner(SHAPES[index]))
        fn = runners[index][request["mode"]]
        # Warm-up, at least two calls and WARM_UP_SECONDS: wake the thread pools, caches, allocator, first
        # touch of the buffers, and the cores themselves after the other library's turn and the pause.
        warm_until = time.perf_counter() + WARM_UP_SECONDS
        for call in itertools.count():
            fn()
            if call >= 1 and time.perf_counter() >= warm_until:
                break
        times = []
        for _ in range(request["number"]):
            start = clock()
            fn()
            times.append(clock() - start)
        print(json.dumps(times), flush=True)


# --- the driver ------------------------------------------------------------------------------------------

# Between one library's turn and the other's: BLAS and OpenMP threads keep spinning for a while
# after their last call (OpenBLAS up to 0.1 s by default), and must not eat into the next turn.
SETTLE_SECONDS = 0.15
WARM_UP_SECONDS = 0.1


class Worker:
    def __init__(self, library: str, args: argparse.Namespace, env: dict):
        """A worker process for ``library`` ('torch' or a minigrad checkout's label) under ``env``."""
        command = [sys.executable, __file__, "--worker", library, "--algorithm", args.algorithm,
                   "--threads", str(args.threads), "--clock", args.clock]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env=env)

    def time(self, shape: int, mode: str, number: int) -> list:
        self.process.stdin.write(json.dumps({"shape": shape, "mode": mode, "number": number}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("a benchmark worker died; run it alone to see its error")
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--algorithm", default="im2col", help="minigrad's conv algorithm (default: im2col)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds per shape (default 5)")
    parser.add_argument("--number", type=int, default=5, help="timed calls per round (default 5)")
    parser.add_argument("--shapes", default="", help="comma-separated shape numbers to run (default: all)")
    parser.add_argument("--no-torch", action="store_true", help="time minigrad alone")
    parser.add_argument("--threads", type=int, default=2, help="threads for each library (default 2)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall time, or the worker's CPU time (meaningful with --threads 1)")
    parser.add_argument("--stat", choices=("median", "min"), default="median", help="how samples combine")
    parser.add_argument("--parts", action="store_true",
                        help="also time the im2col path's pieces alone (layout, im2col, GEMMs, col2im)")
    add_blas_arguments(parser)
    add_chunk_argument(parser)
    add_tree_and_load_arguments(parser)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.algorithm, args.threads, args.clock)
        return

    native = args.blas == "native"
    env = with_chunk_setting(blas_environment(args.threads, native), args.min_chunk_bytes, args.bands)
    checkouts = minigrad_trees(args.tree)
    libraries = {label: Worker(label, args, tree_environment(env, root)) for label, root in checkouts.items()}
    if not args.no_torch and torch_available():
        libraries["torch"] = Worker("torch", args, env)
    chosen = [int(s) for s in args.shapes.split(",")] if args.shapes else list(range(len(SHAPES)))

    parts = [i for i in chosen if args.parts and not _is_depthwise(SHAPES[i])]
    samples = {(lib, i, mode): [] for lib in libraries for i in chosen for mode in MODES}
    samples.update({("minigrad", i, part): [] for i in parts for part in PARTS})
    with background_load(args.load):
        for round_number in range(args.rounds):
            order = in_turn(list(libraries.items()), round_number)
            for i in chosen:
                for mode in MODES + (PARTS if i in parts else ()):
                    for lib, work in order:
                        if mode in PARTS and lib != "minigrad":
                            continue
                        samples[(lib, i, mode)] += work.time(i, mode, args.number)
                        time.sleep(SETTLE_SECONDS)
    for work in libraries.values():
        work.close()

    combine = statistics.median if args.stat == "median" else min
    print(f"minigrad algorithm={args.algorithm}, float32, {args.threads} thread(s), {args.clock} clock; "
          f"{args.stat} of {args.rounds}x{args.number} calls; {load_setting(args.load)}; {processor()}")
    print(f"{blas_header(env, native)}; {chunk_setting(env)}")
    for label, root in checkouts.items():
        print(f"{label}: {root}")
    header = f"{'N,Cin,H,W,Cout,k,s,p,d,g':<28} {'mode':<17} {'minigrad ms':>11} {'GFLOP/s':>8}"
    if "torch" in libraries:
        header += f" {'torch ms':>9} {'GFLOP/s':>8} {'ratio':>6} {'goal':>5} {'ratio of mins':>13}"
    others = list(checkouts)[1:]   # --tree checkouts: their times, and this checkout's over theirs
    header += "".join(f" {label + ' ms':>{len(label) + 3}} {'this/it':>7}" for label in others)
    print(header)
    for i in chosen:
        flops = forward_flops(SHAPES[i])
        for mode in MODES:
            work = flops * (1 if mode == "forward" else 3)
            ours = combine(samples[("minigrad", i, mode)])
            row = f"{','.join(map(str, SHAPES[i])):<28} {mode:<17} {ours * 1e3:>11.2f}"
            row += f" {work / ours / 1e9:>8.1f}"
            if "torch" in libraries:
                theirs = combine(samples[("torch", i, mode)])
                ratio = ours / theirs
                goal = "" if mode == "forward" else ("ok" if ratio <= GOALS[i] else f">{GOALS[i]:g}x")
                best = min(samples[("minigrad", i, mode)]) / min(samples[("torch", i, mode)])
                row += f" {theirs * 1e3:>9.2f} {work / theirs / 1e9:>8.1f} {ratio:>6.2f} {goal:>5}"
                row += f" {best:>13.2f}"
            for label in others:
                theirs = combine(samples[(label, i, mode)])
                row += f" {theirs * 1e3:>{len(label) + 3}.2f} {ours / theirs:>7.2f}"
            print(row)
    if parts:
        _print_parts(parts, samples, combine, "torch" in libraries)
    _print_geomeans(chosen, samples, combine, [*libraries])


def _print_geomeans(chosen: list, samples: dict, combine, libraries: list) -> None:
    """Per mode, the geometric mean over the shapes of each pair's time ratio: every minigrad checkout
    against PyTorch, and this checkout against each other one."""
    checkouts = [lib for lib in libraries if lib != "torch"]
    pairs = [(mine, "torch") for mine in checkouts if "torch" in libraries]
    pairs += [("minigrad", other) for other in checkouts[1:]]
    if not pairs:
        return
    print("\nGeometric mean over the shapes of the time ratios")
    for mode in MODES:
        cells = []
        for a, b in pairs:
            ratios = [combine(samples[(a, i, mode)]) / combine(samples[(b, i, mode)]) for i in chosen]
            cells.append(f"{a}/{b} {geomean(ratios):.2f}")
        print(f"{mode:<17} " + "   ".join(cells))


def _is_depthwise(shape: tuple) -> bool:
    """The im2col path hands these to depthwise.py, which has no columns or GEMMs to time."""
    n, c_in, h, w, c_out, k, stride, padding, dilation, groups = shape
    return groups > 1 and c_in == groups and stride == 1


def _print_parts(chosen: list, samples: dict, combine, with_torch: bool) -> None:
    """The pieces' times; with PyTorch, what the three GEMMs alone and all pieces cost against its fwd+bwd."""
    print("\nThe default im2col path's pieces, each alone (ms)")
    header = f"{'N,Cin,H,W,Cout,k,s,p,d,g':<28}" + "".join(f" {part:>10}" for part in PARTS)
    header += f" {'sum':>7} {'fwd+bwd':>8}"
    if with_torch:
        header += f" {'torch':>7} {'GEMMs/torch':>11} {'sum/torch':>9} {'goal':>5}"
    print(header)
    for i in chosen:
        times = {part: combine(samples[("minigrad", i, part)]) * 1e3 for part in PARTS}
        total = sum(times.values())
        ours = combine(samples[("minigrad", i, "forward+backward")]) * 1e3
        row = f"{','.join(map(str, SHAPES[i])):<28}" + "".join(f" {times[part]:>10.2f}" for part in PARTS)
        row += f" {total:>7.2f} {ours:>8.2f}"
        if with_torch:
            theirs = combine(samples[("torch", i, "forward+backward")]) * 1e3
            gemms = sum(times[part] for part in PARTS if part.startswith("GEMM"))
            row += f" {theirs:>7.2f} {gemms / theirs:>11.2f} {total / theirs:>9.2f} {GOALS[i]:>5g}"
        print(row)


if __name__ == "__main__":
    main()
