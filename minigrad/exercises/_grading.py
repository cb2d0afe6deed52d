"""The grader's vocabulary: a failed check in the student's terms, comparisons that say where, a report.

A check raises :class:`Wrong` with a sentence a student can act on ("grad_weight is wrong
for x (4, 3), weight (5, 3): largest difference 0.83 at index (2, 1) ..."). The runner
turns every part of every exercise into a :class:`Result`; a part that raises anything
else (the student's ``NotImplementedError``, a ``TypeError`` in their code) fails with
that error described, and the grader itself carries on.
"""

from __future__ import annotations

import contextlib
import json
import os
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy

from minigrad import backend
from minigrad._files import write_atomically
from minigrad.autograd.gradcheck import GradcheckError, gradcheck
from minigrad.creation import tensor
from minigrad.dtypes import float64
from minigrad.tensor import Tensor


class StudentError(Exception):
    """The student's code raised (the ``__cause__``) while running ``config``."""

    def __init__(self, config: str) -> None:
        super().__init__(config)
        self.config = config


@contextlib.contextmanager
def running(config: str) -> Iterator[None]:
    """Student code runs inside: an exception it raises is reported with ``config`` (its shapes)."""
    try:
        yield
    except (Wrong, StudentError):
        raise
    except Exception as error:  # noqa: BLE001 (whatever it is, it is the student's to see)
        raise StudentError(config) from error


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


# --- what a value is, and whether it is the expected one ------------------------------------

# Set by the grading worker (``_worker.py``): every compared value is also recorded here, so
# that the grader's own process, which never runs student code, decides the score.
OBSERVER: list | None = None


def describe(value: Any) -> dict:
    """A value as plain data (JSON-ready): its type, dtype, shape and values."""
    kind = "Tensor" if isinstance(value, Tensor) else type(value).__name__
    if isinstance(value, (bool, numpy.bool_)):
        return {"kind": "bool", "dtype": None, "shape": None, "values": bool(value)}
    if not hasattr(value, "shape") or not hasattr(value, "dtype"):
        return {"kind": kind, "dtype": None, "shape": None, "values": None}
    array = host(value)
    dtype = value.dtype.name if isinstance(value, Tensor) else str(array.dtype)
    return {"kind": kind, "dtype": dtype, "shape": list(array.shape),
            "values": array.astype(numpy.float64).tolist()}


def shape_problem(what: str, actual: dict, shape: tuple, of: str, *,
                  tensor_required: bool = True) -> str | None:
    """What is wrong with the type or the shape of ``actual`` (a :func:`describe`), or None."""
    if actual["kind"] == "NoneType":
        return f"{what} is None, but {of} needs a gradient of shape {tuple(shape)}"
    if actual["shape"] is None:
        return (f"{what} should be a Tensor of shape {tuple(shape)} (the shape of {of}), but it is a "
                f"{actual['kind']}")
    if tensor_required and actual["kind"] != "Tensor":
        return (f"{what} is a {actual['kind']}, not a Tensor: minigrad's Functions take and return Tensors "
                f"(wrap the array: Tensor(array))")
    if tuple(actual["shape"]) != tuple(shape):
        hint = ""
        mine = tuple(actual["shape"])
        if len(shape) >= 2 and len(mine) == len(shape) and mine[:-2] + mine[-2:][::-1] == tuple(shape):
            hint = " (transposed?)"
        elif len(mine) > len(shape):
            hint = " (not summed over the batch / broadcast dimensions?)"
        return (f"{what} has shape {tuple(actual['shape'])} but should have shape {tuple(shape)}, the shape "
                f"of {of}{hint}")
    return None


def expect_close(what: str, actual: Any, expected: Any, config: str, *, of: str = "its input",
                 rtol: float = 1e-5, atol: float = 1e-7, dtype: Any = None, factors: dict | None = None,
                 kinks: Any = None, regions: dict | None = None) -> None:
    """``actual`` must equal ``expected`` (type, shape, dtype, then values within ``rtol``/``atol``).

    The message names the largest difference and its index, the first index that differs, and
    what the pattern of the differences suggests (:func:`diagnose`): ``factors`` names the
    constants a ratio may be (``{"N": 4}``), ``kinks`` marks the inputs where ``>=`` vs ``>`` matters,
    ``regions`` maps what a mistake confined to a region means to the region's mask.
    """
    observed = describe(actual)
    meta = {"what": what, "config": config, "of": of, "rtol": rtol, "atol": atol,
            "dtype": dtype.name if dtype is not None else None, "factors": factors or {},
            "kinks": None if kinks is None else numpy.asarray(kinks, dtype=bool).tolist(),
            "regions": {text: numpy.asarray(mask, dtype=bool).tolist()
                        for text, mask in (regions or {}).items()}}
    if OBSERVER is not None:
        OBSERVER.append({"actual": observed, "expected": describe(expected), "meta": meta})
    message = judge(observed, describe(expected), meta)
    if message:
        raise Wrong(message)


