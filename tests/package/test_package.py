"""The package as a user gets it: ``python -m build`` makes an sdist and a wheel; the sdist holds
the whole test suite, the docs, the notebooks and the examples; the wheel, installed into a fresh
virtual environment with nothing but its declared dependencies, runs the README's Python snippets
and ``examples/custom_function.py``.

Slow (a build, a virtual environment, a pip install of NumPy, tqdm and threadpoolctl), so it
builds once per module. pip takes the dependencies from its cache or the configured index; where
neither can give them, or where no virtual environment can be made, the test skips and says which.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"```python\n(.*?)\n```", re.S)
# the wheel's requirements, and what a fresh virtual environment starts with
ALLOWED = {"minigrad-edu", "numpy", "tqdm", "threadpoolctl", "pip", "setuptools", "colorama"}


def _environment() -> dict[str, str]:
    """This process's environment without anything that points Python at the checkout."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel, built from this checkout (without network: ``--no-isolation``)."""
    pytest.importorskip("build", reason="the 'build' package (dev extra) makes the sdist and the wheel")
    # A copy of the checkout: builds write build/ and *.egg-info beside the sources, and two test
    # workers may build at once.
    source = tmp_path_factory.mktemp("source") / "minigrad"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".*venv*", "build", "dist", "site", "*.egg-info", "__pycache__", ".*cache", "runs"))
    out = tmp_path_factory.mktemp("dist")
    command = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, env=_environment())
    assert result.returncode == 0, f"build failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return out


def test_build_makes_an_sdist_and_a_wheel_with_py_typed(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "minigrad/py.typed" in names and "minigrad/tensor.py" in names
    # read when a PyTorch name is missing (compat/unsupported.py)
    assert "minigrad/compat/_pytorch_names.txt" in names
    assert not any(name.startswith("tests/") for name in names)
    for label in ("Homepage", "Documentation", "Source", "Issues"):
        assert f"Project-URL: {label}, " in metadata
    required = sorted(re.findall(r"^Requires-Dist: ([\w-]+)[^;\n]*$", metadata, re.M))
    assert required == ["numpy", "threadpoolctl", "tqdm"]


def test_the_sdist_holds_the_whole_suite_docs_notebooks_and_examples(dist: Path) -> None:
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        names = {name.removeprefix(f"{top}/") for name in archive.getnames()}
    wanted = {path.relative_to(ROOT).as_posix()
              for folder in ("tests", "docs", "notebooks", "examples")
              for path in (ROOT / folder).rglob("*")
              if path.is_file() and "__pycache__" not in path.parts and ".ipynb_checkpoints" not in path.parts
              and path.suffix not in (".pyc", ".tmp")
              # the course kit's own tests read its reference solutions, which are never packaged
              and not path.relative_to(ROOT).as_posix().startswith("tests/exercises/")}
    assert {"tests/conftest.py", "tests/core/helpers.py", "tests/_reference.py", "mkdocs.yml",
            "examples/custom_function.py", "minigrad/py.typed"} <= names
    assert any(name.startswith("tests/reference/records/") for name in names)
    assert wanted - names == set()


def _solution_lines() -> list[str]:
    """The distinctive lines of the course kit's reference solutions' blocks (what students write): not
    the ones minigrad's own code has too (``for child, _ in node.next_functions:``), which give
    nothing away."""
    from minigrad.exercises._student import solution_lines

    framework = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "minigrad").rglob("*.py")
                          if "exercises" not in path.parts)
    # shorter than 25 characters: idioms like optimizer.zero_grad()
    return [line.strip() for path in (ROOT / "course" / "solutions").glob("*.py")
            for line in solution_lines(path.read_text(encoding="utf-8"))
            if len(line.strip()) >= 25 and line.strip() not in framework]


