"""The GPU check: minigrad on a real NVIDIA GPU, in one command (``bash scripts/gpu-check.sh``).

1. Says what it runs on: GPU, driver, CuPy, NumPy, PyTorch.
2. Runs the device tests — the same tests that run on the CuPy stand-in without a GPU — on real
   CuPy (``MINIGRAD_TEST_REAL_CUPY=1``).
3. Trains the MNIST CNN of ``examples/mnist_cnn.py`` for one epoch on 'cuda' and on the CPU, and,
   when PyTorch with CUDA is present, the same model with PyTorch on the GPU, and prints test
   accuracy and training images/s side by side.

Everything it prints also goes to ``--report`` (JSON) when given. Needs MNIST: ``--data`` or
``$MINIGRAD_DATA``, else minigrad's cache folder (downloaded there if the network allows).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEVICE_TESTS = ["tests/core", "tests/conv/test_conv_on_cupy_standin.py", "tests/nn", "tests/optim"]


def environment() -> dict:
    """What this machine has: the GPU and the versions that matter."""
    info: dict[str, Any] = {"python": platform.python_version()}
    import numpy  # noqa: PLC0415

    info["numpy"] = numpy.__version__
    try:
        import cupy  # noqa: PLC0415

        props = cupy.cuda.runtime.getDeviceProperties(0)
        info["cupy"] = cupy.__version__
        info["gpu"] = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        info["gpu_memory_gib"] = round(props["totalGlobalMem"] / 2**30, 1)
        info["cuda_driver"] = cupy.cuda.runtime.driverGetVersion()
        info["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
    except Exception as error:  # no CuPy, or no GPU: say so and go on with what works
        info["cupy_error"] = f"{type(error).__name__}: {error}"
    try:
        import torch  # noqa: PLC0415

        info["torch"] = torch.__version__
        info["torch_cuda"] = torch.cuda.is_available()
    except ImportError:
        info["torch"] = None
    return info


def device_tests(workers: int, timeout: float) -> dict:
    """The stand-in's device tests, on real CuPy: pytest's summary line and exit code."""
    env = dict(os.environ, MINIGRAD_TEST_REAL_CUPY="1")
    env.pop("MINIGRAD_REQUIRE_TORCH", None)
    command = [sys.executable, "-m", "pytest", *DEVICE_TESTS, "-k", "standin or cuda", "-q",
               "-p", "no:cacheprovider", "-n", str(workers), "-o", "addopts=", "-rf"]
    start = time.perf_counter()
    try:
        run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout or ""
        if isinstance(output, bytes):
            output = output.decode(errors="replace")
        return {"returncode": None, "summary": f"timed out after {timeout:.0f} s",
                "tail": output[-3000:], "seconds": time.perf_counter() - start}
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    summary = lines[-1] if lines else "(no output)"
    failed = [line for line in lines if line.startswith("FAILED")]
    return {"returncode": run.returncode, "summary": summary, "failed": failed[:40],
            "tail": (run.stdout + run.stderr)[-3000:] if run.returncode else "",
            "seconds": time.perf_counter() - start}


def train_minigrad(device: str, data: str | None, subset: int | None, timeout: float) -> dict:
    """One epoch of ``examples/mnist_cnn.py`` on ``device``: test accuracy and images/s."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, str(ROOT / "examples" / "mnist_cnn.py"), "--epochs", "1",
                   "--device", device, "--out", out]
        if data:
            command += ["--data", data]
        if subset:
            command += ["--train-subset", str(subset)]
        try:
            run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout:.0f} s"}
        metrics = Path(out) / "metrics.json"
        if run.returncode != 0 or not metrics.exists():
            return {"error": f"exit {run.returncode}: {(run.stdout + run.stderr)[-1500:]}"}
        epoch = json.loads(metrics.read_text())["epochs"][-1]
    return {"test_acc": epoch["test_acc"], "images_per_second": epoch["images_per_second"],
            "seconds": epoch["seconds"]}


