"""How minigrad and PyTorch speed up with threads: the MNIST training step at 1, 2, ... threads.

    python benchmarks/scaling.py                   # 1 .. os.cpu_count() threads, PNG + CSV + markdown
    python benchmarks/scaling.py --threads 1,2,4 --rounds 5 --steps 30
    python benchmarks/scaling.py --conv            # also the geomean of benchmarks/conv.py's fwd+bwd set
    python benchmarks/scaling.py --blas pinned     # keep this machine's OPENBLAS_CORETYPE / _L2_SIZE
    python benchmarks/scaling.py --quick           # a smoke test: 1 and 2 threads, 1 round, 2 small steps

Every measurement is a fresh process running one library at one thread count
(``benchmarks/mnist.py``'s and ``benchmarks/conv.py``'s workers); the rounds go through every
thread count and library in turn, so a slow phase of the machine hits all alike, and the
tables show medians over the rounds. The speed-up at n threads is a library's own time at 1
thread (the fewest measured) over its time at n. Writes ``scaling.png`` (time and speed-up against threads),
``scaling.csv`` and ``scaling.md`` into ``--out`` (default ``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _runner import (  # noqa: E402
    add_blas_arguments,
    add_chunk_argument,
    blas_environment,
    blas_header,
    chunk_setting,
    in_turn,
    processor,
    torch_available,
    with_chunk_setting,
)

HERE = Path(__file__).resolve().parent
MNIST = HERE / "mnist.py"
BENCHMARKS = {"mnist": "MNIST CNN training step",
              "conv": "Conv2d fwd+bwd, geomean of benchmarks/conv.py's shapes"}


def mnist_step_ms(library: str, threads: int, steps: int, batch_size: int, env: dict) -> float:
    """The median training-step time, in ms, of ``library`` at ``threads`` threads, in a fresh process."""
    command = [sys.executable, str(MNIST), "--worker", library, "--steps", str(steps), "--batch-size",
               str(batch_size), "--threads", str(threads)]
    completed = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"{library} worker at {threads} thread(s) failed:\n{completed.stderr}")
    return json.loads(completed.stdout.strip().splitlines()[-1])["step"]["ms"]


def conv_geomean_ms(library: str, threads: int, number: int, env: dict) -> float:
    """The geometric mean over benchmarks/conv.py's shapes of the median fwd+bwd time, in ms."""
    import conv  # noqa: PLC0415 (benchmarks/conv.py, only needed with --conv)

    settings = argparse.Namespace(algorithm="im2col", threads=threads, clock="wall")
    worker = conv.Worker(library, settings, env)
    try:
        medians = [statistics.median(worker.time(i, "forward+backward", number))
                   for i in range(len(conv.SHAPES))]
    finally:
        worker.close()
    return math.exp(statistics.fmean(math.log(m * 1e3) for m in medians))


def measure(args: argparse.Namespace, libraries: list[str], thread_counts: list[int]) -> list[dict]:
    """One row per (benchmark, library, threads): the median ms over the rounds, and the speed-up."""
    native = args.blas == "native"
    samples: dict = {}
    for round_number in range(args.rounds):
        for threads in thread_counts:
            env = with_chunk_setting(blas_environment(threads, native), args.min_chunk_bytes, args.bands)
            for library in in_turn(libraries, round_number):
                step = mnist_step_ms(library, threads, args.steps, args.batch_size, env)
                samples.setdefault(("mnist", library, threads), []).append(step)
                if args.conv:
                    geomean = conv_geomean_ms(library, threads, args.number, env)
                    samples.setdefault(("conv", library, threads), []).append(geomean)
    rows = []
    for (benchmark, library, threads), times in samples.items():
        rows.append({"benchmark": benchmark, "library": library, "threads": threads,
                     "ms": statistics.median(times)})
    fewest = {(r["benchmark"], r["library"]): r["ms"] for r in rows if r["threads"] == thread_counts[0]}
    for row in rows:
        row["speedup"] = fewest[(row["benchmark"], row["library"])] / row["ms"]
    return rows


def write_csv(rows: list[dict], path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, fieldnames=["benchmark", "library", "threads", "ms", "speedup"])
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "ms": f"{row['ms']:.3f}", "speedup": f"{row['speedup']:.3f}"})


