"""Checks of exercise 1: ``sum_to_shape``, and ``Mul``/``Div``'s backward against minigrad's own ops."""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.exercises._grading import (
    autograd_grads,
    call_backward,
    expect_close,
    expect_gradcheck,
    leaf,
    running,
    shapes_text,
)
from minigrad.exercises.checks._common import need
from minigrad.tensor import Tensor

# (shape of a, shape of b): every way broadcasting can stretch an input, and none
NAMES = ("sum_to_shape", "Mul", "Div")

PAIRS = [((3, 4), (4,)), ((4, 1, 3), (5, 1)), ((), (2, 3)), ((5,), (5,)), ((1,), (3, 1)), ((2, 1), (1, 3)),
         ((1, 1), (1,))]


def check_sum_to_shape(ns: dict, quick: bool) -> None:
    sum_to_shape = need(ns, "sum_to_shape")
    rng = numpy.random.default_rng(1)
    for big, small in [((2, 3, 4), (3, 1)), ((5,), ()), ((4, 1, 3), (4, 1, 3)), ((2, 3), (1, 3)),
                       ((2, 3), (2, 1)), ((6, 2, 1), (1,))]:
        grad = rng.normal(size=big)
        # minigrad's own: the gradient of a tensor of shape `small` expanded to `big`
        _, (expected,) = autograd_grads(lambda x, shape=big: x.expand(*shape), [rng.normal(size=small)], grad)
        with running(f"grad {big} summed to {small}"):
            result = sum_to_shape(grad, small)
        expect_close("sum_to_shape(grad, shape)", Tensor(numpy.asarray(result)), expected,
                     f"grad of shape {big} and shape {small}", of="the `shape` argument")


def _check_binary(ns: dict, name: str, reference: Any, positive_b: bool) -> None:
    function = need(ns, name)
    rng = numpy.random.default_rng(2)
    for shape_a, shape_b in PAIRS:
        a = rng.uniform(-2, 2, size=shape_a)
        b = rng.uniform(0.5, 2, size=shape_b) * (1 if positive_b else rng.choice([-1, 1], size=shape_b))
        grad = rng.normal(size=numpy.broadcast_shapes(shape_a, shape_b))
        config = shapes_text(a=shape_a, b=shape_b)
        out, grads = call_backward(function, (leaf(a), leaf(b)), grad, config)
        expected_out, expected = autograd_grads(reference, [a, b], grad)
        expect_close(f"{name}'s output", out, expected_out, config)
        expect_close(f"grad_a (∂L/∂a of {name})", grads[0], expected[0], config, of=f"a {shape_a}")
        expect_close(f"grad_b (∂L/∂b of {name})", grads[1], expected[1], config, of=f"b {shape_b}")
    leaves = leaf(rng.uniform(-2, 2, size=(2, 1, 3))), leaf(rng.uniform(0.5, 2, size=(4, 1)))
    expect_gradcheck(function.apply, leaves, ["a", "b"], shapes_text(a=(2, 1, 3), b=(4, 1)))


def check_mul(ns: dict, quick: bool) -> None:
    _check_binary(ns, "Mul", lambda a, b: a * b, positive_b=False)


def check_div(ns: dict, quick: bool) -> None:
    _check_binary(ns, "Div", lambda a, b: a / b, positive_b=False)


PARTS = [("sum_to_shape", 2, check_sum_to_shape), ("Mul backward", 4, check_mul),
         ("Div backward", 4, check_div)]
