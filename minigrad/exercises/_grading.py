"""The grader's vocabulary: a failed check in the student's terms, comparisons that say where, a report.

A check raises :class:`Wrong` with a sentence a student can act on ("grad_weight is wrong
for x (4, 3), weight (5, 3): largest difference 0.83 at index (2, 1) ..."). The runner
turns every part of every exercise into a :class:`Result`; a part that raises anything
else (the student's ``NotImplementedError``, a ``TypeError`` in their code) fails with
that error described, and the grader itself carries on.
"""

from __future__ import annotations

import json
import os
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy

from minigrad import backend
from minigrad.autograd.gradcheck import GradcheckError, gradcheck
from minigrad.creation import tensor
from minigrad.dtypes import float64
from minigrad.tensor import Tensor


class Wrong(AssertionError):  # noqa: N818 (it reads as the verdict: raise Wrong("grad_weight ..."))
    """A check that failed; the message says what is wrong in the student's terms."""


@dataclass
class Result:
    """One graded part of one exercise."""

    exercise: str
    part: str
    passed: bool
    message: str
    max_score: float

    @property
    def score(self) -> float:
        return self.max_score if self.passed else 0.0


def host(value: Any) -> numpy.ndarray:
    """A NumPy copy of a Tensor or (device) array, for comparing."""
    if isinstance(value, Tensor):
        value = value._array
    return numpy.asarray(backend.to_host(value))


def expect_shape(what: str, actual: Any, shape: tuple, of: str) -> None:
    """``actual`` (a Tensor or array) must have ``shape``, the shape of ``of``."""
    if actual is None:
        raise Wrong(f"{what} is None, but {of} needs a gradient of shape {tuple(shape)}")
    if not hasattr(actual, "shape"):
        raise Wrong(f"{what} should be a Tensor of shape {tuple(shape)} (the shape of {of}), but it is a "
                    f"{type(actual).__name__}")
    if tuple(actual.shape) != tuple(shape):
        hint = ""
        if len(shape) == 2 and tuple(actual.shape) == tuple(shape)[::-1]:
            hint = " (transposed?)"
        elif len(actual.shape) > len(shape):
            hint = " (not summed over the batch / broadcast dimensions?)"
        raise Wrong(f"{what} has shape {tuple(actual.shape)} but should have shape {tuple(shape)}, the shape "
                    f"of {of}{hint}")


def expect_close(what: str, actual: Any, expected: Any, config: str, *, of: str = "its input",
                 rtol: float = 1e-5, atol: float = 1e-7, dtype: Any = None) -> None:
    """``actual`` must equal ``expected`` (shape, then dtype, then values within ``rtol``/``atol``).

    The message names the largest difference and its index, and the first index that differs.
    """
    expect_shape(what, actual, tuple(expected.shape), of)
    if dtype is not None and isinstance(actual, Tensor) and actual.dtype is not dtype:
        raise Wrong(f"{what} is {actual.dtype.name} for {config}, but should be {dtype.name} like {of}")
    a, e = host(actual).astype(numpy.float64), host(expected).astype(numpy.float64)
    with numpy.errstate(invalid="ignore"):
        close = numpy.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return
    wrong = ~close
    difference = numpy.where(wrong, numpy.abs(a - e), 0.0)
    difference = numpy.where(numpy.isnan(difference), numpy.inf, difference)
    worst = _index(int(numpy.argmax(difference)), a.shape)
    first = _index(int(numpy.flatnonzero(wrong)[0]), a.shape)
    raise Wrong(f"{what} is wrong for {config}: {int(wrong.sum())} of {a.size} elements differ; largest "
                f"difference {float(numpy.abs(a[worst] - e[worst])):.4g} at index {worst} (yours "
                f"{a[worst]:.6g}, expected {e[worst]:.6g}); first index that differs: {first} (yours "
                f"{a[first]:.6g}, expected {e[first]:.6g})")


def _index(flat: int, shape: tuple) -> tuple:
    return tuple(int(i) for i in numpy.unravel_index(flat, shape)) if shape else ()


def describe_error(error: BaseException) -> str:
    """An exception raised by the student's code, as one line plus where it happened."""
    frames = traceback.extract_tb(error.__traceback__)
    last = frames[-1] if frames else None
    where = f" (in {last.name}, {Path(last.filename).name} line {last.lineno})" if last else ""
    if isinstance(error, NotImplementedError):
        return f"not implemented yet{where}: {error}" if str(error) else f"not implemented yet{where}"
    return f"your code raised {type(error).__name__}{where}: {error}"


