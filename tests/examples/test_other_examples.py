"""examples/mnist_mlp.py and examples/custom_function.py, and the MNIST benchmark's worker."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from _example_helpers import EXAMPLES, MNIST_DIR, ROOT, example_env, load_example, needs_mnist, run_example

import minigrad as mg
from minigrad.autograd import gradcheck


@needs_mnist
def test_mlp_example_learns_on_a_subset():
    result = run_example("mnist_mlp.py", "--data", str(MNIST_DIR), "--train-subset", "10000", "--epochs", "2")
    assert result.returncode == 0, result.stderr[-3000:]
    accuracies = [float(a) for a in re.findall(r"epoch \d: test accuracy ([\d.]+)%", result.stdout)]
    assert len(accuracies) == 2, result.stdout
    assert accuracies[-1] > 92, result.stdout  # chance is 10%; seeds 0, 1, 2 give 93.3% to 93.9%


def test_custom_function_example_passes_its_checks(capsys):
    assert load_example("custom_function").main() == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out
    assert out.count("ok  ") == 13
    assert out.count("gradgradcheck") == 4  # the backwards are recorded: second derivatives for free


def test_gradcheck_in_the_example_catches_a_wrong_backward():
    example = load_example("custom_function")

    class WrongWeightGradient(example.Conv2dFunction):
        @staticmethod
        def backward(ctx, grad_output):
            grads = example.Conv2dFunction.backward(ctx, grad_output)
            return (grads[0], grads[1] * 1.01, *grads[2:])

    mg.manual_seed(0)
    x, w = mg.randn(1, 2, 5, 5, dtype=mg.float64, requires_grad=True), \
        mg.randn(3, 2, 3, 3, dtype=mg.float64, requires_grad=True)
    assert gradcheck(example.Conv2dFunction.apply, (x, w))
    with pytest.raises(RuntimeError):
        gradcheck(WrongWeightGradient.apply, (x, w))


def test_custom_function_example_is_unchanged_pytorch_code():
    """The same source, with ``torch`` imported instead of ``minigrad``, passes under PyTorch."""
    pytest.importorskip("torch")
    source = (EXAMPLES / "custom_function.py").read_text()
    for ours, theirs in [("import minigrad as torch", "import torch"),
                         ("import minigrad.nn as nn", "import torch.nn as nn"),
                         ("import minigrad.nn.functional as F", "import torch.nn.functional as F"),
                         ("from minigrad.autograd import", "from torch.autograd import")]:
        assert ours in source
        source = source.replace(ours, theirs)
    assert "import minigrad" not in source and "from minigrad" not in source
    result = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=300,
                            env=example_env())
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert "all checks passed" in result.stdout


def test_mnist_benchmark_worker_times_a_training_step():
    result = subprocess.run([sys.executable, "benchmarks/mnist.py", "--worker", "minigrad", "--steps", "2",
                             "--batch-size", "8"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                            env=example_env())
    assert result.returncode == 0, result.stderr[-3000:]
    timings = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(timings) == {"step", "forward", "backward", "optimizer"}
    for phase in timings.values():
        assert phase["ms"] > 0
        assert phase["images_per_second"] == pytest.approx(8 / phase["ms"] * 1e3)


def test_conv_benchmark_worker_times_every_piece_of_the_im2col_path():
    """`benchmarks/conv.py --parts` asks its minigrad worker for each piece; each answers with times."""
    modes = ("forward+backward", "layout", "im2col", "GEMM Y", "GEMM dW", "GEMM dcols", "col2im")
    requests = [{"shape": 3, "mode": mode, "number": 1} for mode in modes]
    result = subprocess.run([sys.executable, "benchmarks/conv.py", "--worker", "minigrad"], cwd=ROOT,
                            input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True,
                            text=True, timeout=300, env=example_env())
    assert result.returncode == 0, result.stderr[-3000:]
    answers = [json.loads(line) for line in result.stdout.strip().splitlines()]
    assert len(answers) == len(requests)
    assert all(len(times) == 1 and times[0] > 0 for times in answers)