def expect_flag(what: str, condition: Any, message: str) -> None:
    """A property that must hold (``condition`` true); ``message`` says what is wrong when it does not."""
    observed = describe(bool(condition))
    meta = {"what": what, "config": "", "of": "", "message": message}
    if OBSERVER is not None:
        OBSERVER.append({"actual": observed, "expected": describe(True), "meta": meta})
    if not condition:
        raise Wrong(message)


def expect_accuracy(predicted: numpy.ndarray, labels: numpy.ndarray, required: float) -> float:
    """The fraction of ``predicted`` classes that are the ``labels``; recorded for the grader's process,
    which recomputes it from MNIST's labels (``_worker.py``)."""
    if OBSERVER is not None:
        OBSERVER.append({"actual": describe(numpy.asarray(predicted)),
                         "expected": {"kind": "accuracy", "dtype": None, "shape": None, "values": None},
                         "meta": {"what": "the test predictions", "config": "", "of": "",
                                  "accuracy": True}})
    predicted = numpy.asarray(predicted).reshape(-1)
    return float((predicted == numpy.asarray(labels).reshape(-1)).mean()) if predicted.size else 0.0


def judge(actual: dict, expected: dict, meta: dict) -> str | None:
    """None if ``actual`` (a :func:`describe`) is the ``expected`` one, else what is wrong with it."""
    what, config, of = meta["what"], meta["config"], meta["of"]
    if expected["shape"] is None:   # a flag or an object: equal or not
        if actual["kind"] == expected["kind"] and actual["values"] == expected["values"]:
            return None
        found = actual["values"] if actual["kind"] == "bool" else f"a {actual['kind']}"
        return meta.get("message") or f"{what} is {found} for {config}"
    problem = shape_problem(what, actual, tuple(expected["shape"]), of,
                            tensor_required=expected["kind"] == "Tensor")
    if problem:
        return problem
    if meta["dtype"] is not None and actual["dtype"] != meta["dtype"]:
        return f"{what} is {actual['dtype']} for {config}, but should be {meta['dtype']} like {of}"
    a = numpy.asarray(actual["values"], dtype=numpy.float64).reshape(actual["shape"])
    e = numpy.asarray(expected["values"], dtype=numpy.float64).reshape(expected["shape"])
    with numpy.errstate(invalid="ignore"):
        close = numpy.isclose(a, e, rtol=meta["rtol"], atol=meta["atol"], equal_nan=True)
    if close.all():
        return None
    wrong = ~close
    difference = numpy.where(wrong, numpy.abs(a - e), 0.0)
    difference = numpy.where(numpy.isnan(difference), numpy.inf, difference)
    worst = _index(int(numpy.argmax(difference)), a.shape)
    first = _index(int(numpy.flatnonzero(wrong)[0]), a.shape)
    kinks = None if meta.get("kinks") is None else numpy.asarray(meta["kinks"], dtype=bool)
    regions = {text: numpy.asarray(mask, dtype=bool) for text, mask in (meta.get("regions") or {}).items()}
    diagnosis = diagnose(a, e, wrong, meta.get("factors") or {}, kinks, regions)
    return (f"{what} is wrong for {config}: {int(wrong.sum())} of {a.size} elements differ; largest "
            f"difference {float(numpy.abs(a[worst] - e[worst])):.4g} at index {worst} (yours "
            f"{a[worst]:.6g}, expected {e[worst]:.6g}); first index that differs: {first} (yours "
            f"{a[first]:.6g}, expected {e[first]:.6g})" + (f". {diagnosis}" if diagnosis else ""))