def train_torch(data: str | None, subset: int | None) -> dict:
    """The same CNN, optimiser and batches with PyTorch on the GPU (one epoch)."""
    import torch  # noqa: PLC0415

    sys.path.insert(0, str(ROOT / "examples"))
    from mnist_cnn import DEFAULT_LR, MEAN, STD, make_model  # noqa: PLC0415

    from minigrad.data import MNIST  # noqa: PLC0415  (the same files, verified the same way)

    train, test = MNIST(data, train=True), MNIST(data, train=False)
    images = torch.from_numpy(train.images[:subset]).float().div_(255).sub_(MEAN).div_(STD).unsqueeze(1)
    labels = torch.from_numpy(train.labels[:subset])
    test_images = torch.from_numpy(test.images).float().div_(255).sub_(MEAN).div_(STD).unsqueeze(1)
    test_labels = torch.from_numpy(test.labels)
    torch.manual_seed(0)
    device = torch.device("cuda")
    model = make_model(torch.nn).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=DEFAULT_LR["adam"])
    order = torch.randperm(len(images), generator=torch.Generator().manual_seed(0))
    torch.cuda.synchronize()
    start = time.perf_counter()
    model.train()
    for first in range(0, len(images), 64):
        batch = order[first:first + 64]
        x, y = images[batch].to(device), labels[batch].to(device)  # copied per batch, as minigrad's run does
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    model.eval()
    correct = 0
    with torch.no_grad():
        for first in range(0, len(test_images), 500):
            logits = model(test_images[first:first + 500].to(device))
            correct += int((logits.argmax(1).cpu() == test_labels[first:first + 500]).sum())
    return {"test_acc": correct / len(test_images), "images_per_second": len(images) / seconds,
            "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("MINIGRAD_DATA"), help="folder with MNIST's files")
    parser.add_argument("--train-subset", type=int, default=None, help="train on the first N images only")
    parser.add_argument("--workers", type=int, default=min(8, os.cpu_count() or 1),
                        help="pytest-xdist workers for the device tests")
    parser.add_argument("--test-timeout", type=float, default=240, help="seconds for the device tests")
    parser.add_argument("--train-timeout", type=float, default=150, help="seconds for each training run")
    parser.add_argument("--skip-tests", action="store_true", help="only the training runs")
    parser.add_argument("--report", default=None, help="also write everything as JSON here")
    args = parser.parse_args(argv)

    report: dict[str, Any] = {"environment": environment()}
    print("Environment:", json.dumps(report["environment"], indent=2), flush=True)
    if "cupy_error" in report["environment"]:
        print("No usable GPU through CuPy: the device tests and the GPU run are skipped.", flush=True)

    if not args.skip_tests and "cupy_error" not in report["environment"]:
        report["device_tests"] = device_tests(args.workers, args.test_timeout)
        tests = report["device_tests"]
        print(f"\nDevice tests on real CuPy ({tests['seconds']:.0f} s): {tests['summary']}", flush=True)
        for line in tests.get("failed", []):
            print("  " + line)
        if tests.get("tail"):
            print(tests["tail"])

    runs: dict[str, dict] = {}
    if "cupy_error" not in report["environment"]:
        runs["minigrad, cuda"] = train_minigrad("cuda", args.data, args.train_subset, args.train_timeout)
        print("minigrad, cuda:", runs["minigrad, cuda"], flush=True)
    runs["minigrad, cpu"] = train_minigrad("cpu", args.data, args.train_subset, args.train_timeout)
    print("minigrad, cpu:", runs["minigrad, cpu"], flush=True)
    if report["environment"].get("torch_cuda"):
        try:
            runs["PyTorch, cuda"] = train_torch(args.data, args.train_subset)
        except Exception as error:  # report it beside the others instead of losing the table
            runs["PyTorch, cuda"] = {"error": f"{type(error).__name__}: {error}"}
        print("PyTorch, cuda:", runs["PyTorch, cuda"], flush=True)
    report["training"] = runs

    print("\nOne epoch of the MNIST CNN (batch 64, Adam 2e-3):")
    print(f"{'run':<16} {'test accuracy':>14} {'images/s':>10} {'seconds':>9}")
    for name, run in runs.items():
        if "error" in run:
            print(f"{name:<16} {run['error'][:200]}")
        else:
            print(f"{name:<16} {run['test_acc']:>14.2%} {run['images_per_second']:>10.0f} "
                  f"{run['seconds']:>9.1f}")
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=2))
    tests_ok = report.get("device_tests", {}).get("returncode", 0) == 0
    runs_ok = all("error" not in run for run in runs.values())
    return 0 if tests_ok and runs_ok else 1


if __name__ == "__main__":
    sys.exit(main())