def test_no_answer_key_in_the_wheel_or_the_sdist(dist: Path) -> None:
    """Students install the wheel (or the sdist): neither holds the course kit's solutions. Checked: the
    kit's part of the package, and everything in the sdist besides minigrad's own code and the pages
    that explain it (which compute and show the same maths as some exercises, necessarily)."""
    lines = _solution_lines()
    assert len(lines) > 20
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        texts = {name: archive.read(name).decode("utf-8", "replace") for name in archive.namelist()
                 if name.startswith("minigrad/exercises/")}
    assert any(name.startswith("minigrad/exercises/handouts/") for name in texts)
    assert any(name.startswith("minigrad/exercises/answers/") for name in texts)
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            name = member.name.split("/", 1)[1] if "/" in member.name else member.name
            assert not name.startswith(("course/", "tests/exercises/")), name
            framework = name.startswith(("minigrad/", "docs/")) and not name.startswith(
                ("minigrad/exercises/", "docs/teaching-with-minigrad.md"))
            if member.isfile() and not framework:  # noqa: E501
                handle = archive.extractfile(member)
                assert handle is not None
                texts[f"sdist:{name}"] = handle.read().decode("utf-8", "replace")
    for name, text in texts.items():
        for line in lines:
            assert line not in text, f"{name} holds solution text: {line!r}"


def test_the_wheel_alone_runs_the_readme_and_the_custom_function_example(dist: Path, tmp_path: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    home = tmp_path / "venv"
    try:
        venv.create(home, with_pip=True)
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"no virtual environment can be made here ({error}); the wheel test needs one")
    python = home / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                              str(wheel)], capture_output=True, text=True, timeout=600, env=_environment())
    if install.returncode != 0 and re.search(r"No matching distribution|Could not find a version|"
                                             r"Failed to establish|NewConnectionError", install.stderr):
        pytest.skip(f"pip cannot get the dependencies from its cache or index:\n{install.stderr[-1000:]}")
    assert install.returncode == 0, install.stderr[-3000:]

    installed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"], capture_output=True,
                               text=True, timeout=120, env=_environment()).stdout
    names = {line.split("==")[0].lower().replace("_", "-") for line in installed.split()}
    assert names - ALLOWED == set(), f"more than the declared dependencies: {sorted(names - ALLOWED)}"

    def run(arguments: list[str], what: str) -> str:
        done = subprocess.run([str(python), *arguments], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300, env=_environment())
        assert done.returncode == 0, f"{what} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    where = run(["-c", "import minigrad; print(minigrad.__file__)"], "import minigrad")
    assert Path(where.strip()).is_relative_to(home), f"minigrad imported from {where.strip()}, not the wheel"
    snippets = FENCE.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(snippets) >= 2
    for number, code in enumerate(snippets):
        run(["-c", code], f"README python block {number}")
    example = tmp_path / "custom_function.py"
    source = ROOT / "examples" / "custom_function.py"
    example.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    run([str(example)], "examples/custom_function.py")


