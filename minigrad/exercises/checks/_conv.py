"""Configurations shared by the two convolution exercises' checks."""

from __future__ import annotations

import numpy

# (x shape, weight shape, stride, padding, dilation, groups): plain, stride, padding, dilation,
# all together, odd sizes where the last rows are never reached, batch 1, 1x1 kernels
CONFIGS = [
    ((2, 3, 6, 6), (4, 3, 3, 3), 1, 0, 1, 1),
    ((2, 2, 7, 7), (3, 2, 3, 3), 2, 0, 1, 1),
    ((1, 2, 5, 6), (2, 2, 3, 2), 1, 1, 1, 1),
    ((2, 1, 7, 7), (2, 1, 2, 2), 1, 0, 2, 1),
    ((2, 2, 8, 7), (3, 2, 3, 3), 2, 1, 2, 1),
    ((1, 3, 6, 5), (2, 3, 2, 2), (3, 2), (0, 1), 1, 1),
    ((3, 2, 4, 4), (5, 2, 1, 1), 1, 0, 1, 1),
]
GROUPED = [
    ((2, 4, 6, 6), (6, 2, 3, 3), 1, 1, 1, 2),
    ((1, 6, 7, 7), (3, 2, 3, 3), 2, 0, 1, 3),
    ((2, 4, 5, 5), (4, 1, 3, 3), 1, 1, 1, 4),   # depthwise
]


def describe(x_shape: tuple, w_shape: tuple, stride: object, padding: object, dilation: object,
             groups: int) -> str:
    return (f"x {x_shape}, weight {w_shape}, stride {stride}, padding {padding}, dilation {dilation}"
            + (f", groups {groups}" if groups != 1 else ""))


def out_shape(x_shape: tuple, w_shape: tuple, stride: object, padding: object, dilation: object) -> tuple:
    pair = lambda v: tuple(v) if isinstance(v, tuple) else (v, v)   # noqa: E731
    (sh, sw), (ph, pw), (dh, dw) = pair(stride), pair(padding), pair(dilation)
    h = (x_shape[2] + 2 * ph - dh * (w_shape[2] - 1) - 1) // sh + 1
    w = (x_shape[3] + 2 * pw - dw * (w_shape[3] - 1) - 1) // sw + 1
    return (x_shape[0], w_shape[0], h, w)


def arrays(rng: numpy.random.Generator, x_shape: tuple, w_shape: tuple, stride: object, padding: object,
           dilation: object) -> tuple:
    """x, weight, bias and an upstream gradient for one configuration."""
    return (rng.normal(size=x_shape), rng.normal(size=w_shape), rng.normal(size=w_shape[:1]),
            rng.normal(size=out_shape(x_shape, w_shape, stride, padding, dilation)))
