"""A backprop course kit: twelve exercises with blanks, a grader, and (in the repository only) the answers.

    python -m minigrad.exercises list                       # the exercises
    python -m minigrad.exercises make DIR                   # a student copy (.py and .ipynb, blanks)
    python -m minigrad.exercises check --dir DIR            # grade it (--json FILE: Gradescope)
    python -m minigrad.exercises check --solutions          # from a checkout: the reference solutions pass

In a notebook: ``minigrad.exercises.check("linear", globals())`` grades the names the
notebook defines (or pass one Function or function: ``check("conv_im2col", Conv2dIm2col)``).

Each exercise is a reference solution in the repository's ``course/solutions/`` (the
statement is its docstring, the solution blocks are marked; it is not installed, so
students never get it), its handout ``minigrad/exercises/handouts/NAME.py`` (the same
file with the blocks blanked, made by ``course/refresh.py``) and a module of
``minigrad.exercises.checks`` (its graded parts). ``docs/teaching-with-minigrad.md``
explains how to run a unit.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from minigrad.exercises._grading import STUDENT_FILES, Result, Wrong, describe_error, print_report, run_part
from minigrad.exercises._student import notebook_code

__all__ = ["EXERCISES", "Exercise", "check", "grade", "load_student", "names", "reference_solution"]

HANDOUTS = Path(__file__).resolve().parent / "handouts"
# Where a checkout of the repository keeps the reference solutions (never installed).
CHECKOUT_SOLUTIONS = Path(__file__).resolve().parents[2] / "course" / "solutions"


@dataclass(frozen=True)
class Exercise:
    """One exercise: its file name, what it teaches, and about how long a student takes."""

    name: str
    title: str
    minutes: int
    teaches: str

    @property
    def handout(self) -> Path:
        """The student's file as installed: the reference solution with its blocks blanked."""
        return HANDOUTS / f"{self.name}.py"

    @property
    def parts(self) -> list:
        """``[(part name, points, check(namespace, quick))]`` from the exercise's checks module."""
        return importlib.import_module(f"minigrad.exercises.checks.{self.name}").PARTS

    @property
    def builtins(self) -> tuple[str, ...]:
        """minigrad's own versions of what the student writes: a solution may not call them."""
        checks = importlib.import_module(f"minigrad.exercises.checks.{self.name}")
        return tuple(getattr(checks, "BUILTINS", ()))


EXERCISES = [
    Exercise("broadcasting", "Elementwise ops and broadcasting", 30,
             "the chain rule elementwise, and summing a gradient back to a broadcast input's shape"),
    Exercise("linear", "The Linear Function", 30,
             "dX = dY·W, dW = dYᵀ·X, db = Σ dY: matrix calculus by shapes"),
    Exercise("softmax_xent", "Softmax and cross-entropy", 45,
             "softmax's vector-Jacobian product, NLL's one-hot gradient, why fused it is (p − y)/N"),
    Exercise("relu_maxpool", "ReLU and max-pooling", 40,
             "gradients that are routed, not computed: masks, argmax, ties and overlapping windows"),
    Exercise("conv_im2col", "Conv2d backward by im2col", 60,
             "conv as one matrix product: dW = δ·colsᵀ, dx = col2im(Wᵀ·δ), db = Σδ, with groups"),
    Exercise("conv_rot180", "Conv2d backward as correlations", 60,
             "δˡ = δˡ⁺¹ ∗ rot180(W) with a stride-dilated, padded δ; dW as a correlation of x with δ"),
    Exercise("batchnorm", "BatchNorm backward in one expression", 60,
             "simplifying a long chain by hand (backprop ninja), checked against autograd step by step"),
    Exercise("sgd", "SGD with momentum, Nesterov and weight decay", 30,
             "PyTorch's update rule exactly, including the first step's momentum buffer"),
    Exercise("capstone", "Capstone: your own CNN trains MNIST", 60,
             "your Functions and optimiser assembled into a CNN: 98% on MNIST in half an epoch"),
    Exercise("im2col", "im2col and col2im", 40,
             "every window as one column (a strided slice per kernel tap) and back: col2im adds up"),
    Exercise("conv_loops", "A convolution as loops, forward and backward", 45,
             "CS231n's naive conv: each output's window, each gradient as the sum it is, before vectorising"),
    Exercise("engine", "The backward engine", 45,
             "loss.backward() itself: a topological order, gradients summed where a tensor is reused"),
]


def names() -> list[str]:
    return [exercise.name for exercise in EXERCISES]


def exercise(name: str) -> Exercise:
    for candidate in EXERCISES:
        if candidate.name == name:
            return candidate
    raise ValueError(f"no exercise named {name!r}; the exercises are: {', '.join(names())}")