def test_a_type_checker_sees_the_signatures_the_decorators_wrap(tmp_path: Path) -> None:
    """``numpy_keywords`` keeps the signature it wraps: ``x.sum()`` is a Tensor, not ``Any``."""
    pytest.importorskip("mypy", reason="mypy (dev extra) is the type checker")
    snippet = tmp_path / "snippet.py"
    snippet.write_text("import minigrad as mg\n"
                       "x = mg.ones(2, 3)\n"
                       "reveal_type(x.sum())\n"
                       "reveal_type(x.mean(dim=1, keepdim=True))\n", encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"),
               str(snippet)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    revealed = re.findall(r'Revealed type is "([^"]+)"', done.stdout)
    assert revealed == ["minigrad.tensor.Tensor", "minigrad.tensor.Tensor"], done.stdout + done.stderr


COURSE_CODE = """\
import minigrad as torch
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import Function


class Square(Function):  # the exercises' form: untyped, backward(ctx, grad_output)
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return 2 * a * grad_output


class Scale(Function):  # typed, with a non-tensor argument whose gradient is None
    @staticmethod
    def forward(ctx: Any, a: torch.Tensor, factor: float) -> torch.Tensor:
        ctx.factor = factor
        return a * factor

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:
        return grad_output * ctx.factor, None


x = torch.ones(2, 3, requires_grad=True)
layer = nn.Linear(3, 4)
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
reveal_type(x.sum())
reveal_type(x.mean(dim=1))
reveal_type(F.conv2d(torch.randn(1, 1, 5, 5), torch.randn(2, 1, 3, 3)))
reveal_type(layer(x))
reveal_type(opt.step())
reveal_type(opt.step(lambda: layer(x).sum()))
reveal_type(x == x)
reveal_type(Square.apply(x))
"""


def test_course_code_type_checks_with_real_types(tmp_path: Path) -> None:
    """A user's everyday calls have real types (not ``Any``), and Functions written as in PyTorch,
    ``backward(ctx, grad_output)`` overriding ``backward(ctx, *grad_outputs)``, need no ignores."""
    pytest.importorskip("mypy", reason="mypy (dev extra) is the type checker")
    snippet = tmp_path / "course.py"
    snippet.write_text("from typing import Any\n" + COURSE_CODE, encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"),
               str(snippet)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert " error: " not in done.stdout, done.stdout + done.stderr
    revealed = re.findall(r'Revealed type is "([^"]+)"', done.stdout)
    tensor = "minigrad.tensor.Tensor"
    # apply returns what forward returns, untyped for a user's Function, as in PyTorch
    assert revealed == [tensor, tensor, tensor, tensor, "None", f"{tensor} | None", tensor, "Any"], \
        done.stdout + done.stderr


@pytest.mark.skipif(os.name == "nt" or shutil.which("bash") is None,
                    reason="Gradescope's scripts are bash scripts for its Linux image")
def test_the_gradescope_autograder_writes_results_in_a_fresh_venv(dist: Path, tmp_path: Path) -> None:
    """``python -m minigrad.exercises gradescope DIR`` writes ``setup.sh`` and ``run_autograder``; in a
    fresh virtual environment with the wheel, they grade a blank, a wrong and the reference submission.

    The environment sees the system's packages (``--system-site-packages``) so that NumPy and tqdm need
    no network; the wheel itself is installed into it, and minigrad is imported from there.
    """
    (wheel,) = dist.glob("*.whl")
    home = tmp_path / "venv"
    try:
        venv.create(home, with_pip=True, system_site_packages=True)
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"no virtual environment can be made here ({error})")
    python = home / "bin" / "python"
    autograder = tmp_path / "autograder"
    source = autograder / "source"
    environment = {**_environment(), "AUTOGRADER": str(autograder), "PYTHON": str(python)}

    def run(command: list[str]) -> str:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=environment,
                              cwd=tmp_path)
        assert done.returncode == 0, f"{command} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", str(wheel)])
    run([str(python), "-m", "minigrad.exercises", "gradescope", str(source), "linear", "sgd"])
    shutil.copy(wheel, source)
    run(["bash", str(source / "setup.sh")])
    where = run([str(python), "-c", "import minigrad; print(minigrad.__file__)"]).strip()
    assert Path(where).is_relative_to(home), f"minigrad imported from {where}, not the wheel"

    solutions = ROOT / "course" / "solutions"
    # grad_bias twice too large (spelled so that this file holds no line of the solution)
    wrong = (solutions / "linear.py").read_text(encoding="utf-8").replace("(axis=0))", "(axis=0) * 2)")
    assert wrong.count("(axis=0) * 2)") == 1
    scores = {}
    for kind in ("blank", "wrong", "reference"):
        submission = autograder / "submission"
        shutil.rmtree(submission, ignore_errors=True)
        shutil.rmtree(autograder / "results", ignore_errors=True)
        if kind == "blank":
            run([str(python), "-m", "minigrad.exercises", "make", str(submission), "linear", "sgd"])
        else:
            submission.mkdir()
            shutil.copy(solutions / "sgd.py", submission)
            (submission / "linear.py").write_text(wrong if kind == "wrong" else
                                                  (solutions / "linear.py").read_text(encoding="utf-8"),
                                                  encoding="utf-8")
        run(["bash", str(source / "run_autograder")])
        results = json.loads((autograder / "results" / "results.json").read_text(encoding="utf-8"))
        assert isinstance(results["score"], (int, float)) and len(results["tests"]) == 8
        for test in results["tests"]:
            assert {"name", "score", "max_score", "output", "status"} <= set(test)
            assert 0 <= test["score"] <= test["max_score"]
        scores[kind] = results["score"]
    # the wrong grad_bias costs its own part and the gradcheck: 20 - 2 - 2
    assert scores == {"blank": 0, "wrong": 16, "reference": 20}, scores
