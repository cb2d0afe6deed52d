"""Checks of exercise 5: Conv2dIm2col's gradients against minigrad's ``F.conv2d``."""

from __future__ import annotations

import numpy

import minigrad.nn.functional as F
from minigrad.exercises._grading import autograd_grads, call_backward, expect_close, expect_gradcheck, leaf
from minigrad.exercises.checks._common import need
from minigrad.exercises.checks._conv import CONFIGS, GROUPED, arrays, describe

NAMES = ("Conv2dIm2col",)
# what minigrad has built in and the student writes here: a solution may not call it
BUILTINS = ("F.conv2d", "functional.conv2d", "conv2d_input", "conv2d_weight")
GRADIENTS = [("grad_input (∂L/∂x)", "x"), ("grad_weight (∂L/∂W)", "weight"), ("grad_bias (∂L/∂b)", "bias")]


def _compare(ns: dict, which: tuple, configs: list, seed: int) -> None:
    function = need(ns, "Conv2dIm2col")
    rng = numpy.random.default_rng(seed)
    for x_shape, w_shape, stride, padding, dilation, groups in configs:
        x, w, b, grad = arrays(rng, x_shape, w_shape, stride, padding, dilation)
        config = describe(x_shape, w_shape, stride, padding, dilation, groups)
        geometry = (stride, padding, dilation, groups)
        # only the gradients under test are asked for: a blank elsewhere cannot fail this part
        inputs = tuple(leaf(a, requires_grad=i in which) for i, a in enumerate((x, w, b)))
        out, grads = call_backward(function, inputs + geometry, grad, config)
        expected_out, expected = autograd_grads(F.conv2d, [x, w, b], grad, extra=geometry)
        expect_close("the convolution's output", out, expected_out, config)
        for index in which:
            name, of = GRADIENTS[index]
            expect_close(name, grads[index], expected[index], config, of=f"{of} {(x, w, b)[index].shape}",
                         factors={"the batch size N": x_shape[0]})


def check_grad_weight(ns: dict, quick: bool) -> None:
    _compare(ns, (1,), CONFIGS, 13)


def check_grad_input(ns: dict, quick: bool) -> None:
    _compare(ns, (0,), CONFIGS, 14)


def check_grad_bias(ns: dict, quick: bool) -> None:
    _compare(ns, (2,), CONFIGS, 15)


def check_groups(ns: dict, quick: bool) -> None:
    _compare(ns, (0, 1), GROUPED, 16)


def check_gradcheck(ns: dict, quick: bool) -> None:
    function = need(ns, "Conv2dIm2col")
    rng = numpy.random.default_rng(17)
    # more in-channels than out-channels, groups 1: a transposed W or a swapped axis shows here
    x, w = leaf(rng.normal(size=(1, 3, 5, 5))), leaf(rng.normal(size=(2, 3, 3, 3)))
    b = leaf(rng.normal(size=2))
    expect_gradcheck(lambda *t: function.apply(*t, 2, 1, 1, 1), (x, w, b), ["x", "weight", "bias"],
                     describe((1, 3, 5, 5), (2, 3, 3, 3), 2, 1, 1, 1))


PARTS = [("grad_weight", 3, check_grad_weight), ("grad_input", 3, check_grad_input),
         ("grad_bias", 1, check_grad_bias), ("groups", 2, check_groups), ("gradcheck", 1, check_gradcheck)]
