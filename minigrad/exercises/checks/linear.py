"""Checks of exercise 2: ``LinearFunction``'s three gradients against minigrad's ``F.linear``."""

from __future__ import annotations

import numpy

import minigrad.nn.functional as F
from minigrad.dtypes import float32
from minigrad.exercises._grading import (
    autograd_grads,
    call_backward,
    expect_close,
    expect_flag,
    expect_gradcheck,
    leaf,
    shapes_text,
)
from minigrad.exercises.checks._common import need

NAMES = ("LinearFunction",)
# what minigrad has built in and the student writes here: a solution may not call it
BUILTINS = ("F.linear", "functional.linear")

# (shape of x, out features): a batch, batch 1, one feature, leading dimensions (B, T, in)
CONFIGS = [((4, 3), 5), ((1, 3), 2), ((6, 1), 1), ((2, 3, 4), 5), ((7, 5), 3)]
GRADIENTS = [("grad_input (∂L/∂x)", "x"), ("grad_weight (∂L/∂W)", "weight"), ("grad_bias (∂L/∂b)", "bias")]


def _compare(ns: dict, which: int, quick: bool) -> None:
    """Gradient ``which`` alone: only that input requires grad, so a blank elsewhere cannot fail it."""
    function = need(ns, "LinearFunction")
    rng = numpy.random.default_rng(3)
    name, of = GRADIENTS[which]
    for x_shape, out in CONFIGS:
        arrays = [rng.normal(size=x_shape), rng.normal(size=(out, x_shape[-1])), rng.normal(size=(out,))]
        grad = rng.normal(size=x_shape[:-1] + (out,))
        config = shapes_text(x=x_shape, weight=arrays[1].shape, bias=arrays[2].shape)
        inputs = tuple(leaf(a, requires_grad=i == which) for i, a in enumerate(arrays))
        result, grads = call_backward(function, inputs, grad, config)
        expected_out, expected = autograd_grads(F.linear, arrays, grad)
        expect_close("the forward output y", result, expected_out, config)
        rows = int(numpy.prod(x_shape[:-1]))
        expect_close(name, grads[which], expected[which], config, of=f"{of} {arrays[which].shape}",
                     factors={"the batch size N": rows, "the number of output features": out})
    # float32 in, float32 out
    arrays = [rng.normal(size=(3, 4)), rng.normal(size=(2, 4)), rng.normal(size=(2,))]
    grad = rng.normal(size=(3, 2))
    inputs = tuple(leaf(a, float32, requires_grad=i == which) for i, a in enumerate(arrays))
    _, grads = call_backward(function, inputs, grad, "float32 inputs")
    _, expected = autograd_grads(F.linear, arrays, grad, dtype=float32)
    expect_close(name, grads[which], expected[which], "float32 inputs", of=of, rtol=1e-4, atol=1e-5,
                 dtype=float32)


def check_grad_input(ns: dict, quick: bool) -> None:
    _compare(ns, 0, quick)


def check_grad_weight(ns: dict, quick: bool) -> None:
    _compare(ns, 1, quick)


def check_grad_bias(ns: dict, quick: bool) -> None:
    _compare(ns, 2, quick)


def check_gradcheck(ns: dict, quick: bool) -> None:
    function = need(ns, "LinearFunction")
    rng = numpy.random.default_rng(4)
    x, w, b = leaf(rng.normal(size=(3, 4))), leaf(rng.normal(size=(2, 4))), leaf(rng.normal(size=(2,)))
    expect_gradcheck(function.apply, (x, w, b), ["x", "weight", "bias"], shapes_text(x=(3, 4), weight=(2, 4)))
    # without a bias: backward must not fail, and must return None (or nothing) for it
    out = function.apply(leaf(rng.normal(size=(2, 4))), leaf(rng.normal(size=(3, 4))), None)
    grads = function.backward(out.grad_fn, out.detach() * 0 + 1)
    grad_bias = grads[2] if isinstance(grads, tuple) and len(grads) > 2 else None
    expect_flag("grad_bias without a bias", grad_bias is None,
                "with bias=None, grad_bias must be None (ctx.needs_input_grad[2] is False)")


PARTS = [("grad_input", 3, check_grad_input), ("grad_weight", 3, check_grad_weight),
         ("grad_bias", 2, check_grad_bias), ("gradcheck and no bias", 2, check_gradcheck)]