def run_part(exercise: str, part: str, check: Callable[[], str | None], max_score: float) -> Result:
    """Run one check; whatever the student's code does, a :class:`Result` comes back.

    A check may return a note for a part that passes (the capstone's accuracy)."""
    try:
        note = check()
    except Wrong as wrong:
        return Result(exercise, part, False, str(wrong), max_score)
    except (Exception, SystemExit) as error:  # noqa: BLE001 (an error in the student's code fails the part)
        return Result(exercise, part, False, describe_error(error), max_score)
    return Result(exercise, part, True, note or "ok", max_score)


def print_report(results: list[Result], print_fn: Callable[[str], None] = print) -> None:
    for r in results:
        print_fn(f"{'PASS' if r.passed else 'FAIL'}  {r.exercise}: {r.part}" + ("" if r.message == "ok" else
                                                                             f"\n      {r.message}"))
    total = sum(r.score for r in results)
    out_of = sum(r.max_score for r in results)
    print_fn(f"score: {total:g} / {out_of:g}  ({sum(r.passed for r in results)} of {len(results)} checks "
             f"passed)")


def gradescope_results(results: list[Result]) -> dict:
    """Gradescope's ``results.json``: one test per graded part, and the overall score."""
    tests = [{"name": f"{r.exercise}: {r.part}", "number": f"{index + 1}", "score": r.score,
              "max_score": r.max_score, "status": "passed" if r.passed else "failed", "output": r.message}
             for index, r in enumerate(results)]
    passed = sum(r.passed for r in results)
    return {"score": sum(r.score for r in results), "output": f"{passed} of {len(results)} checks passed",
            "tests": tests}


def write_json(path: str | os.PathLike, data: dict) -> None:
    """Write ``data`` as JSON atomically: a temporary file in the same folder, then ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(data, stream, indent=2)
            stream.write("\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# --- running a student's Function against minigrad's own implementation -----------------------

def leaf(array: Any, dtype: Any = None) -> Tensor:
    """A fresh float64 (or ``dtype``) leaf tensor that requires grad, from a NumPy array."""
    return tensor(array, dtype=dtype or float64, requires_grad=True)


def call_backward(function: Any, inputs: tuple, grad_output: numpy.ndarray) -> tuple:
    """``function.apply(*inputs)``, then the student's ``backward`` called directly on its ctx.

    Called directly (not through the engine, which would sum a gradient of the wrong shape
    to the right one), so a gradient's shape is checked as the student wrote it.
    Returns ``(output, gradients)``.
    """
    output = function.apply(*inputs)
    if not isinstance(output, Tensor):
        raise Wrong(f"{function.__name__}.forward returned a {type(output).__name__}, not a Tensor")
    if output.grad_fn is None:
        raise Wrong(f"{function.__name__}.apply(...) recorded no graph node: forward must return a Tensor")
    grad = Tensor(numpy.asarray(grad_output, dtype=host(output).dtype))
    grads = function.backward(output.grad_fn, grad)
    if not isinstance(grads, tuple):
        grads = (grads,)
    tensor_count = sum(isinstance(x, Tensor) for x in inputs)
    if len(grads) < tensor_count:
        raise Wrong(f"{function.__name__}.backward returned {len(grads)} gradient(s), but forward has "
                    f"{len(inputs)} inputs: return one gradient (or None) per input of forward")
    return output, grads


def autograd_grads(reference: Callable[..., Tensor], arrays: list, grad_output: numpy.ndarray,
                   dtype: Any = None, extra: tuple = ()) -> tuple:
    """minigrad's own answer: ``reference(*leaves, *extra)`` and the leaves' gradients after backward."""
    leaves = [leaf(a, dtype) for a in arrays]
    output = reference(*leaves, *extra)
    output.backward(Tensor(numpy.asarray(grad_output, dtype=host(output).dtype)))
    return output, tuple(x.grad for x in leaves)


def expect_gradcheck(function: Callable[..., Tensor], inputs: tuple, names: list[str], config: str) -> None:
    """minigrad's ``gradcheck`` in float64; a failure names the input in the student's words."""
    try:
        gradcheck(function, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)
    except GradcheckError as error:
        legend = ", ".join(f"input {i} is {name}" for i, name in enumerate(names))
        raise Wrong(f"gradcheck (finite differences in float64) fails for {config}: {error} ({legend})") \
            from None


def shapes_text(**shapes: tuple) -> str:
    return ", ".join(f"{name} {tuple(shape)}" for name, shape in shapes.items())
