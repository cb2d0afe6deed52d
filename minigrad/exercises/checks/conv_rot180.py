"""Checks of exercise 6: rot180, the dilated and padded δ, and both gradients against ``F.conv2d``."""

from __future__ import annotations

import numpy

import minigrad.nn.functional as F
from minigrad.exercises._grading import Wrong, autograd_grads, expect_close, expect_gradcheck, leaf, running
from minigrad.exercises.checks._common import need
from minigrad.exercises.checks._conv import CONFIGS, arrays, describe
from minigrad.nn.modules.utils import _pair
from minigrad.tensor import Tensor

NAMES = ("rot180", "dilate_and_pad", "conv2d_grad_input", "conv2d_grad_weight", "Conv2dRot180")
# what minigrad has built in and the student writes here: a solution may not call it
BUILTINS = ("F.conv2d", "functional.conv2d", "conv2d_input", "conv2d_weight")


def _as_tensor(what: str, value: object) -> Tensor:
    if not hasattr(value, "shape"):
        raise Wrong(f"{what} should return an array, but returned {type(value).__name__}")
    return Tensor(numpy.ascontiguousarray(value))


def check_rot180(ns: dict, quick: bool) -> None:
    rot180 = need(ns, "rot180")
    weight = numpy.arange(2 * 3 * 2 * 3, dtype=numpy.float64).reshape(2, 3, 2, 3)
    expected = numpy.flip(weight, axis=(2, 3)).transpose(1, 0, 2, 3)
    with running("weight (2, 3, 2, 3)"):
        mine = rot180(weight)
    expect_close("rot180(W)", _as_tensor("rot180", mine), Tensor(expected), "weight (2, 3, 2, 3)",
                 of="W with in/out channels swapped: (C, O, kh, kw)")


def check_dilate_and_pad(ns: dict, quick: bool) -> None:
    dilate_and_pad = need(ns, "dilate_and_pad")
    delta = numpy.arange(1, 1 + 2 * 3 * 2 * 3, dtype=numpy.float64).reshape(2, 3, 2, 3)
    for stride, kernel, dilation, padded in [((2, 2), (3, 3), (1, 1), (5, 7)),
                                             ((1, 2), (2, 3), (2, 1), (4, 7)),
                                             ((3, 3), (2, 2), (1, 1), (5, 8))]:
        top, left = dilation[0] * (kernel[0] - 1), dilation[1] * (kernel[1] - 1)
        expected = numpy.zeros((2, 3, padded[0] + top, padded[1] + left))
        for h in range(2):          # the definition, element by element: a check may loop
            for w in range(3):
                expected[:, :, top + h * stride[0], left + w * stride[1]] = delta[:, :, h, w]
        config = f"δ (2, 3, 2, 3), stride {stride}, kernel {kernel}, dilation {dilation}, padded to {padded}"
        with running(config):
            mine = _as_tensor("dilate_and_pad", dilate_and_pad(delta, stride, kernel, dilation, padded))
        expect_close("dilate_and_pad(δ)", mine, Tensor(expected), config, of="the full-correlation frame")


def _check_gradient(ns: dict, name: str, which: int, seed: int) -> None:
    function = need(ns, name)
    rng = numpy.random.default_rng(seed)
    for x_shape, w_shape, stride, padding, dilation, _ in CONFIGS:
        x, w, _, grad = arrays(rng, x_shape, w_shape, stride, padding, dilation)
        geometry = (_pair(stride), _pair(padding), _pair(dilation))
        config = describe(x_shape, w_shape, stride, padding, dilation, 1)
        with running(config):
            if which == 0:
                mine = function(grad, w, x_shape, *geometry)
            else:
                mine = function(x, grad, w_shape, *geometry)
        _, expected = autograd_grads(F.conv2d, [x, w], grad, extra=(None,) + geometry)
        what = ("dx = δ ∗ rot180(W) (conv2d_grad_input)" if which == 0
                else "dW = x ⋆ δ (conv2d_grad_weight)")
        expect_close(what, _as_tensor(name, mine), expected[which], config,
                     of=f"{('x', 'weight')[which]} {(x_shape, w_shape)[which]}")


def check_grad_input(ns: dict, quick: bool) -> None:
    _check_gradient(ns, "conv2d_grad_input", 0, 18)


def check_grad_weight(ns: dict, quick: bool) -> None:
    _check_gradient(ns, "conv2d_grad_weight", 1, 19)


def check_gradcheck(ns: dict, quick: bool) -> None:
    function = need(ns, "Conv2dRot180")
    rng = numpy.random.default_rng(20)
    x, w = leaf(rng.normal(size=(1, 2, 6, 5))), leaf(rng.normal(size=(2, 2, 2, 3)))
    expect_gradcheck(lambda a, b: function.apply(a, b, (2, 1), (1, 0), (1, 2)), (x, w), ["x", "weight"],
                     describe((1, 2, 6, 5), (2, 2, 2, 3), (2, 1), (1, 0), (1, 2), 1))


PARTS = [("rot180", 1, check_rot180), ("dilate_and_pad", 2, check_dilate_and_pad),
         ("grad_input by rot180", 3, check_grad_input),
         ("grad_weight as a correlation", 3, check_grad_weight),
         ("gradcheck", 1, check_gradcheck)]
