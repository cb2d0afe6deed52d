"""The course kit: the solutions pass, a fresh copy fails cleanly, wrong answers are named."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import minigrad.exercises as exercises
from minigrad.exercises import grade, load_student, reference_solution
from minigrad.exercises.__main__ import main
from minigrad.exercises._grading import run_part
from minigrad.exercises._student import MarkerError, blank_solutions, make_copy, split_statement

NAMES = ["broadcasting", "linear", "softmax_xent", "relu_maxpool", "conv_im2col", "conv_rot180", "batchnorm",
         "sgd", "capstone", "im2col", "conv_loops", "engine"]
WITHOUT_CAPSTONE = [name for name in NAMES if name != "capstone"]


SOLUTIONS = Path(__file__).resolve().parents[2] / "course" / "solutions"


def reference_context() -> dict:
    return {name: vars(reference_solution(name)) for name in NAMES}


def solution_source(name: str) -> str:
    return (SOLUTIONS / f"{name}.py").read_text(encoding="utf-8")


def test_list_names_them_all(capsys: pytest.CaptureFixture) -> None:
    assert exercises.names() == NAMES
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for number, name in enumerate(NAMES, start=1):
        assert f"{number:2d}. {name}" in out


@pytest.mark.parametrize("name", WITHOUT_CAPSTONE)
def test_reference_solutions_pass(name: str) -> None:
    results = grade(name, reference_context()[name])
    assert results and all(r.passed for r in results), [r.message for r in results if not r.passed]


def test_capstone_trains_on_a_subset() -> None:
    if not (Path(os.environ.get("MINIGRAD_DATA", "")) / "train-images-idx3-ubyte.gz").exists():
        pytest.skip("MNIST is not in MINIGRAD_DATA")
    results = grade("capstone", reference_context()["capstone"], quick=True, context=reference_context())
    assert all(r.passed for r in results), [r.message for r in results if not r.passed]
    assert "test accuracy" in results[-1].message


def test_fresh_copy_fails_every_exercise_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["make", str(tmp_path / "copy")]) == 0
    report = tmp_path / "results.json"
    assert main(["check", "--dir", str(tmp_path / "copy"), "--quick", "--json", str(report)]) == 1
    out = capsys.readouterr().out
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["score"] == 0
    graded = {test["name"].split(":")[0] for test in data["tests"]}
    assert graded == set(NAMES)
    for test in data["tests"]:
        assert test["score"] == 0 and test["status"] == "failed"
        assert test["output"].startswith("not implemented yet (in "), test
    assert f"score: 0 / {10 * len(NAMES)}" in out


def test_results_json_has_gradescopes_layout(tmp_path: Path) -> None:
    report = tmp_path / "out" / "results.json"
    assert main(["check", "--solutions", "linear", "sgd", "--json", str(report)]) == 0
    data = json.loads(report.read_text(encoding="utf-8"))
    assert set(data) >= {"score", "tests"}
    assert data["score"] == sum(test["max_score"] for test in data["tests"]) == 20
    for test in data["tests"]:
        assert set(test) >= {"name", "score", "max_score", "output"}
        assert test["score"] == test["max_score"] and test["output"] == "ok"
    assert [t["name"] for t in data["tests"]][:2] == ["linear: grad_input", "linear: grad_weight"]


def test_student_copy_blanks_every_block(tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    written = make_copy(tmp_path, exercises.EXERCISES)
    assert len(written) == 2 * len(NAMES)
    for ex in exercises.EXERCISES:
        source = (tmp_path / f"{ex.name}.py").read_text(encoding="utf-8")
        compile(source, ex.name, "exec")
        assert "BEGIN SOLUTION" not in source and "END SOLUTION" not in source
        assert source.count("raise NotImplementedError(") >= 1
        notebook = nbformat.read(tmp_path / f"{ex.name}.ipynb", as_version=4)
        nbformat.validate(notebook)
        kinds = [cell.cell_type for cell in notebook.cells]
        assert kinds == ["markdown", "code", "code", "code"]
        assert notebook.cells[0].source.startswith("# Exercise")
        assert notebook.cells[2].source.startswith("# A blank cell")
        assert f"check({ex.name!r}, globals()" in notebook.cells[3].source


def test_make_never_overwrites_work(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["make", str(tmp_path), "linear"]) == 0
    (tmp_path / "linear.py").write_text("# my work\n", encoding="utf-8")
    assert main(["make", str(tmp_path), "linear"]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert (tmp_path / "linear.py").read_text(encoding="utf-8") == "# my work\n"
    assert main(["make", str(tmp_path), "linear", "--force"]) == 0
    assert main(["check", "--solutions", "nonsense"]) == 2


def test_notebooks_can_be_graded(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    make_copy(tmp_path, [exercises.exercise("linear"), exercises.exercise("sgd")])
    notebook_path = tmp_path / "linear.ipynb"
    notebook = json.loads(notebook_path.read_text(encoding="utf-8"))
    _, code = split_statement(solution_source("linear"))
    for cell in notebook["cells"]:
        if cell["id"] == "your-code":
            cell["source"] = code.splitlines(keepends=True)
    notebook_path.write_text(json.dumps(notebook), encoding="utf-8")
    assert main(["check", "linear", "--dir", str(tmp_path), "--notebooks"]) == 0
    assert main(["check", "linear", "sgd", "--dir", str(tmp_path), "--notebooks"]) == 1
    assert "not implemented yet (in step, sgd.ipynb line" in capsys.readouterr().out


def test_markers_must_pair() -> None:
    assert blank_solutions("x = 1\n    # BEGIN SOLUTION: do it\n    y = 2\n    # END SOLUTION\n") == \
        "x = 1\n    raise NotImplementedError('do it')\n"
    with pytest.raises(MarkerError, match="never closed"):
        blank_solutions("# BEGIN SOLUTION\nx = 1\n")
    with pytest.raises(MarkerError, match="without a BEGIN"):
        blank_solutions("x = 1\n# END SOLUTION\n")


def test_broken_file_fails_its_exercise_without_crashing(tmp_path: Path) -> None:
    (tmp_path / "linear.py").write_text("def broken(:\n", encoding="utf-8")
    assert main(["check", "linear", "--dir", str(tmp_path)]) == 1
    assert main(["check", "sgd", "--dir", str(tmp_path)]) == 1   # no sgd.py at all
    (tmp_path / "sgd.py").write_text("import sys\nsys.exit(3)\n", encoding="utf-8")
    assert main(["check", "sgd", "--dir", str(tmp_path)]) == 1   # exiting at import fails it, not the grader


def test_notebook_check_takes_one_function_or_globals(capsys: pytest.CaptureFixture) -> None:
    linear = reference_solution("linear")
    assert exercises.check("linear", linear.LinearFunction)
    assert exercises.check("linear", vars(linear))
    assert not exercises.check("linear", {})
    assert "your code defines no `LinearFunction`" in capsys.readouterr().out


# --- wrong answers are caught and named ------------------------------------------------------

# (exercise, the reference line, the wrong line, the part that must fail, what its message must say:
# the mistake's kind, named)
WRONG = [
    ("broadcasting", "grad = grad.sum(axis=stretched, keepdims=True)", "grad = grad.sum(axis=stretched)",
     "sum_to_shape", ["sum_to_shape(grad, shape) has shape"]),
    ("broadcasting", "grad_a = sum_to_shape(g * b.array, a.shape)", "grad_a = sum_to_shape(-g * b.array, a.shape)",  # noqa: E501
     "Mul backward", ["the sign is flipped"]),
    ("broadcasting", "grad_b = sum_to_shape(-g * a.array / (b.array * b.array), b.shape)",
     "grad_b = sum_to_shape(g * a.array / (b.array * b.array), b.shape)", "Div backward", ["the sign is flipped"]),  # noqa: E501
    ("broadcasting", "grad_b = sum_to_shape(g * a.array, b.shape)", "grad_b = g * a.array",
     "Mul backward", ["not summed over the batch / broadcast dimensions"]),
    ("linear", "grad_weight = Tensor(xp.matmul(g.T, rows))", "grad_weight = Tensor(xp.matmul(rows.T, g))",
     "grad_weight", ["grad_weight (∂L/∂W) has shape (3, 5) but should have shape (5, 3)", "(transposed?)"]),
    ("linear", "grad_bias = Tensor(g.sum(axis=0))", "grad_bias = Tensor(g)",
     "grad_bias", ["grad_bias (∂L/∂b) has shape (4, 5) but should have shape (5,)",
                   "not summed over the batch"]),
    ("linear", "grad_input = Tensor(xp.matmul(g, weight.array).reshape(x.shape))",
     "grad_input = Tensor(xp.matmul(g, weight.array * 0.5).reshape(x.shape))",
     "grad_input", ["grad_input (∂L/∂x) is wrong for x (4, 3)", "exactly 0.5 × the expected",
                    "first index that differs"]),
    ("linear", "grad_weight = Tensor(xp.matmul(g.T, rows))", "grad_weight = Tensor(xp.matmul(g.T, rows) / len(rows))",  # noqa: E501
     "grad_weight", ["divided by the batch size N = 4"]),
    ("linear", "grad_input = Tensor(xp.matmul(g, weight.array).reshape(x.shape))",
     "grad_input = Tensor(xp.matmul(g, weight.array.T).reshape(x.shape))",
     "grad_input", ["your code raised ValueError (in backward, linear.py line", "for x (4, 3), weight (5, 3)"]),  # noqa: E501
    ("softmax_xent", "grad_z *= grad.array / n", "grad_z *= grad.array",
     "fused CrossEntropy backward", ["CrossEntropy's grad_z (∂L/∂z) is wrong for z (4, 5)", "times N = 4"]),
    ("softmax_xent", "grad_z *= grad.array / n", "grad_z /= n",
     "fused CrossEntropy backward", ["divided by the upstream gradient"]),
    ("softmax_xent", "grad_logp[xp.arange(n), target.array] = -grad.array / n",
     "grad_logp[xp.arange(n), target.array] = grad.array / n",
     "NLLLoss backward", ["NLLLoss's grad_logp (∂L/∂logp) is wrong", "the sign is flipped"]),
    ("softmax_xent", "grad_z = p * (g - (g * p).sum(axis=1, keepdims=True))",
     "grad_z = p * (g - (g * p).sum(axis=1))",
     "Softmax backward", ["your code raised ValueError (in backward, softmax_xent.py line", "for z (4, 5)"]),
    ("relu_maxpool", "grad_x = grad.array * (x.array > 0)", "grad_x = grad.array * (x.array >= 0)",
     "ReLU backward", ["only where the input is exactly at the kink", "x > 0, not x >= 0"]),
    ("relu_maxpool", "grad_x = grad.array * (x.array > 0)", "grad_x = grad.array * (x.array <= 0)",
     "ReLU backward", ["ReLU's grad_x (∂L/∂x) is wrong"]),
    ("relu_maxpool", "return Tensor(grad_x)\n", "return grad_x\n",
     "ReLU backward", ["is a ndarray, not a Tensor"]),
    ("relu_maxpool", "grad_x[:, :, rows, cols] += g * (argmax == i * k + j)",
     "grad_x[:, :, rows, cols] -= g * (argmax == i * k + j)", "MaxPool2d backward", ["the sign is flipped"]),
    ("conv_im2col", "grad_bias = Tensor(g.sum(axis=(0, 2, 3)))", "grad_bias = Tensor(g.sum(axis=(2, 3)))",
     "grad_bias", ["grad_bias (∂L/∂b) has shape (2, 4) but should have shape (4,)"]),
    ("conv_im2col", "grad_weight = Tensor((delta @ cols_g.transpose(0, 2, 1)).reshape(weight.shape))",
     "grad_weight = Tensor((delta @ cols_g.transpose(0, 2, 1)).reshape(weight.shape[::-1]).transpose(3, 2, 1, 0))",  # noqa: E501
     "grad_weight", ["grad_weight (∂L/∂W) is wrong for x (2, 3, 6, 6), weight (4, 3, 3, 3)"]),
    ("conv_im2col", "grad_weight = Tensor((delta @ cols_g.transpose(0, 2, 1)).reshape(weight.shape))",
     "grad_weight = Tensor((delta @ cols_g.transpose(0, 2, 1)).reshape(weight.shape) / x.shape[0])",
     "grad_weight", ["divided by the batch size N = 2"]),
    ("conv_im2col", "grad_bias = Tensor(g.sum(axis=(0, 2, 3)))", "grad_bias = Tensor(-g.sum(axis=(0, 2, 3)))",
     "grad_bias", ["the sign is flipped"]),
    ("conv_rot180", "return crop2d(correlate(full, rot180(weight), (1, 1), dilation), padding)",
     "return crop2d(correlate(full, weight.transpose(1, 0, 2, 3), (1, 1), dilation), padding)",
     "grad_input by rot180", ["dx = δ ∗ rot180(W) (conv2d_grad_input) is wrong for x (2, 3, 6, 6)",
                              "first index that differs"]),
    ("conv_rot180", "return weight.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1]", "return weight[:, :, ::-1, ::-1]",  # noqa: E501
     "rot180", ["rot180(W) has shape (2, 3, 2, 3) but should have shape (3, 2, 2, 3)"]),
    ("conv_rot180", "return weight.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1]",
     "return weight.transpose(1, 0, 3, 2)[:, :, ::-1, ::-1]", "rot180", ["(transposed?)"]),
    ("batchnorm", "m * g - g.sum(axis=axes, keepdims=True) - x_hat", "m * g - x_hat",
     "grad_x (the fused expression)",
     ["grad_x (∂L/∂x) is wrong for x (8, 5) (against autograd through the steps)"]),
    ("batchnorm", "grad_x = Tensor(gamma.array.reshape(ctx.shape) * inv_std / m * (",
     "grad_x = Tensor(gamma.array.reshape(ctx.shape) * inv_std * (", "grad_x (the fused expression)",
     ["times m (the values per channel) = 8"]),
    ("batchnorm", "grad_gamma = Tensor((g * x_hat).sum(axis=axes))", "grad_gamma = Tensor(-(g * x_hat).sum(axis=axes))",  # noqa: E501
     "grad_gamma", ["the sign is flipped"]),
    ("batchnorm", "grad_beta = Tensor(g.sum(axis=axes))", "grad_beta = Tensor(g.sum(axis=0))",
     "grad_beta", ["grad_beta (∂L/∂β) has shape (3, 5, 5)", "not summed over the batch"]),
    ("sgd", "buffer.mul_(momentum).add_(g, alpha=1 - dampening)",
     "buffer.add_(g, alpha=1 - dampening).mul_(momentum)",
     "momentum and dampening", ["parameter 0 after step 2 is wrong for lr=0.1, momentum=0.9"]),
    ("sgd", "buffer = state[\"momentum_buffer\"] = g.clone()",
     "buffer = state[\"momentum_buffer\"] = g.clone().mul_(1 - dampening)",
     "momentum and dampening",
     ["parameter 0 after step 1 is wrong for lr=0.05, momentum=0.5, dampening=0.3"]),
    ("sgd", "buffer = state[\"momentum_buffer\"] = g.clone()", "buffer = state[\"momentum_buffer\"] = g",
     "momentum and dampening", ["momentum buffer is p.grad itself, not a copy"]),
    ("sgd", "g = g.add(p, alpha=weight_decay)", "g = g.add_(p, alpha=weight_decay)",
     "weight decay", ["step() changed p.grad in place"]),
    ("capstone", "x = p.relu(p.linear(x, self.fc1.weight, self.fc1.bias))",
     "x = p.linear(x, self.fc1.weight, self.fc1.bias)",
     "the network's forward", ["the network's logits is wrong for a batch of 3 images"]),
    ("capstone", "x = x.reshape(x.shape[0], -1)\n", "\n",
     "the network's forward", ["your code raised", "capstone.py line"]),
    ("capstone", "optimizer.step()\n", "\n", "training run", ["called optimizer.step() 0 times", "ln 10"]),
    ("capstone", "        optimizer.zero_grad()\n", "", "training run",
     ["called optimizer.zero_grad() 0 times", "adds its gradients to those of every batch before it"]),
    ("im2col", "x_pad[:, :, rows, columns] += taps[:, :, i, j]", "x_pad[:, :, rows, columns] = taps[:, :, i, j]",  # noqa: E501
     "col2im", ["It differs only where windows overlap", "add (+=)"]),
    ("im2col", "return x_pad[:, :, ph:ph + h, pw:pw + w]", "return x_pad",
     "col2im", ["col2im(cols, ...) has shape (1, 2, 7, 8) but should have shape (1, 2, 5, 6)"]),
    ("im2col", "x_pad = xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))", "x_pad = x",
     "im2col", ["your code raised ValueError (in im2col, im2col.py line", "padding 1"]),
    ("conv_loops", "dx_pad[n, :, rows, cols] += dout[n, f, i, j] * w[f]",
     "dx_pad[n, :, rows, cols] -= dout[n, f, i, j] * w[f]", "grad_x", ["the sign is flipped"]),
    ("conv_loops", "dw[f] += dout[n, f, i, j] * x_pad[n, :, rows, cols]",
     "dw[f] += dout[n, f, i, j] * x_pad[n, :, rows, cols] / dout.shape[0]", "grad_w",
     ["divided by the batch size N = 2"]),
    ("conv_loops", "return dout.sum(axis=(0, 2, 3))", "return dout.sum(axis=(2, 3))", "grad_b",
     ["has shape (2, 4) but should have shape (4,)", "not summed over the batch"]),
    ("conv_loops", "return dx_pad[:, :, pad:pad + x.shape[2], pad:pad + x.shape[3]]",
     "return dx_pad[:, :, :x.shape[2], :x.shape[3]]", "grad_x",
     ["shifted by one row and one column", "the padding cropped from the wrong side"]),
    ("conv_loops", "return dx_pad[:, :, pad:pad + x.shape[2], pad:pad + x.shape[3]]", "return dx_pad",
     "grad_x", ["has shape (2, 2, 7, 8) but should have shape (2, 2, 5, 6)"]),
    ("engine", "    order.reverse()\n", "\n", "topological order", ["topological_order does not start at the root"]),  # noqa: E501
    ("engine", "grads[child] = child_grad if child not in grads else Tensor(grads[child].array + child_grad.array)",  # noqa: E501
     "grads[child] = child_grad", "gradients, summed where a tensor is reused",
     ["divided by the number of uses of x = 2"]),
    ("engine", "leaf.grad = g if leaf.grad is None else Tensor(leaf.grad.array + g.array)", "leaf.grad = g",
     "accumulating into .grad", ["divided by the number of backward calls = 2"]),
    ("engine", "        for child, _ in node.next_functions:\n            visit(child)\n", "\n",
     "topological order", ["topological_order gives 1 nodes"]),
]


def test_wrong_answers_cover_every_exercise() -> None:
    counts = {name: sum(1 for w in WRONG if w[0] == name) for name in NAMES}
    assert len(WRONG) >= 25 and min(counts.values()) >= 3, counts


@pytest.fixture
def tiny_capstone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The capstone's quick run made tinier still: a wrong training loop shows in a few steps."""
    from minigrad.exercises.checks import capstone

    monkeypatch.setitem(capstone.QUICK, "train", 256)
    monkeypatch.setitem(capstone.QUICK, "test", 200)


@pytest.mark.parametrize("name, right, wrong, part, fragments", WRONG,
                         ids=[f"{w[0]}-{i}" for i, w in enumerate(WRONG)])
def test_wrong_formula_is_named(tmp_path: Path, name: str, right: str, wrong: str, part: str,
                                fragments: list, tiny_capstone: None) -> None:
    if part == "training run" and not (Path(os.environ.get("MINIGRAD_DATA", "")) /
                                       "train-images-idx3-ubyte.gz").exists():
        pytest.skip("MNIST is not in MINIGRAD_DATA")
    source = solution_source(name)
    assert source.count(right) == 1, "the reference line this test changes has moved"
    path = tmp_path / f"{name}.py"
    path.write_text(source.replace(right, wrong), encoding="utf-8")
    namespace = {**load_student(path), "__context__": reference_context()}
    (check,) = [c for p, _, c in exercises.exercise(name).parts if p == part]
    result = run_part(name, part, lambda: check(namespace, True), 1)
    assert not result.passed, f"{part} passed with {wrong!r}"
    for fragment in fragments:
        assert fragment in result.message
