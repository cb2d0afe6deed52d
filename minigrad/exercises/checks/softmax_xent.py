"""Checks of exercise 3: Softmax, NLLLoss and the fused CrossEntropy against minigrad's own."""

from __future__ import annotations

import numpy

import minigrad.nn.functional as F
from minigrad.creation import tensor
from minigrad.dtypes import int64
from minigrad.exercises._grading import (
    Wrong,
    autograd_grads,
    call_backward,
    expect_close,
    expect_gradcheck,
    host,
    leaf,
    observe,
    running,
    shapes_text,
)
from minigrad.exercises.checks._common import need

NAMES = ("Softmax", "NLLLoss", "CrossEntropy", "cross_entropy_steps")
# what minigrad has built in and the student writes here: a solution may not call it
BUILTINS = ("F.softmax", "F.log_softmax", "F.cross_entropy", "F.nll_loss", "functional.softmax",
            "functional.log_softmax", "functional.cross_entropy", "functional.nll_loss")

# (N, C, scale of the logits): a batch, batch 1, two classes, one class, large logits
CONFIGS = [(4, 5, 1.0), (1, 3, 1.0), (6, 2, 3.0), (3, 1, 1.0), (5, 10, 30.0)]


def _targets(rng: numpy.random.Generator, n: int, c: int) -> object:
    return tensor(rng.integers(0, c, size=n), dtype=int64)


def check_softmax(ns: dict, quick: bool) -> None:
    function = need(ns, "Softmax")
    rng = numpy.random.default_rng(5)
    for n, c, scale in CONFIGS:
        z, grad = rng.normal(size=(n, c)) * scale, rng.normal(size=(n, c))
        config = shapes_text(z=(n, c)) + f", logits of scale {scale}"
        out, grads = call_backward(function, (leaf(z),), grad, config)
        expected_out, expected = autograd_grads(lambda x: F.softmax(x, dim=1), [z], grad)
        expect_close("softmax's output", out, expected_out, config)
        expect_close("Softmax's grad_z (∂L/∂z)", grads[0], expected[0], config, of=f"z {(n, c)}")
    expect_gradcheck(function.apply, (leaf(rng.normal(size=(3, 4))),), ["z"], shapes_text(z=(3, 4)))


def check_nll(ns: dict, quick: bool) -> None:
    function = need(ns, "NLLLoss")
    rng = numpy.random.default_rng(6)
    for n, c, _ in CONFIGS:
        logp = numpy.log(rng.dirichlet(numpy.ones(c), size=n))
        target = _targets(rng, n, c)
        grad = numpy.asarray(rng.uniform(0.5, 2.0))   # an upstream gradient other than 1
        config = shapes_text(logp=(n, c)) + f", targets {host(target).tolist()}, upstream gradient {grad:.3g}"
        out, grads = call_backward(function, (leaf(logp), target), grad, config)
        expected_out, expected = autograd_grads(lambda x, t=target: F.nll_loss(x, t), [logp], grad)
        expect_close("NLLLoss's output", out, expected_out, config)
        expect_close("NLLLoss's grad_logp (∂L/∂logp)", grads[0], expected[0], config, of=f"logp {(n, c)}",
                     factors={"N": n, "the upstream gradient": float(grad)})


def check_steps(ns: dict, quick: bool) -> None:
    steps = need(ns, "cross_entropy_steps")
    rng = numpy.random.default_rng(7)
    for n, c, scale in CONFIGS[:4]:
        z = rng.normal(size=(n, c)) * scale
        target = _targets(rng, n, c)
        mine = leaf(z)
        with running(shapes_text(z=(n, c))):
            loss = steps(mine, target)
            loss.backward()
        expected_loss, expected = autograd_grads(lambda x, t=target: F.cross_entropy(x, t), [z],
                                                 numpy.asarray(1.0))
        config = shapes_text(z=(n, c)) + f", targets {host(target).tolist()}"
        expect_close("cross_entropy_steps' loss", loss, expected_loss, config)
        expect_close("∂L/∂z through Softmax, log and NLLLoss", mine.grad, expected[0], config, of="z",
                     factors={"N": n})
    target = _targets(rng, 3, 4)
    z_leaf = leaf(rng.normal(size=(3, 4)))
    expect_gradcheck(lambda x: steps(x, target), (z_leaf,), ["z"], shapes_text(z=(3, 4)))


def check_fused(ns: dict, quick: bool) -> None:
    function = need(ns, "CrossEntropy")
    rng = numpy.random.default_rng(8)
    for n, c, scale in CONFIGS:
        z = rng.normal(size=(n, c)) * scale
        target = _targets(rng, n, c)
        grad = numpy.asarray(rng.uniform(0.5, 2.0))
        config = shapes_text(z=(n, c)) + f", logits of scale {scale}, upstream gradient {grad:.3g}"
        out, grads = call_backward(function, (leaf(z), target), grad, config)
        expected_out, expected = autograd_grads(lambda x, t=target: F.cross_entropy(x, t), [z], grad)
        expect_close("CrossEntropy's loss", out, expected_out, config)
        expect_close("CrossEntropy's grad_z (∂L/∂z)", grads[0], expected[0], config, of=f"z {(n, c)}",
                     factors={"N": n, "the upstream gradient": float(grad)})
    # logits so large that exp overflows: the fused gradient must stay finite
    z = numpy.array([[1000.0, 0.0, -1000.0], [0.0, 800.0, 0.0]])
    out, grads = call_backward(function, (leaf(z), tensor([2, 1])), numpy.asarray(1.0), "logits of ±1000")
    if not numpy.isfinite(host(grads[0])).all() or not numpy.isfinite(host(out)).all():
        raise Wrong("CrossEntropy gives inf or nan for logits of ±1000 (subtract each row's max before exp)")
    observe("CrossEntropy's grad_z for logits of ±1000", grads[0], "z [[1000, 0, -1000], [0, 800, 0]]")
    target = _targets(rng, 3, 4)
    expect_gradcheck(lambda x: function.apply(x, target), (leaf(rng.normal(size=(3, 4))),), ["z"],
                     shapes_text(z=(3, 4)))


PARTS = [("Softmax backward", 3, check_softmax), ("NLLLoss backward", 2, check_nll),
         ("step-by-step cross-entropy", 2, check_steps), ("fused CrossEntropy backward", 3, check_fused)]
