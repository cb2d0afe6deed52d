"""A backprop course kit: nine exercises with blanks, their reference solutions, and a grader.

    python -m minigrad.exercises list                       # the nine exercises
    python -m minigrad.exercises make DIR                   # a student copy (.py and .ipynb, blanks)
    python -m minigrad.exercises check --dir DIR            # grade it (--json FILE: Gradescope)
    python -m minigrad.exercises check --solutions          # the reference solutions pass

In a notebook: ``minigrad.exercises.check("linear", globals())`` grades the names the
notebook defines (or pass one Function or function: ``check("conv_im2col", Conv2dIm2col)``).

Each exercise is a module of ``minigrad.exercises.solutions`` (the statement is its
docstring, the solution blocks are marked) and a module of ``minigrad.exercises.checks``
(its graded parts). ``docs/teaching-with-minigrad.md`` explains how to run a unit.
"""

from __future__ import annotations

import functools
import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from minigrad.exercises._grading import Result, Wrong, describe_error, print_report, run_part
from minigrad.exercises._student import notebook_code

__all__ = ["EXERCISES", "Exercise", "check", "grade", "load_student", "names"]

POINTS_PER_EXERCISE = 10.0


@dataclass(frozen=True)
class Exercise:
    """One exercise: its file name, what it teaches, and about how long a student takes."""

    name: str
    title: str
    minutes: int
    teaches: str

    @property
    def solution(self) -> ModuleType:
        return importlib.import_module(f"minigrad.exercises.solutions.{self.name}")

    @property
    def parts(self) -> list:
        """``[(part name, points, check(namespace, quick))]`` from the exercise's checks module."""
        return importlib.import_module(f"minigrad.exercises.checks.{self.name}").PARTS


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
             "your Functions and optimiser assembled into a CNN that reaches 98% in one epoch"),
]


def names() -> list[str]:
    return [exercise.name for exercise in EXERCISES]


def exercise(name: str) -> Exercise:
    for candidate in EXERCISES:
        if candidate.name == name:
            return candidate
    raise ValueError(f"no exercise named {name!r}; the exercises are: {', '.join(names())}")


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
    try:
        exec(compile(source, str(path), "exec"), vars(module))   # running the student's code is the point
    except BaseException:
        del sys.modules[module_name]
        raise
    return vars(module)


def grade(name: str, namespace: dict, *, quick: bool = False, load_error: BaseException | None = None,
          context: dict | None = None) -> list[Result]:
    """Every part of exercise ``name`` run on ``namespace``; one :class:`Result` per part.

    ``context`` is what the capstone needs from the other exercises (see ``checks/capstone.py``).
    """
    ex = exercise(name)
    results = []
    for part, points, check_part in ex.parts:
        if load_error is not None:
            results.append(Result(name, part, False, f"your file could not be imported: "
                                  f"{describe_error(load_error)}", points))
            continue
        ns = dict(namespace)
        if context:
            ns.setdefault("__context__", context)
        results.append(run_part(name, part, functools.partial(check_part, ns, quick), points))
    return results


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
