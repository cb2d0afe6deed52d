"""Checks of exercise 11: the naive (looped) convolution and its three gradients against ``F.conv2d``."""

from __future__ import annotations

import numpy

import minigrad.nn.functional as F
from minigrad.exercises._grading import autograd_grads, expect_close, host, running
from minigrad.exercises.checks._common import need

NAMES = ("conv_forward_naive", "conv_grad_x_naive", "conv_grad_w_naive", "conv_grad_b_naive")
# what minigrad has built in and the student writes here: a solution may not call it
BUILTINS = ("F.conv2d", "functional.conv2d", "conv2d_input", "conv2d_weight", "F.unfold", "F.fold")

# (x shape, w shape, stride, pad): plain, padding, stride 2 with padding, odd sizes, batch 1 and 1x1
CONFIGS = [((2, 3, 5, 5), (4, 3, 3, 3), 1, 0), ((2, 2, 5, 6), (3, 2, 3, 3), 1, 1),
           ((1, 2, 7, 7), (2, 2, 3, 3), 2, 1), ((2, 1, 6, 5), (2, 1, 2, 3), 2, 0),
           ((1, 3, 4, 4), (2, 3, 1, 1), 1, 0)]


def _cases(seed: int) -> list:
    rng = numpy.random.default_rng(seed)
    cases = []
    for x_shape, w_shape, stride, pad in CONFIGS:
        x, w, b = rng.normal(size=x_shape), rng.normal(size=w_shape), rng.normal(size=w_shape[:1])
        h_out = (x_shape[2] + 2 * pad - w_shape[2]) // stride + 1
        w_out = (x_shape[3] + 2 * pad - w_shape[3]) // stride + 1
        dout = rng.normal(size=(x_shape[0], w_shape[0], h_out, w_out))
        out, grads = autograd_grads(F.conv2d, [x, w, b], dout, extra=(stride, pad))
        config = f"x {x_shape}, w {w_shape}, stride {stride}, pad {pad}"
        cases.append((x, w, b, stride, pad, dout, host(out), [host(g) for g in grads], config))
    return cases


def check_forward(ns: dict, quick: bool) -> None:
    forward = need(ns, "conv_forward_naive")
    for x, w, b, stride, pad, _, out, _, config in _cases(50):
        with running(config):
            mine = forward(x, w, b, stride, pad)
        expect_close("conv_forward_naive's out", mine, out, config, of="out (N, F, H_out, W_out)")


def check_grad_x(ns: dict, quick: bool) -> None:
    grad_x = need(ns, "conv_grad_x_naive")
    for x, w, _, stride, pad, dout, _, grads, config in _cases(51):
        with running(config):
            mine = grad_x(dout, x, w, stride, pad)
        expect_close("conv_grad_x_naive's dx (∂L/∂x)", mine, grads[0], config, of=f"x {x.shape}",
                     factors={"the batch size N": x.shape[0]})


def check_grad_w(ns: dict, quick: bool) -> None:
    grad_w = need(ns, "conv_grad_w_naive")
    for x, w, _, stride, pad, dout, _, grads, config in _cases(52):
        with running(config):
            mine = grad_w(dout, x, w, stride, pad)
        expect_close("conv_grad_w_naive's dw (∂L/∂w)", mine, grads[1], config, of=f"w {w.shape}",
                     factors={"the batch size N": x.shape[0]})


def check_grad_b(ns: dict, quick: bool) -> None:
    grad_b = need(ns, "conv_grad_b_naive")
    for x, w, _, _, _, dout, _, grads, config in _cases(53):
        with running(config):
            mine = grad_b(dout)
        expect_close("conv_grad_b_naive's db (∂L/∂b)", mine, grads[2], config, of=f"b {w.shape[:1]}",
                     factors={"the batch size N": x.shape[0]})


PARTS = [("forward", 3, check_forward), ("grad_x", 3, check_grad_x), ("grad_w", 3, check_grad_w),
         ("grad_b", 1, check_grad_b)]