def solutions_folder(folder: str | Path | None = None) -> Path:
    """The folder of reference solutions: ``folder``, else the checkout's ``course/solutions``."""
    path = Path(folder) if folder is not None else CHECKOUT_SOLUTIONS
    if not (path / "linear.py").is_file():
        raise FileNotFoundError(f"no reference solutions in {path}: they are not installed with minigrad "
                                f"(students get no answer key); use a checkout of minigrad's repository "
                                f"(course/solutions) or name the folder")
    return path


def reference_solution(name: str, folder: str | Path | None = None) -> ModuleType:
    """Exercise ``name``'s reference solution as a module (instructors and the test suite only)."""
    path = solutions_folder(folder) / f"{exercise(name).name}.py"
    module_name = f"minigrad_course_solutions.{name}_{abs(hash(str(path)))}"
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module   # dataclasses look their module up here
        spec.loader.exec_module(module)
    return sys.modules[module_name]


def load_student(path: str | Path) -> dict:
    """The names a student's exercise file defines: a ``.py`` file, or the code cell of a ``.ipynb``.

    A file that fails to import raises, to be reported as that exercise's failure.
    """
    path = Path(path)
    module_name = f"_minigrad_student_{path.stem}_{abs(hash(str(path.resolve())))}"
    module = ModuleType(module_name)
    module.__file__ = str(path)
    if path.suffix == ".ipynb":
        source = notebook_code(path)
    else:
        source = path.read_text(encoding="utf-8")
    sys.modules[module_name] = module   # dataclasses and pickling look their module up here
    STUDENT_FILES.add(str(path))
    try:
        exec(compile(source, str(path), "exec"), vars(module))   # running the student's code is the point
    except BaseException:
        del sys.modules[module_name]
        raise
    return vars(module)


def grade(name: str, namespace: dict, *, quick: bool = False, load_error: BaseException | None = None,
          context: dict | None = None) -> list[Result]:
    """Every part of exercise ``name`` run on ``namespace`` in this process; one :class:`Result` per part.

    For a notebook's ``check`` and for tests; the command line grades in a separate process
    (``_worker.py``). ``context`` is what the capstone needs from the other exercises (see
    ``checks/capstone.py``).
    """
    return [grade_one_part(name, index, namespace, quick=quick, load_error=load_error, context=context)
            for index in range(len(exercise(name).parts))]


def grade_one_part(name: str, index: int, namespace: dict, *, quick: bool = False,
                   load_error: BaseException | None = None, context: dict | None = None) -> Result:
    """Part ``index`` of exercise ``name`` run on ``namespace``."""
    part, points, check_part = exercise(name).parts[index]
    if load_error is not None:
        return Result(name, part, False, f"your file could not be imported: {describe_error(load_error)}",
                      points)
    ns = dict(namespace)
    if context:
        ns.setdefault("__context__", context)
    return run_part(name, part, functools.partial(check_part, ns, quick), points)


def load_folder(folder: Path, suffix: str = ".py", only: list[str] | None = None,
                ) -> tuple[dict[str, dict], dict[str, BaseException]]:
    """The exercises' files in ``folder`` loaded (all, or ``only`` these): (names each defines, the
    error of each that failed)."""
    context: dict[str, dict[str, Any]] = {}
    errors: dict[str, BaseException] = {}
    for name in only or names():
        path = Path(folder) / f"{name}{suffix}"
        if not path.exists():
            errors[name] = FileNotFoundError(f"there is no {path}")
            continue
        try:
            context[name] = load_student(path)
        except (Exception, SystemExit) as error:  # noqa: BLE001 (a broken file is a failed exercise)
            errors[name] = error
    return context, errors


def check(name: str, solution: Any, *, quick: bool = False, context: dict | None = None,
          notebooks: bool = False) -> bool:
    """Grade one exercise from a notebook and print the report; True if every part passes.

    ``solution`` is ``globals()`` (or any dict of names), a module, or a single Function or
    function that the exercise asks for (``check("linear", LinearFunction)``). The capstone
    takes the other exercises from the current folder: the ``.py`` files, or the notebooks
    with ``notebooks=True``.
    """
    ex = exercise(name)
    if isinstance(solution, dict):
        namespace = solution
    elif isinstance(solution, ModuleType):
        namespace = vars(solution)
    else:
        namespace = {getattr(solution, "__name__", name): solution}
        if not any(getattr(solution, "__name__", None) == n for n in _required_names(ex)):
            raise Wrong(f"exercise {name!r} asks for {', '.join(_required_names(ex))}; pass one of them "
                        f"or globals()")
    namespace = {**namespace, "__notebooks__": notebooks}
    results = grade(name, namespace, quick=quick, context=context)
    print_report(results)
    return all(r.passed for r in results)


def _required_names(ex: Exercise) -> list[str]:
    return list(importlib.import_module(f"minigrad.exercises.checks.{ex.name}").NAMES)
