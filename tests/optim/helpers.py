"""Run the same optimiser on minigrad and on PyTorch from the same start and the same gradients.

Gradients are not computed: each step sets ``.grad`` by hand from seeded NumPy arrays, so the
two libraries see exactly the same inputs and only their update rules are compared.
"""

from __future__ import annotations

import numpy
from _reference import reference
from _torch import exception_name

import minigrad as mg

SHAPES = [(3, 4), (5,), ()]
TOLERANCE = {numpy.float32: {"rtol": 1e-6, "atol": 1e-6}, numpy.float64: {"rtol": 1e-12, "atol": 1e-12}}


def start_and_gradients(dtype, steps: int, seed: int = 0, shapes=SHAPES) -> tuple[list, list]:
    """Initial weights and ``steps`` lists of gradients, one array per shape."""
    rng = numpy.random.default_rng(seed)
    start = [rng.standard_normal(shape).astype(dtype) for shape in shapes]
    grads = [[rng.standard_normal(shape).astype(dtype) for shape in shapes] for _ in range(steps)]
    return start, grads


def as_numpy(t) -> numpy.ndarray:
    return t.detach().cpu().numpy()


def make_params(lib, start: list, device: str = "cpu") -> list:
    return [lib.tensor(a.copy(), requires_grad=True, device=device) for a in start]


def set_grads(lib, params: list, grads: list, device: str = "cpu") -> None:
    for p, g in zip(params, grads):
        p.grad = lib.tensor(g, device=device)


def run(lib, name: str, start: list, grads: list, groups=None, device: str = "cpu", **options):
    """Train ``lib.optim.<name>`` for ``len(grads)`` steps; returns (final arrays, params, optimizer).

    ``groups``, if given, splits the parameters into param groups: a list of (indices, options).
    """
    params = make_params(lib, start, device)
    if groups is None:
        optimizer = getattr(lib.optim, name)(params, **options)
    else:
        spec = [{"params": [params[i] for i in indices], **group_options}
                for indices, group_options in groups]
        optimizer = getattr(lib.optim, name)(spec, **options)
    for step_grads in grads:
        set_grads(lib, params, step_grads, device)
        optimizer.step()
    return [as_numpy(p) for p in params], params, optimizer


def assert_same_params(ours: list, theirs: list, dtype) -> None:
    for mine, expected in zip(ours, theirs):
        assert mine.dtype == expected.dtype
        numpy.testing.assert_allclose(mine, expected, **TOLERANCE[dtype])


def both(name: str, dtype, steps: int = 6, **options) -> None:
    """minigrad and PyTorch agree after ``steps`` steps of optimiser ``name``."""
    start, grads = start_and_gradients(dtype, steps)
    ours, _, _ = run(mg, name, start, grads, **options)
    theirs = reference(lambda torch: run(torch, name, start, grads, **options)[0],
                       {"start": start, "grads": grads, "options": options})
    assert_same_params(ours, theirs, dtype)
    for before, after in zip(start, ours):  # the comparison is not vacuous: the weights moved
        assert not numpy.allclose(before, after)


def described(error: BaseException) -> list:
    """[qualified exception name, message]: what the error comparisons hold against PyTorch's."""
    return [exception_name(error), str(error)]


def torch_error(make) -> list:
    """:func:`described` of the exception ``make(torch)`` raises (recorded, see ``_reference``)."""
    return reference(lambda torch: described(error_of(lambda: make(torch))))


def error_of(call) -> BaseException:
    """The exception ``call()`` raises (the test fails if it raises none)."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 (any exception is the answer)
        return error
    raise AssertionError("expected an exception, none was raised")
