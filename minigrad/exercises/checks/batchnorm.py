"""Checks of exercise 7: the fused BatchNorm backward against autograd through ``batchnorm_steps``.

``batchnorm_steps`` itself is checked against minigrad's ``F.batch_norm`` first, so a
student who edits it cannot move the target.
"""

from __future__ import annotations

import numpy

import minigrad.nn.functional as F
from minigrad.exercises._grading import autograd_grads, call_backward, expect_close, expect_gradcheck, leaf
from minigrad.exercises.checks._common import need
from minigrad.tensor import Tensor

NAMES = ("BatchNormFunction", "batchnorm_steps")
# what minigrad has built in and the student writes here: a solution may not call it
BUILTINS = ("F.batch_norm", "functional.batch_norm")

# x shapes: a batch of features, batch 2, a batch of images, odd spatial sizes, one channel
SHAPES = [(8, 5), (2, 3), (4, 3, 5, 5), (2, 2, 3, 7), (3, 1, 4, 4)]
GRADIENTS = [("grad_x (∂L/∂x)", "x"), ("grad_gamma (∂L/∂γ)", "gamma"), ("grad_beta (∂L/∂β)", "beta")]


def _reference_batch_norm(x: Tensor, gamma: Tensor, beta: Tensor) -> Tensor:
    return F.batch_norm(x, None, None, gamma, beta, training=True, eps=1e-5)


def _compare(ns: dict, which: int, seed: int) -> None:
    function, steps = need(ns, "BatchNormFunction"), need(ns, "batchnorm_steps")
    rng = numpy.random.default_rng(seed)
    for shape in SHAPES:
        c = shape[1]
        arrays = [rng.normal(2.0, 3.0, size=shape), rng.uniform(0.5, 2, size=c), rng.normal(size=c)]
        grad = rng.normal(size=shape)
        config = f"x {shape}"
        reference_out, reference = autograd_grads(_reference_batch_norm, arrays, grad)
        steps_out, expected = autograd_grads(steps, arrays, grad)
        expect_close("batchnorm_steps' output (keep it as given)", steps_out, reference_out, config)
        # only the gradient under test is asked for: a blank elsewhere cannot fail this part
        inputs = tuple(leaf(a, requires_grad=i == which) for i, a in enumerate(arrays))
        out, grads = call_backward(function, inputs, grad, config)
        expect_close("BatchNormFunction's output", out, steps_out, config)
        name, of = GRADIENTS[which]
        expect_close(name, grads[which], expected[which], config + " (against autograd through the steps)",
                     of=f"{of} {arrays[which].shape}", rtol=1e-6, atol=1e-9,
                     factors={"m (the values per channel)": grad.size // c})


def check_grad_x(ns: dict, quick: bool) -> None:
    _compare(ns, 0, 21)


def check_grad_gamma(ns: dict, quick: bool) -> None:
    _compare(ns, 1, 22)


def check_grad_beta(ns: dict, quick: bool) -> None:
    _compare(ns, 2, 23)


def check_gradcheck(ns: dict, quick: bool) -> None:
    function = need(ns, "BatchNormFunction")
    rng = numpy.random.default_rng(24)
    inputs = (leaf(rng.normal(size=(3, 2, 2, 2))), leaf(rng.uniform(0.5, 2, size=2)),
              leaf(rng.normal(size=2)))
    expect_gradcheck(function.apply, inputs, ["x", "gamma", "beta"], "x (3, 2, 2, 2)")


PARTS = [("grad_x (the fused expression)", 5, check_grad_x), ("grad_gamma", 2, check_grad_gamma),
         ("grad_beta", 1, check_grad_beta), ("gradcheck", 2, check_gradcheck)]