def diagnose(a: numpy.ndarray, e: numpy.ndarray, wrong: numpy.ndarray, factors: dict,
             kinks: numpy.ndarray | None, regions: dict | None = None) -> str:
    """What a TA would say about the pattern of the differences between yours ``a`` and ``e``, or ``""``.

    Tried in order: wrong only at a kink (``>=`` for ``>``), or only in one of ``regions`` (the
    check's own: where windows overlap, say); a constant ratio (a missing or
    extra N, batch size or upstream gradient, named from ``factors``; −1 is a sign flip); the
    last two axes swapped (a transpose); wrong only on the border (padding); yours shifted by one
    row or column (an off-by-one window); wrong only on a grid of rows or columns (stride or
    dilation).
    """
    if kinks is not None and kinks.shape == wrong.shape and kinks.any() and not wrong[~kinks].any():
        return ("It differs only where the input is exactly at the kink (x == 0), where PyTorch's gradient "
                "is 0: use x > 0, not x >= 0")
    for text, mask in (regions or {}).items():
        if mask.shape == wrong.shape and mask.any() and not wrong[~mask].any():
            return f"It differs only {text}"
    ratio = _constant_ratio(a, e)
    if ratio is not None:
        if numpy.isclose(ratio, -1.0):
            return "Yours is exactly −1 × the expected everywhere: the sign is flipped"
        for name, value in factors.items():
            for power, word in ((1, "times"), (-1, "divided by")):
                if float(value) not in (0.0, 1.0) and numpy.isclose(abs(ratio), float(value) ** power):
                    sign = " and the sign is flipped" if ratio < 0 else ""
                    return (f"Yours is the expected {word} {name} = {float(value):g} everywhere: a factor of "
                            f"{name} is extra or missing{sign}")
        return (f"Yours is exactly {ratio:.6g} × the expected everywhere: a constant factor is missing or "
                f"extra")
    if a.ndim >= 2 and a.shape[-1] == a.shape[-2] and numpy.allclose(a, numpy.swapaxes(e, -1, -2)):
        return "Yours is the expected with its last two axes swapped: a transpose"
    if a.ndim == 4 and min(a.shape[2:]) >= 3:
        border = numpy.ones(a.shape[2:], dtype=bool)
        border[1:-1, 1:-1] = False
        if not wrong[..., ~border].any():
            return "It differs only on the border rows and columns: look at the padding"
        inner = (..., slice(1, -1), slice(1, -1))
        for down, right in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)):
            if numpy.allclose(numpy.roll(e, (down, right), axis=(2, 3))[inner], a[inner]):
                word = "row" if not right else "column" if not down else "row and one column"
                return (f"Yours is the expected shifted by one {word}: an off-by-one window (or the padding "
                        f"cropped from the wrong side)")
        rows, cols = numpy.nonzero(wrong.any(axis=(0, 1)))
        for step in (2, 3):
            on_grid = len(set((rows % step).tolist())) == 1 or len(set((cols % step).tolist())) == 1
            if len(rows) and on_grid and len(rows) < wrong[0, 0].size // 2:
                return (f"It differs only on a grid of every {step}{'nd' if step == 2 else 'rd'} row or "
                        f"column: look at the stride and the dilation")
    return ""


def _constant_ratio(a: numpy.ndarray, e: numpy.ndarray) -> float | None:
    """``r`` if ``a == r · e`` everywhere (and ``e`` is not all zero), else None."""
    usable = numpy.abs(e) > 1e-12
    if not usable.any() or not numpy.isfinite(a).all() or numpy.abs(a[~usable]).max(initial=0) > 1e-9:
        return None
    ratios = a[usable] / e[usable]
    ratio = float(numpy.median(ratios))
    if numpy.isclose(ratio, 1.0) or not numpy.allclose(ratios, ratio, rtol=1e-6, atol=1e-9):
        return None
    return ratio


def _index(flat: int, shape: tuple) -> tuple:
    return tuple(int(i) for i in numpy.unravel_index(flat, shape)) if shape else ()


# the files load_student ran: an error is located in the last frame of one of these
STUDENT_FILES: set[str] = set()


def describe_error(error: BaseException, config: str = "") -> str:
    """An exception raised by the student's code: one line, where in *their* file, and for what input."""
    frames = traceback.extract_tb(error.__traceback__)
    theirs = [frame for frame in frames if frame.filename in STUDENT_FILES]
    last = theirs[-1] if theirs else (frames[-1] if frames else None)
    where = f" (in {last.name}, {Path(last.filename).name} line {last.lineno})" if last else ""
    if theirs and theirs[-1] is not frames[-1]:
        where = where[:-1] + f", raised inside {Path(frames[-1].filename).name})"
    what = f" for {config}" if config else ""
    if isinstance(error, NotImplementedError):
        return f"not implemented yet{where}{what}: {error}" if str(error) else f"not implemented yet{where}"
    return f"your code raised {type(error).__name__}{where}{what}: {error}"


