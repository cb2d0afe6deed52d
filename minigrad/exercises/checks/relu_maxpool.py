"""Checks of exercise 4: ReLU and MaxPool2d backward against minigrad's own, ties and overlaps included."""

from __future__ import annotations

import numpy

import minigrad.nn.functional as F
from minigrad.exercises._grading import (
    autograd_grads,
    call_backward,
    expect_close,
    expect_gradcheck,
    leaf,
    shapes_text,
)
from minigrad.exercises.checks._common import need

NAMES = ("ReLU", "MaxPool2d")
# what minigrad has built in and the student writes here: a solution may not call it
BUILTINS = ("F.relu", "F.max_pool2d", "functional.relu", "functional.max_pool2d")

# (input shape, kernel, stride): the usual 2x2/2, odd sizes that drop a border, overlapping windows, batch 1
POOL_CONFIGS = [((2, 3, 4, 4), 2, 2), ((1, 1, 5, 7), 2, 2), ((2, 2, 5, 5), 3, 1), ((1, 2, 7, 6), 3, 2),
                ((3, 1, 2, 2), 2, 2)]


def check_relu(ns: dict, quick: bool) -> None:
    function = need(ns, "ReLU")
    rng = numpy.random.default_rng(9)
    for shape in [(4, 5), (1, 3, 2, 2), (7,)]:
        x = rng.normal(size=shape)
        x.reshape(-1)[::3] = 0.0   # exact zeros: PyTorch's gradient there is 0
        grad = rng.normal(size=shape)
        config = shapes_text(x=shape) + " with some x exactly 0"
        out, grads = call_backward(function, (leaf(x),), grad, config)
        expected_out, expected = autograd_grads(F.relu, [x], grad)
        expect_close("relu's output", out, expected_out, config)
        expect_close("ReLU's grad_x (∂L/∂x)", grads[0], expected[0], config, of=f"x {shape}", kinks=x == 0)


def _check_pool(ns: dict, configs: list, integers: bool, seed: int) -> None:
    function = need(ns, "MaxPool2d")
    rng = numpy.random.default_rng(seed)
    for shape, k, s in configs:
        # small integers make ties in almost every window
        x = rng.integers(0, 3, size=shape).astype(numpy.float64) if integers else rng.normal(size=shape)
        h_out, w_out = (shape[2] - k) // s + 1, (shape[3] - k) // s + 1
        grad = rng.normal(size=shape[:2] + (h_out, w_out))
        config = shapes_text(x=shape) + f", kernel {k}, stride {s}" + (", many ties" if integers else "")
        out, grads = call_backward(function, (leaf(x), k, s), grad, config)
        expected_out, expected = autograd_grads(lambda t, k=k, s=s: F.max_pool2d(t, k, s), [x], grad)
        expect_close("max-pool's output", out, expected_out, config)
        expect_close("MaxPool2d's grad_x (∂L/∂x)", grads[0], expected[0], config, of=f"x {shape}")


def check_pool(ns: dict, quick: bool) -> None:
    _check_pool(ns, POOL_CONFIGS, integers=False, seed=10)
    function = need(ns, "MaxPool2d")
    rng = numpy.random.default_rng(11)
    x = leaf(rng.normal(size=(1, 2, 5, 5)))
    config = shapes_text(x=(1, 2, 5, 5)) + ", kernel 3, stride 2"
    expect_gradcheck(lambda t: function.apply(t, 3, 2), (x,), ["x"], config)


def check_ties(ns: dict, quick: bool) -> None:
    _check_pool(ns, POOL_CONFIGS, integers=True, seed=12)


PARTS = [("ReLU backward", 3, check_relu), ("MaxPool2d backward", 4, check_pool),
         ("MaxPool2d ties (first maximum)", 3, check_ties)]
