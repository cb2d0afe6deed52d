"""Exercise 10 — im2col and col2im: every window of an image as one column, and back.

``im2col(x, kernel_size, stride, padding, dilation)`` takes x (N, C, H, W) and returns
cols (N, C·kh·kw, L), one column per output position (L = H_out·W_out, row-major), as
PyTorch's ``F.unfold``:

    cols[n, (c, i, j), (h, w)] = x_pad[n, c, h·s_h + i·d_h, w·s_w + j·d_w]

where x_pad is x with ``padding`` zeros on each side, rows are ordered (c, i, j) and
H_out = (H + 2·p_h − d_h·(kh − 1) − 1) // s_h + 1 (W_out alike).

``col2im(cols, input_shape, kernel_size, stride, padding, dilation)`` is its adjoint, as
``F.fold``: it adds every column back onto its window of a zero image of the padded
shape — where windows overlap the values add — and crops the padding: (N, C, H, W).

Every argument but x, cols and input_shape is a pair (rows, columns). Loop over the kernel
taps (i, j) only: each tap is one strided slice of x_pad for all images, channels and
positions at once. Hint: x_pad[:, :, top : top + s_h·(H_out − 1) + 1 : s_h, ...] is tap
(i, j)'s slice, with top = i·d_h.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module


def output_size(size: tuple, kernel_size: tuple, stride: tuple, padding: tuple, dilation: tuple) -> tuple:
    """(H_out, W_out) of a window of ``kernel_size`` sliding over an image of ``size`` (H, W)."""
    return tuple((size[k] + 2 * padding[k] - dilation[k] * (kernel_size[k] - 1) - 1) // stride[k] + 1
                 for k in range(2))


def im2col(x: Any, kernel_size: tuple, stride: tuple, padding: tuple, dilation: tuple) -> Any:
    """x (N, C, H, W) → cols (N, C·kh·kw, H_out·W_out), as ``F.unfold``."""
    xp = get_array_module(x)
    n, c = x.shape[:2]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel_size, stride, padding, dilation
    h_out, w_out = output_size(x.shape[2:], kernel_size, stride, padding, dilation)
    cols = xp.empty((n, c, kh, kw, h_out, w_out), dtype=x.dtype)
    # BEGIN SOLUTION: im2col: pad x; for each tap (i, j) copy its strided slice into cols[:, :, i, j]
    x_pad = xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    for i in range(kh):
        for j in range(kw):
            top, left = i * dh, j * dw
            rows = slice(top, top + sh * (h_out - 1) + 1, sh)
            columns = slice(left, left + sw * (w_out - 1) + 1, sw)
            cols[:, :, i, j] = x_pad[:, :, rows, columns]
    # END SOLUTION
    return cols.reshape(n, c * kh * kw, h_out * w_out)


def col2im(cols: Any, input_shape: tuple, kernel_size: tuple, stride: tuple, padding: tuple,
           dilation: tuple) -> Any:
    """cols (N, C·kh·kw, L) → (N, C, H, W): each column added back onto its window, as ``F.fold``."""
    xp = get_array_module(cols)
    n, c, h, w = input_shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel_size, stride, padding, dilation
    h_out, w_out = output_size((h, w), kernel_size, stride, padding, dilation)
    taps = cols.reshape(n, c, kh, kw, h_out, w_out)
    # BEGIN SOLUTION: col2im: zeros of the padded shape; add each tap's slice back (+=); crop the padding
    x_pad = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            top, left = i * dh, j * dw
            rows = slice(top, top + sh * (h_out - 1) + 1, sh)
            columns = slice(left, left + sw * (w_out - 1) + 1, sw)
            x_pad[:, :, rows, columns] += taps[:, :, i, j]
    return x_pad[:, :, ph:ph + h, pw:pw + w]
    # END SOLUTION
