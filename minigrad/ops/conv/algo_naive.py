"""Convolution by its definition: explicit loops over images, output channels and positions.

    y[n, o, h, w] = Σ_{c,i,j} W[o, c, i, j] · x_pad[n, g·C' + c, h·s + i·d, w·s + j·d],   g = o // O'

(C' = C_in/G input and O' = C_out/G output channels per group). Differentiating this
one sum term by term gives the backward, which here literally loops the same way:

    dx_pad[n, g·C' + c, h·s + i·d, w·s + j·d] += δ[n, o, h, w] · W[o, c, i, j]
    dW[o, c, i, j]                             += δ[n, o, h, w] · x_pad[n, g·C' + c, h·s + i·d, w·s + j·d]

Slow (a Python step per output value): for small inputs, teaching and checking the
fast algorithms — the one place in minigrad where loops over pixels are the point.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from minigrad.backend import get_array_module
from minigrad.ops.conv.geometry import Pair, crop2d, output_shape, pad2d

__all__ = ["forward", "prepare_grad_output", "grad_input", "grad_weight"]


def _receptive_field(h: int, w: int, kernel_size: Pair, stride: Pair, dilation: Pair) -> tuple:
    """Rows and columns of x_pad that output position (h, w) sees: h·s + i·d for i < kh, likewise w."""
    rows = slice(h * stride[0], h * stride[0] + dilation[0] * (kernel_size[0] - 1) + 1, dilation[0])
    cols = slice(w * stride[1], w * stride[1] + dilation[1] * (kernel_size[1] - 1) + 1, dilation[1])
    return rows, cols


def _positions(n: int, c_out: int, h_out: int, w_out: int) -> Any:
    return product(range(n), range(c_out), range(h_out), range(w_out))


def forward(x: Any, weight: Any, stride: Pair, padding: Pair, dilation: Pair, groups: int) -> tuple:
    """y[n, o, h, w] = Σ W[o] ⊙ (its group's channels of x_pad in the window at (h, w)).

    Returns ``(y, x_pad)``, x_pad for ``grad_weight``.
    """
    xp = get_array_module(x)
    n = x.shape[0]
    c_out, c_per_group, kh, kw = weight.shape
    h_out, w_out = output_shape(x.shape, (kh, kw), stride, padding, dilation)
    x_pad = pad2d(x, padding)
    out = xp.zeros((n, c_out, h_out, w_out), dtype=x.dtype)
    for b, o, h, w in _positions(n, c_out, h_out, w_out):
        g = o // (c_out // groups)
        rows, cols = _receptive_field(h, w, (kh, kw), stride, dilation)
        patch = x_pad[b, g * c_per_group:(g + 1) * c_per_group, rows, cols]
        out[b, o, h, w] = (patch * weight[o]).sum()
    return out, x_pad


def prepare_grad_output(grad_out: Any, weight_shape: tuple, stride: Pair, groups: int) -> Any:
    """δ as it is: the two gradients below read any memory layout."""
    return grad_out


def grad_input(grad_out: Any, weight: Any, input_shape: tuple, stride: Pair, padding: Pair,
               dilation: Pair, groups: int) -> Any:
    """Each δ[n, o, h, w] adds δ · W[o] onto the window it came from."""
    xp = get_array_module(grad_out)
    n, c, height, width = input_shape
    c_out, c_per_group, kh, kw = weight.shape
    grad_pad = xp.zeros((n, c, height + 2 * padding[0], width + 2 * padding[1]), dtype=grad_out.dtype)
    for b, o, h, w in _positions(*grad_out.shape):
        g = o // (c_out // groups)
        rows, cols = _receptive_field(h, w, (kh, kw), stride, dilation)
        grad_pad[b, g * c_per_group:(g + 1) * c_per_group, rows, cols] += grad_out[b, o, h, w] * weight[o]
    return crop2d(grad_pad, padding)


def grad_weight(x: Any, grad_out: Any, weight_shape: tuple, stride: Pair, padding: Pair,
                dilation: Pair, groups: int, saved: Any = None) -> Any:
    """Each δ[n, o, h, w] adds δ · (the window it came from) onto W[o]'s gradient; ``saved``: x_pad."""
    xp = get_array_module(x)
    c_out, c_per_group, kh, kw = weight_shape
    x_pad = pad2d(x, padding) if saved is None else saved
    grad_w = xp.zeros(tuple(weight_shape), dtype=x.dtype)
    for b, o, h, w in _positions(*grad_out.shape):
        g = o // (c_out // groups)
        rows, cols = _receptive_field(h, w, (kh, kw), stride, dilation)
        grad_w[o] += grad_out[b, o, h, w] * x_pad[b, g * c_per_group:(g + 1) * c_per_group, rows, cols]
    return grad_w