def markdown(rows: list[dict], libraries: list[str], thread_counts: list[int]) -> str:
    """One table per benchmark: a row per thread count, ms and speed-up per library, and the ratio."""
    lines = []
    for benchmark in dict.fromkeys(row["benchmark"] for row in rows):
        lines += [f"**{BENCHMARKS[benchmark]}** (median ms; speed-up over 1 thread)", ""]
        header = "| threads |" + "".join(f" {lib} ms | {lib} speed-up |" for lib in libraries)
        header += " minigrad / torch |" if "torch" in libraries else ""
        lines += [header, "|---:|" + "---:|" * (2 * len(libraries) + ("torch" in libraries))]
        for threads in thread_counts:
            found = {row["library"]: row for row in rows if row["benchmark"] == benchmark
                     and row["threads"] == threads}
            line = f"| {threads} |" + "".join(f" {found[lib]['ms']:.1f} | {found[lib]['speedup']:.2f}x |"
                                              for lib in libraries)
            if "torch" in libraries:
                line += f" {found['minigrad']['ms'] / found['torch']['ms']:.2f} |"
            lines.append(line)
        lines.append("")
    return "\n".join(lines)


def plot(rows: list[dict], libraries: list[str], thread_counts: list[int], title: str, path: Path) -> None:
    """Time and speed-up against threads, one row of two panels per benchmark."""
    import matplotlib  # noqa: PLC0415 (only the driver plots)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    benchmarks = list(dict.fromkeys(row["benchmark"] for row in rows))
    figure, axes = plt.subplots(len(benchmarks), 2, figsize=(10, 4 * len(benchmarks)), squeeze=False)
    for (time_axis, speed_axis), benchmark in zip(axes, benchmarks):
        for library in libraries:
            mine = sorted((r["threads"], r["ms"], r["speedup"]) for r in rows
                          if r["benchmark"] == benchmark and r["library"] == library)
            time_axis.plot([m[0] for m in mine], [m[1] for m in mine], marker="o", label=library)
            speed_axis.plot([m[0] for m in mine], [m[2] for m in mine], marker="o", label=library)
        speed_axis.plot(thread_counts, [t / thread_counts[0] for t in thread_counts], "k:", label="ideal")
        time_axis.set(title=BENCHMARKS[benchmark], xlabel="threads", ylabel="ms (median)",
                      xticks=thread_counts)
        speed_axis.set(title=f"speed-up over {thread_counts[0]} thread(s)", xlabel="threads",
                       ylabel="speed-up", xticks=thread_counts)
        time_axis.set_ylim(bottom=0)
        for axis in (time_axis, speed_axis):
            axis.grid(alpha=0.3)
            axis.legend()
    # The header names the BLAS and the settings: wrapped to the figure's width, not cut off.
    figure.suptitle("\n".join(textwrap.wrap(title, 150)), fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", default="", help="comma-separated thread counts (default 1 .. CPUs)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--steps", type=int, default=20, help="timed training steps per process (default 20)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--conv", action="store_true", help="also the conv benchmark set's fwd+bwd geomean")
    parser.add_argument("--number", type=int, default=5, help="timed conv calls per shape (with --conv)")
    parser.add_argument("--no-torch", action="store_true", help="minigrad alone")
    parser.add_argument("--quick", action="store_true", help="smoke test: 1 and 2 threads, 1 round, 2 steps")
    parser.add_argument("--out", default=str(HERE / "results"), help="folder for scaling.png/.csv/.md")
    add_blas_arguments(parser)
    add_chunk_argument(parser)
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.steps, args.batch_size, args.number = 1, 2, 16, 1
        args.threads = args.threads or "1,2"
    cpus = os.cpu_count() or 1
    thread_counts = sorted({int(t) for t in args.threads.split(",")}) if args.threads else \
        list(range(1, cpus + 1))
    libraries = ["minigrad"] + ([] if args.no_torch or not torch_available() else ["torch"])

    rows = measure(args, libraries, thread_counts)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    native = args.blas == "native"
    header = (f"median of {args.rounds} interleaved round(s), {args.steps} steps of batch {args.batch_size}; "
              f"{processor()}\n{blas_header(blas_environment(thread_counts[-1], native), native)}; "
              f"{chunk_setting(with_chunk_setting({}, args.min_chunk_bytes, args.bands))}")
    table = markdown(rows, libraries, thread_counts)
    write_csv(rows, out / "scaling.csv")
    (out / "scaling.md").write_text(header + "\n\n" + table, encoding="utf-8")
    plot(rows, libraries, thread_counts, header, out / "scaling.png")
    print(header + "\n\n" + table)
    print(f"wrote {out / 'scaling.png'}, scaling.csv and scaling.md")


if __name__ == "__main__":
    main()
