"""Checks of exercise 10: the student's im2col and col2im against minigrad's ``F.unfold`` and ``F.fold``."""

from __future__ import annotations

import numpy

import minigrad.nn.functional as F
from minigrad.creation import tensor
from minigrad.exercises._grading import expect_close, host, running
from minigrad.exercises.checks._common import need
from minigrad.exercises.checks._conv import CONFIGS, describe
from minigrad.nn.modules.utils import _pair

NAMES = ("im2col", "col2im")
# what minigrad has built in and the student writes here: a solution may not call it
BUILTINS = ("F.unfold", "F.fold", "functional.unfold", "functional.fold", "conv.im2col", "im2col.col2im")


def _geometry(w_shape: tuple, stride: object, padding: object, dilation: object) -> tuple:
    return tuple(w_shape[2:]), _pair(stride), _pair(padding), _pair(dilation)


def _overlaps(x_shape: tuple, geometry: tuple) -> numpy.ndarray:
    """Where more than one window covers a pixel of x (N, C, H, W)."""
    kernel, stride, padding, dilation = geometry
    ones = tensor(numpy.ones(x_shape))
    counts = F.fold(F.unfold(ones, kernel, dilation, padding, stride), x_shape[2:], kernel, dilation, padding,
                    stride)
    return host(counts) > 1


def check_im2col(ns: dict, quick: bool) -> None:
    student = need(ns, "im2col")
    rng = numpy.random.default_rng(40)
    for x_shape, w_shape, stride, padding, dilation, _ in CONFIGS:
        x = rng.normal(size=x_shape)
        geometry = _geometry(w_shape, stride, padding, dilation)
        kernel, stride2, padding2, dilation2 = geometry
        config = describe(x_shape, w_shape, stride, padding, dilation, 1)
        with running(config):
            cols = student(x, *geometry)
        expected = host(F.unfold(tensor(x), kernel, dilation2, padding2, stride2))
        expect_close("im2col(x, ...)", cols, expected, config, of="F.unfold's columns (N, C·kh·kw, L)")


def check_col2im(ns: dict, quick: bool) -> None:
    student = need(ns, "col2im")
    rng = numpy.random.default_rng(41)
    for x_shape, w_shape, stride, padding, dilation, _ in CONFIGS:
        geometry = _geometry(w_shape, stride, padding, dilation)
        kernel, stride2, padding2, dilation2 = geometry
        shape = host(F.unfold(tensor(numpy.zeros(x_shape)), kernel, dilation2, padding2, stride2)).shape
        cols = rng.normal(size=shape)
        config = describe(x_shape, w_shape, stride, padding, dilation, 1)
        with running(config):
            image = student(cols, x_shape, *geometry)
        expected = host(F.fold(tensor(cols), x_shape[2:], kernel, dilation2, padding2, stride2))
        expect_close("col2im(cols, ...)", image, expected, config, of="x",
                     regions={"where windows overlap: overlapping windows add (+=), they do not overwrite":
                              _overlaps(x_shape, geometry)})


def check_round_trip(ns: dict, quick: bool) -> None:
    """col2im(im2col(x)) counts each pixel once per window that covers it: the two are adjoint."""
    to_cols, to_image = need(ns, "im2col"), need(ns, "col2im")
    rng = numpy.random.default_rng(42)
    for x_shape, w_shape, stride, padding, dilation, _ in CONFIGS[3:5]:
        x = rng.normal(size=x_shape)
        geometry = _geometry(w_shape, stride, padding, dilation)
        kernel, stride2, padding2, dilation2 = geometry
        config = describe(x_shape, w_shape, stride, padding, dilation, 1)
        with running(config):
            image = to_image(to_cols(x, *geometry), x_shape, *geometry)
        expected = host(F.fold(F.unfold(tensor(x), kernel, dilation2, padding2, stride2), x_shape[2:], kernel,
                               dilation2, padding2, stride2))
        expect_close("col2im(im2col(x))", image, expected, config, of="x")


PARTS = [("im2col", 4, check_im2col), ("col2im", 4, check_col2im), ("the round trip", 2, check_round_trip)]
