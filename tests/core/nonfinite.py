"""Run one expression on minigrad and on PyTorch with nan and inf about, and compare position by position.

An expression is ``fn(m, f, *inputs)`` with ``m`` the library (``minigrad`` or ``torch``) and ``f`` its
``nn.functional``. :func:`compare_with_torch` builds float inputs that require grad from host arrays,
runs the expression, back-propagates a given upstream gradient (which may hold nan and inf too) and
asserts that values and every input's gradient agree with PyTorch's: nan exactly where PyTorch has
nan, the same infinities, exactly 0 where PyTorch has 0, and close elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy
from _reference import reference

import minigrad as mg
import minigrad.nn.functional as F

from .helpers import to_numpy

TOLERANCES = {"float64": (1e-9, 1e-12), "float32": (1e-4, 1e-5)}


def assert_same_positions(actual: numpy.ndarray, expected: numpy.ndarray, dtype: str, what: str) -> None:
    """nan where ``expected`` is nan, equal infinities, 0 where it is 0, close elsewhere."""
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    actual, expected = actual.astype(numpy.float64), expected.astype(numpy.float64)
    for name, test in (("nan", numpy.isnan), ("+inf", numpy.isposinf), ("-inf", numpy.isneginf),
                       ("exactly 0", lambda a: a == 0)):
        wrong = test(actual) != test(expected)
        if name == "exactly 0":  # a tiny rounding residue is not a routing error
            wrong &= ~numpy.isclose(actual, expected, rtol=0, atol=TOLERANCES[dtype][1])
        assert not wrong.any(), (f"{what}: {name} differs at {numpy.argwhere(wrong).tolist()[:5]}\n"
                                 f"minigrad {actual.tolist()}\nPyTorch  {expected.tolist()}")
    finite = numpy.isfinite(expected)
    rtol, atol = TOLERANCES[dtype]
    numpy.testing.assert_allclose(actual[finite], expected[finite], rtol=rtol, atol=atol, err_msg=what)


def _run(lib: Any, functional: Any, fn: Callable, arrays: list, upstream: Any, dtype: str) -> tuple:
    inputs = [lib.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    out = fn(lib, functional, *inputs)
    if upstream is None:
        out.backward()
    else:
        out.backward(lib.tensor(numpy.broadcast_to(upstream, tuple(out.shape)).astype(dtype)))
    return out, [t.grad for t in inputs]


def compare_with_torch(fn: Callable, arrays: list, upstream: numpy.ndarray | None = None,
                       dtype: str = "float64") -> None:
    """``fn``'s value and its inputs' gradients (for ``upstream``, broadcast to the output's shape; None:
    ``backward()`` of a one-element output) agree with PyTorch's position by position."""
    def torch_run(torch: Any) -> tuple:
        return _run(torch, torch.nn.functional, fn, arrays, upstream, dtype)

    theirs, their_grads = reference(torch_run, {"arrays": arrays, "upstream": upstream, "dtype": dtype})
    ours, our_grads = _run(mg, F, fn, arrays, upstream, dtype)
    assert_same_positions(to_numpy(ours.detach()), theirs, dtype, "value")
    for i, (mine, their) in enumerate(zip(our_grads, their_grads)):
        if their is None:
            assert mine is None, f"input {i}: minigrad has a gradient, PyTorch none"
            continue
        assert mine is not None, f"input {i}: no gradient from minigrad"
        assert_same_positions(to_numpy(mine), their, dtype, f"gradient of input {i}")
