"""The grader holds: no answer key shipped, a process per exercise, limits, no gaming, fair partial credit.

Each gaming attempt is a student's ``linear.py`` whose gradients are all zeros (worth 0 points)
plus one trick; the grader (``check --dir``, which runs the student's code in a worker process
and judges in its own) must still give 0.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

import minigrad.exercises as exercises
from minigrad.exercises import _student as student
from minigrad.exercises import grade, reference_solution
from minigrad.exercises.__main__ import main
from minigrad.exercises._grading import diagnose
from minigrad.exercises._student import BEGIN, END
from minigrad.exercises.derive import DERIVE, derive_level

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "course" / "solutions"

# a linear.py that runs but is wrong everywhere: every gradient zero
ZEROS = '''
from minigrad.autograd import Function
from minigrad.tensor import Tensor


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, x, weight, bias=None):
        ctx.save_for_backward(x, weight)
        y = x.array @ weight.array.T
        return Tensor(y if bias is None else y + bias.array)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        bias = grad.array.reshape(-1, grad.shape[-1])[0]
        zeros = [Tensor(x.array * 0), Tensor(weight.array * 0), Tensor(bias * 0)]  # noqa: E501
        return tuple(z if needed else None for z, needed in zip(zeros, ctx.needs_input_grad))
'''

TRICKS = {
    # the four lines, with the import spelled so that a reader of the file cannot see it
    "monkeypatch the checks": '''
import importlib
checks = importlib.import_module("minigrad.exer" + "cises.checks.linear")
checks.PARTS[:] = [(name, points, lambda ns, quick: None) for name, points, _ in checks.PARTS]
checks._compare = lambda *args: None
checks.expect_close = lambda *args, **kwargs: None
''',
    "the plain monkeypatch (flagged before it runs)": '''
import minigrad.exercises.checks.linear as checks
checks.expect_close = lambda *args, **kwargs: None
''',
    "patch numpy.testing and numpy's comparisons": '''
import numpy, numpy.testing
numpy.testing.assert_allclose = lambda *args, **kwargs: None
numpy.isclose = lambda a, b, **kwargs: numpy.ones(numpy.shape(a), dtype=bool)
numpy.allclose = lambda *args, **kwargs: True
''',
    "make minigrad's own answer agree with mine": '''
import minigrad.nn.functional as functional
import minigrad.autograd.gradcheck as gc
gc.gradcheck = lambda *args, **kwargs: True
functional.linear = lambda x, w, b=None: LinearFunction.apply(x, w, b)
''',
    "sys.exit(0) in backward": '''
import sys
_backward = LinearFunction.backward
LinearFunction.backward = staticmethod(lambda ctx, grad: sys.exit(0))
''',
    "os._exit(0) at import": '''
import os
os._exit(0)
''',
    "print a fake result, write fake results into the channel": '''
import json, sys
fake = {"score": 10, "tests": [{"name": "linear: grad_input", "score": 3, "max_score": 3}]}
print(json.dumps(fake))
for argument in sys.argv:
    if argument.endswith(".jsonl"):
        with open(argument, "a", encoding="utf-8") as channel:
            for part in range(4):
                channel.write(json.dumps({"event": "done", "part": part, "passed": True, "message": "ok",
                                          "observations": []}) + "\\n")
''',
}


def _grade_linear(folder: Path, extra: list[str] | None = None) -> dict:
    report = folder / "results.json"
    main(["check", "linear", "--dir", str(folder), "--json", str(report), *(extra or [])])
    return json.loads(report.read_text(encoding="utf-8"))


@pytest.mark.parametrize("trick", list(TRICKS))
def test_gaming_attempts_score_nothing(tmp_path: Path, trick: str) -> None:
    (tmp_path / "linear.py").write_text(ZEROS + TRICKS[trick], encoding="utf-8")
    data = _grade_linear(tmp_path)
    assert data["score"] == 0, data
    assert all(test["score"] == 0 for test in data["tests"]), data


def test_the_zeros_solution_is_caught_by_the_grader_not_by_luck(tmp_path: Path) -> None:
    (tmp_path / "linear.py").write_text(ZEROS, encoding="utf-8")
    data = _grade_linear(tmp_path)
    assert data["score"] == 0
    assert "is wrong for" in data["tests"][0]["output"]


def test_a_plain_monkeypatch_is_named(tmp_path: Path) -> None:
    (tmp_path / "linear.py").write_text(ZEROS + TRICKS["the plain monkeypatch (flagged before it runs)"],
                                        encoding="utf-8")
    assert "the grader's own code" in _grade_linear(tmp_path)["tests"][0]["output"]


def test_a_solution_that_calls_the_builtin_gets_no_credit(tmp_path: Path) -> None:
    source = (SOLUTIONS / "conv_im2col.py").read_text(encoding="utf-8")
    cheat = source.replace("from minigrad.autograd import Function",
                           "from minigrad.autograd import Function\nimport minigrad.nn as nn", 1)
    cheat = cheat.replace("grad_x = Tensor(col2im(dcols, x.shape, (kh, kw), stride, padding, dilation))",
                          "grad_x = nn.grad.conv2d_input(x.shape, weight, grad, stride, padding, dilation, "
                          "groups)")
    assert cheat.count("conv2d_input") == 1
    (tmp_path / "conv_im2col.py").write_text(cheat, encoding="utf-8")
    report = tmp_path / "results.json"
    assert main(["check", "conv_im2col", "--dir", str(tmp_path), "--json", str(report)]) == 1
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["score"] == 0
    assert "`nn.grad.conv2d_input` (line" in data["tests"][0]["output"]
    assert "the built-in this exercise asks you to write" in data["tests"][0]["output"]


def test_editing_the_graders_files_fails_everything(tmp_path: Path) -> None:
    """In a copy of the package (the test must not edit the real one): the student's code appends to the
    installed checks module; the grader notices and gives nothing, even for right answers."""
    package = tmp_path / "site"
    shutil.copytree(ROOT / "minigrad", package / "minigrad", ignore=shutil.ignore_patterns("__pycache__"))
    student = tmp_path / "work"
    student.mkdir()
    editing = '''
import importlib.util, pathlib
spec = importlib.util.find_spec("minigrad.exer" + "cises.checks.linear")
with open(spec.origin, "a", encoding="utf-8") as f:
    f.write("\\n# edited\\n")
'''
    (student / "linear.py").write_text((SOLUTIONS / "linear.py").read_text(encoding="utf-8") + editing,
                                       encoding="utf-8")
    report = tmp_path / "results.json"
    environment = {**os.environ, "PYTHONPATH": str(package)}
    # (run from tmp_path: `python -m` puts the working folder first on the path, which must not be
    # the checkout)
    subprocess.run([sys.executable, "-m", "minigrad.exercises", "check", "linear", "--dir", str(student),
                    "--json", str(report)], env=environment, capture_output=True, timeout=300, check=False,
                   cwd=tmp_path)
    assert not (ROOT / "minigrad" / "exercises" / "checks" / "linear.py").read_text(
        encoding="utf-8").endswith("# edited\n"), "the test edited the checkout's grader, not its copy's"
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["score"] == 0
    assert "changed the grader's own files" in data["tests"][0]["output"]


def test_time_limit_per_part(tmp_path: Path) -> None:
    source = (SOLUTIONS / "linear.py").read_text(encoding="utf-8")
    looping = source.replace("grad_input = Tensor(xp.matmul(g, weight.array).reshape(x.shape))",
                             "while True:\n                pass")
    (tmp_path / "linear.py").write_text(looping, encoding="utf-8")
    data = _grade_linear(tmp_path, ["--time-limit", "3"])
    outputs = {test["name"]: test for test in data["tests"]}
    assert "longer than the time limit of 3 s" in outputs["linear: grad_input"]["output"]
    # the next part runs in a fresh process, and the parts without the loop still earn their points
    assert outputs["linear: grad_weight"]["score"] == 3 and outputs["linear: grad_bias"]["score"] == 2


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no resource limits: only the time limit")
def test_memory_limit(tmp_path: Path) -> None:
    source = (SOLUTIONS / "linear.py").read_text(encoding="utf-8")
    greedy = source.replace("grad_input = Tensor(xp.matmul(g, weight.array).reshape(x.shape))",
                            "hoard = xp.ones((1024, 1024, 1024))\n"
                            "            grad_input = Tensor(xp.matmul(g, weight.array).reshape(x.shape))")
    (tmp_path / "linear.py").write_text(greedy, encoding="utf-8")
    data = _grade_linear(tmp_path, ["--memory-limit", "1024"])
    outputs = {test["name"]: test for test in data["tests"]}
    assert "MemoryError" in outputs["linear: grad_input"]["output"]
    assert outputs["linear: grad_weight"]["score"] == 3


# --- partial credit ----------------------------------------------------------------------------

def _blank_block(source: str, number: int) -> str:
    """``source`` with only its ``number``-th solution block blanked."""
    out, seen, inside = [], 0, False
    for line in source.splitlines(keepends=True):
        begin = BEGIN.match(line)
        if begin:
            seen += 1
            if seen == number:
                inside = True
                out.append(f"{begin.group('indent')}raise NotImplementedError('blank')\n")
                continue
        if inside:
            inside = not END.match(line)
            continue
        out.append(line)
    return "".join(out)


@pytest.mark.parametrize("name", exercises.names())
def test_partial_work_earns_partial_credit(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: E501
    """The reference with one of its blocks blanked: some parts pass, not all, and the blank is named."""
    from minigrad.exercises import load_student
    from minigrad.exercises.checks import capstone

    monkeypatch.setitem(capstone.QUICK, "train", 64)
    source = (SOLUTIONS / f"{name}.py").read_text(encoding="utf-8")
    blocks = student.count_blocks(source)
    context = {n: vars(reference_solution(n)) for n in exercises.names()}
    seen = []
    for number in range(blocks, 0, -1):
        path = tmp_path / f"{number}" / f"{name}.py"
        path.parent.mkdir()
        path.write_text(_blank_block(source, number), encoding="utf-8")
        results = grade(name, load_student(path), quick=True, context=context)
        score, total = sum(r.score for r in results), sum(r.max_score for r in results)
        seen.append((number, score))
        if 0 < score < total:
            assert any("not implemented yet" in r.message for r in results if not r.passed)
            return
    pytest.fail(f"no blanked block of {name} earns partial credit: (block, score) {seen}")


def test_linear_without_grad_input_still_scores_the_other_gradients(tmp_path: Path) -> None:
    from minigrad.exercises import load_student

    source = (SOLUTIONS / "linear.py").read_text(encoding="utf-8")
    path = tmp_path / "linear.py"
    path.write_text(_blank_block(source, 1), encoding="utf-8")
    results = {r.part: r for r in grade("linear", load_student(path))}
    assert not results["grad_input"].passed
    assert results["grad_weight"].passed and results["grad_bias"].passed


# --- the TA's diagnosis, rule by rule ------------------------------------------------------------

def _pattern(shape: tuple = (2, 3, 6, 6)) -> numpy.ndarray:
    return numpy.random.default_rng(0).normal(size=shape)


def test_diagnosis_border_only() -> None:
    e = _pattern()
    a = e.copy()
    a[..., 0, :] += 1.0
    a[..., :, -1] -= 1.0
    assert "only on the border" in diagnose(a, e, ~numpy.isclose(a, e), {}, None)


def test_diagnosis_stride_grid_only() -> None:
    e = _pattern((2, 3, 8, 8))
    a = e.copy()
    a[..., ::2, :] += 0.5
    a[..., 0, :] = e[..., 0, :]       # not the border rows alone
    a[..., -1, :] = e[..., -1, :]
    a[..., 2, 3] = e[..., 2, 3] + 1
    assert "grid of every 2" in diagnose(a, e, ~numpy.isclose(a, e), {}, None)


def test_diagnosis_off_by_one_window() -> None:
    e = _pattern()
    a = numpy.roll(e, 1, axis=3)
    assert "shifted by one column" in diagnose(a, e, ~numpy.isclose(a, e), {}, None)


def test_diagnosis_names_the_factor() -> None:
    e = _pattern((4, 5))
    assert "divided by N = 4" in diagnose(e / 4, e, numpy.ones(e.shape, bool), {"N": 4}, None)
    assert "times the upstream gradient = 1.7" in \
        diagnose(e * 1.7, e, numpy.ones(e.shape, bool), {"N": 4, "the upstream gradient": 1.7}, None)
    assert "the sign is flipped" in diagnose(-e, e, numpy.ones(e.shape, bool), {}, None)
    square = _pattern((3, 3))
    assert "a transpose" in diagnose(square.T, square, ~numpy.isclose(square.T, square), {}, None)


# --- the answer key stays out, the handouts and the derive level --------------------------------------

def test_handouts_and_recorded_answers_are_up_to_date(capsys: pytest.CaptureFixture) -> None:
    """What the package ships from the solutions — the blanked handouts and the recorded answers the
    grader judges against — is what ``course/refresh.py`` makes from them now (the capstone's answers
    need MNIST)."""
    spec = importlib.util.spec_from_file_location("course_refresh", ROOT / "course" / "refresh.py")
    assert spec is not None and spec.loader is not None
    refresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(refresh)
    names = [n for n in exercises.names() if n != "capstone" or os.environ.get("MINIGRAD_DATA")]
    assert refresh.main(["--check", *names]) == 0, capsys.readouterr().out + " (run python course/refresh.py)"


def test_the_package_holds_no_solution_block() -> None:
    """No line of any solution block is in the kit's part of the package (handouts, checks, grader).

    (minigrad's own ops compute the same maths, necessarily: a conv's backward is in the
    framework; the answer key is the exercises' form of it, with their names and layout.)
    """
    package = ROOT / "minigrad" / "exercises"
    text = "\n".join(path.read_text(encoding="utf-8", errors="replace")
                     for path in package.rglob("*.py") if "__pycache__" not in path.parts)
    for line in solution_lines():
        assert line not in text, f"solution text in the package: {line!r}"


def solution_lines() -> list[str]:
    """The distinctive lines of every solution block (the ones a student must write)."""
    # shorter than 25 characters: idioms like optimizer.zero_grad()
    return [line.strip() for path in SOLUTIONS.glob("*.py")
            for line in student.solution_lines(path.read_text(encoding="utf-8")) if len(line.strip()) >= 25]


def test_derive_level_states_no_formula(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["make", str(tmp_path), "--derive"]) == 0
    linear = (tmp_path / "linear.py").read_text(encoding="utf-8")
    assert "(derive level)" in linear and "grad · W" not in linear and "gradᵀ · x" not in linear
    assert "grad·W" not in linear and '"""y = x Wᵀ + b"""' in linear   # the class docstring keeps the forward
    rot180 = (tmp_path / "conv_rot180.py").read_text(encoding="utf-8")
    assert "rotated by 180°" not in rot180 and "crop(correlate(dilate_and_pad" not in rot180
    assert "raise NotImplementedError('grad_input')" in linear
    guided = exercises.exercise("linear").handout.read_text(encoding="utf-8")
    assert "grad · W" in guided   # the guided level keeps its formulas
    for name in exercises.names():
        text = derive_level(name, exercises.exercise(name).handout.read_text(encoding="utf-8"))
        compile(text, name, "exec")
        for hint in re.findall(r"NotImplementedError\((.*)\)", text):
            assert not set(hint) & set(":=·∂Σ⊙ᵀ−/"), (name, hint)   # a label, never a formula
    capsys.readouterr()
    assert main(["hint", "linear", "--dir", str(tmp_path)]) == 0
    assert main(["hint", "linear", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "hint 2 of 3" in out and "hint 3 of 3" not in out
    assert json.loads((tmp_path / ".minigrad-hints.json").read_text(encoding="utf-8")) == {"linear": 2}
    assert set(DERIVE) == set(exercises.names())


def test_make_solutions_from_a_checkout(tmp_path: Path) -> None:
    assert main(["make", str(tmp_path), "linear", "--solutions"]) == 0
    assert (tmp_path / "linear.py").read_text(encoding="utf-8").count("BEGIN SOLUTION") == 3
    assert main(["make", str(tmp_path / "other"), "linear", "--solutions", "--solutions-dir",
                 str(tmp_path / "nowhere")]) == 2


def test_one_exercise_cannot_sink_another(tmp_path: Path) -> None:
    """Each exercise's worker loads only that exercise's file: an sgd.py that ends the process at import
    fails sgd, not linear."""
    shutil.copy(SOLUTIONS / "linear.py", tmp_path)
    (tmp_path / "sgd.py").write_text("import os\nos._exit(0)\n", encoding="utf-8")
    report = tmp_path / "results.json"
    main(["check", "linear", "sgd", "--dir", str(tmp_path), "--json", str(report)])
    scores = {test["name"]: test["score"] for test in json.loads(report.read_text(encoding="utf-8"))["tests"]}
    assert sum(score for name, score in scores.items() if name.startswith("linear")) == 10
    assert sum(score for name, score in scores.items() if name.startswith("sgd")) == 0