def run_part(exercise: str, part: str, check: Callable[[], str | None], max_score: float) -> Result:
    """Run one check; whatever the student's code does, a :class:`Result` comes back.

    A check may return a note for a part that passes (the capstone's accuracy)."""
    try:
        note = check()
    except Wrong as wrong:
        return Result(exercise, part, False, str(wrong), max_score)
    except StudentError as error:
        cause = error.__cause__ if error.__cause__ is not None else error
        return Result(exercise, part, False, describe_error(cause, error.config), max_score)
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
    """Write ``data`` as JSON atomically, making its folder if needed."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(data, indent=2) + "\n")


# --- running a student's Function against minigrad's own implementation -----------------------

def leaf(array: Any, dtype: Any = None, requires_grad: bool = True) -> Tensor:
    """A fresh float64 (or ``dtype``) leaf tensor (that requires grad), from a NumPy array."""
    return tensor(array, dtype=dtype or float64, requires_grad=requires_grad)


def call_backward(function: Any, inputs: tuple, grad_output: numpy.ndarray, config: str = "") -> tuple:
    """``function.apply(*inputs)``, then the student's ``backward`` called directly on its ctx.

    Called directly (not through the engine, which would sum a gradient of the wrong shape
    to the right one), so a gradient's shape is checked as the student wrote it.
    Returns ``(output, gradients)``.
    """
    with running(config):
        output = function.apply(*inputs)
    if not isinstance(output, Tensor):
        raise Wrong(f"{function.__name__}.forward returned a {type(output).__name__}, not a Tensor")
    if output.grad_fn is None:
        raise Wrong(f"{function.__name__}.apply(...) recorded no graph node: forward must return a Tensor")
    grad = Tensor(numpy.asarray(grad_output, dtype=host(output).dtype))
    before = [host(x).copy() if isinstance(x, Tensor) else None for x in inputs]
    with running(config):
        grads = function.backward(output.grad_fn, grad)
    for position, (x, old) in enumerate(zip(inputs, before)):
        if old is not None and not numpy.array_equal(host(x), old, equal_nan=True):
            raise Wrong(f"{function.__name__}.backward changed input {position} of forward in place: a "
                        f"backward must leave the saved inputs as they were (work on a copy)")
    if not numpy.array_equal(host(grad), numpy.asarray(grad_output, dtype=host(grad).dtype)):
        raise Wrong(f"{function.__name__}.backward changed the upstream gradient `grad` in place: other "
                    f"nodes use it too (work on a copy)")
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
    """minigrad's ``gradcheck`` in float64; a failure names the input in the student's words.

    The gradients through ``function`` and the engine, for a seeded upstream gradient, are also
    recorded (:func:`observe`): the grader's process holds them against the recorded answers.
    """
    try:
        with running(config):
            gradcheck(function, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)
    except GradcheckError as error:
        legend = ", ".join(f"input {i} is {name}" for i, name in enumerate(names))
        raise Wrong(f"gradcheck (finite differences in float64) fails for {config}: {error} ({legend})") \
            from None
    fresh = [leaf(host(x)) for x in inputs]
    output = function(*fresh)
    output.backward(Tensor(numpy.random.default_rng(0).normal(size=tuple(output.shape))))
    for x, name in zip(fresh, names):
        observe(f"∂L/∂{name} through Function.apply and the engine", x.grad, config, of=name)


def observe(what: str, value: Any, config: str, *, of: str = "its input", rtol: float = 1e-5,
            atol: float = 1e-7) -> None:
    """Record ``value`` for the grader's process only (this process has nothing to compare it with)."""
    if OBSERVER is not None:
        meta = {"what": what, "config": config, "of": of, "rtol": rtol, "atol": atol, "dtype": None,
                "factors": {}, "kinks": None}
        OBSERVER.append({"actual": describe(value), "expected": describe(value), "meta": meta})


def shapes_text(**shapes: tuple) -> str:
    return ", ".join(f"{name} {tuple(shape)}" for name, shape in shapes.items())
