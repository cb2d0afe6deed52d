"""Exercise 11 — a convolution as loops (CS231n's naive conv), forward and backward.

``conv_forward_naive(x, w, b, stride, pad)``: x (N, C, H, W), w (F, C, kh, kw), b (F,),
one stride and one zero padding for both axes; returns out (N, F, H_out, W_out) with

    out[n, f, i, j] = Σ_c,u,v w[f, c, u, v] · x_pad[n, c, i·s + u, j·s + v] + b[f]

(a cross-correlation, as PyTorch's conv2d), H_out = (H + 2·pad − kh) // s + 1.

Then the three gradients, each its own function, given dout = ∂L/∂out:

* ``conv_grad_x_naive``: ∂L/∂x — every output (n, f, i, j) sends dout[n, f, i, j] · w[f]
  back onto its window of x_pad; overlapping windows add; crop the padding at the end
* ``conv_grad_w_naive``: ∂L/∂w — every output adds dout[n, f, i, j] times its window of
  x_pad to w[f]
* ``conv_grad_b_naive``: ∂L/∂b — the sum of dout over everything but f

Loops over n, f, i and j are the point here (the other conv exercises are the fast
versions); keep the window itself a slice: x_pad[n, :, i·s : i·s + kh, j·s : j·s + kw].
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module


def _padded(x: Any, pad: int) -> Any:
    xp = get_array_module(x)
    return xp.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))


def _out_size(x_shape: tuple, w_shape: tuple, stride: int, pad: int) -> tuple:
    return tuple((x_shape[k] + 2 * pad - w_shape[k]) // stride + 1 for k in (2, 3))


def conv_forward_naive(x: Any, w: Any, b: Any, stride: int, pad: int) -> Any:
    """out[n, f, i, j] = Σ w[f] ⊙ (the window of x_pad at (i, j)) + b[f]."""
    xp = get_array_module(x)
    n_images, filters, (kh, kw) = x.shape[0], w.shape[0], w.shape[2:]
    h_out, w_out = _out_size(x.shape, w.shape, stride, pad)
    x_pad = _padded(x, pad)
    out = xp.zeros((n_images, filters, h_out, w_out), dtype=x.dtype)
    for n in range(n_images):
        for f in range(filters):
            for i in range(h_out):
                for j in range(w_out):
                    # BEGIN SOLUTION: forward: the window times w[f], summed, plus b[f]
                    window = x_pad[n, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
                    out[n, f, i, j] = (window * w[f]).sum() + b[f]
                    # END SOLUTION
    return out


def conv_grad_x_naive(dout: Any, x: Any, w: Any, stride: int, pad: int) -> Any:
    """∂L/∂x: each dout[n, f, i, j] · w[f] added onto its window; the padding cropped."""
    xp = get_array_module(dout)
    kh, kw = w.shape[2:]
    dx_pad = xp.zeros(_padded(x, pad).shape, dtype=dout.dtype)
    for n in range(dout.shape[0]):
        for f in range(dout.shape[1]):
            for i in range(dout.shape[2]):
                for j in range(dout.shape[3]):
                    # BEGIN SOLUTION: grad_x: add dout[n, f, i, j] · w[f] onto the window (+=)
                    rows, cols = slice(i * stride, i * stride + kh), slice(j * stride, j * stride + kw)
                    dx_pad[n, :, rows, cols] += dout[n, f, i, j] * w[f]
                    # END SOLUTION
    return dx_pad[:, :, pad:pad + x.shape[2], pad:pad + x.shape[3]]


def conv_grad_w_naive(dout: Any, x: Any, w: Any, stride: int, pad: int) -> Any:
    """∂L/∂w: each dout[n, f, i, j] times its window of x_pad, added to w[f]'s gradient."""
    xp = get_array_module(dout)
    kh, kw = w.shape[2:]
    x_pad = _padded(x, pad)
    dw = xp.zeros(w.shape, dtype=dout.dtype)
    for n in range(dout.shape[0]):
        for f in range(dout.shape[1]):
            for i in range(dout.shape[2]):
                for j in range(dout.shape[3]):
                    # BEGIN SOLUTION: grad_w: add dout[n, f, i, j] times the window to dw[f]
                    rows, cols = slice(i * stride, i * stride + kh), slice(j * stride, j * stride + kw)
                    dw[f] += dout[n, f, i, j] * x_pad[n, :, rows, cols]
                    # END SOLUTION
    return dw


def conv_grad_b_naive(dout: Any) -> Any:
    """∂L/∂b: dout summed over the images and the positions."""
    # BEGIN SOLUTION: grad_b: one sum, over every axis but the filters'
    return dout.sum(axis=(0, 2, 3))
    # END SOLUTION
