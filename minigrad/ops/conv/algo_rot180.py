"""Convolution's backward as two more correlations: δˡ = δˡ⁺¹ ∗ rot180(W), dW = x ⋆ δ.

Every step here is a *valid cross-correlation* computed from a sliding-window view
of its input (no im2col, no col2im):

    forward:      y  = correlate(pad(x), W, stride s, dilation d)
    grad_input:   dx = crop(correlate(dilate_and_pad_grad(δ), rotate_kernel(W), stride 1, dilation d))
    grad_weight:  dW[o, c, i, j] = Σ_{n,h,w} δ[n, o, h, w] · pad(x)[n, c, h·s + i·d, w·s + j·d]

Why the rotation: the forward sends x_pad[u] to every y[h] with u = h·s + i·d, so
dx_pad[u] = Σ_i W[i] · δ_s[u − i·d], where δ_s has δ[h] at position h·s and zeros
between (the stride-dilated δ). A sum over ``u − i·d`` is a *convolution*; written as
a correlation it takes the kernel flipped in both axes (rot180) and, since it maps
output channels back to input channels, with in/out channels swapped. Padding δ_s by
d·(k−1) on each side makes it the *full* correlation, whose output is the padded
input's size; dropping the padding rows gives dx. Rows of x the forward never reached
(when (H + 2p − d(k−1) − 1) is not a multiple of s) get the extra zero rows at the
bottom of the padded δ, hence zero gradient.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.ops.conv.geometry import Pair, crop2d, pad2d, window

__all__ = ["forward", "prepare_grad_output", "grad_input", "grad_weight", "correlate", "rotate_kernel",
           "dilate_and_pad_grad"]


def _windows(x: Any, extent: Pair, step: Pair, tap_step: Pair) -> Any:
    """(N, C, H, W) -> (N, C, P_h, P_w, t_h, t_w): windows of size ``extent`` every ``step``
    pixels, each sampled every ``tap_step`` pixels — a strided view, nothing is copied."""
    xp = get_array_module(x)
    view = xp.lib.stride_tricks.sliding_window_view(x, extent, axis=(2, 3))
    return view[:, :, ::step[0], ::step[1], ::tap_step[0], ::tap_step[1]]


def correlate(x: Any, kernel: Any, stride: Pair, dilation: Pair, groups: int) -> Any:
    """Valid grouped cross-correlation, no padding.

    y[n, g·O' + o, h, w] = Σ_{c,i,j} kernel[g·O' + o, c, i, j] · x[n, g·C' + c, h·s + i·d, w·s + j·d]
    for ``x`` (N, C, H, W) and ``kernel`` (O, C/G, kh, kw); O' = O/G, C' = C/G.
    """
    xp = get_array_module(x)
    n, c = x.shape[:2]
    c_out, c_per_group, kh, kw = kernel.shape
    extent = (dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1)
    windows = _windows(x, extent, stride, dilation)                  # (N, C, H_out, W_out, kh, kw)
    h_out, w_out = windows.shape[2:4]
    windows = windows.reshape(n, groups, c_per_group, h_out, w_out, kh, kw)
    kernel = kernel.reshape(groups, c_out // groups, c_per_group, kh, kw)
    out = xp.einsum("ngchwij,gocij->ngohw", windows, kernel, optimize=True)
    return out.reshape(n, c_out, h_out, w_out)


def rotate_kernel(weight: Any, groups: int) -> Any:
    """rot180(W) with in/out channels swapped per group: (C_out, C_in/G, kh, kw) -> (C_in, C_out/G, kh, kw).

    rotated[g·C' + c, o, i, j] = W[g·O' + o, c, kh−1−i, kw−1−j]
    """
    c_out, c_per_group, kh, kw = weight.shape
    per_group = weight.reshape(groups, c_out // groups, c_per_group, kh, kw)
    swapped = per_group.transpose(0, 2, 1, 3, 4).reshape(groups * c_per_group, c_out // groups, kh, kw)
    return swapped[:, :, ::-1, ::-1]


def dilate_and_pad_grad(grad_out: Any, stride: Pair, kernel_size: Pair, dilation: Pair,
                        padded_size: Pair) -> Any:
    """δ (N, O, H_out, W_out) spread ``stride`` apart and framed by d·(k−1) zeros (the full correlation).

    Returns (N, O, H_pad + d·(kh−1), W_pad + d·(kw−1)) where ``padded_size`` = (H_pad, W_pad) is the
    padded input's size; δ[h, w] sits at (d·(kh−1) + h·s, d·(kw−1) + w·s). Whatever is left at the
    bottom/right beyond d·(k−1) covers input rows the forward never reached.
    """
    xp = get_array_module(grad_out)
    n, c_out, h_out, w_out = grad_out.shape
    top, left = dilation[0] * (kernel_size[0] - 1), dilation[1] * (kernel_size[1] - 1)
    full = xp.zeros((n, c_out, padded_size[0] + top, padded_size[1] + left), dtype=grad_out.dtype)
    full[:, :, window(top, h_out, stride[0]), window(left, w_out, stride[1])] = grad_out
    return full


def forward(x: Any, weight: Any, stride: Pair, padding: Pair, dilation: Pair, groups: int) -> tuple:
    """y = correlate(pad(x), W); returns ``(y, pad(x))``, pad(x) for ``grad_weight``."""
    x_pad = pad2d(x, padding)
    return correlate(x_pad, weight, stride, dilation, groups), x_pad


def prepare_grad_output(grad_out: Any, weight_shape: tuple, stride: Pair, groups: int) -> Any:
    """δ as it is: the two gradients below read any memory layout."""
    return grad_out


def grad_input(grad_out: Any, weight: Any, input_shape: tuple, stride: Pair, padding: Pair,
               dilation: Pair, groups: int) -> Any:
    """dx = crop(correlate(dilate_and_pad_grad(δ), rotate_kernel(W), stride 1, dilation d))."""
    height, width = input_shape[2:]
    padded_size = (height + 2 * padding[0], width + 2 * padding[1])
    full = dilate_and_pad_grad(grad_out, stride, weight.shape[2:], dilation, padded_size)
    grad_padded = correlate(full, rotate_kernel(weight, groups), (1, 1), dilation, groups)
    return crop2d(grad_padded, padding)


def grad_weight(x: Any, grad_out: Any, weight_shape: tuple, stride: Pair, padding: Pair,
                dilation: Pair, groups: int, saved: Any = None) -> Any:
    """dW = correlation of pad(x) with δ: windows of δ's (stride-dilated) extent, one per tap (i, j).

    ``saved`` is the forward's pad(x) (None: padded again).
    """
    xp = get_array_module(x)
    n, c = x.shape[:2]
    c_out, c_per_group, kh, kw = weight_shape
    h_out, w_out = grad_out.shape[2:]
    # Now δ is the "kernel": its taps are `stride` apart and the windows move `dilation` per step.
    extent = (stride[0] * (h_out - 1) + 1, stride[1] * (w_out - 1) + 1)
    x_pad = pad2d(x, padding) if saved is None else saved
    windows = _windows(x_pad, extent, dilation, stride)[:, :, :kh, :kw]              # (N, C, kh, kw, Ho, Wo)
    windows = windows.reshape(n, groups, c_per_group, kh, kw, h_out, w_out)
    delta = grad_out.reshape(n, groups, c_out // groups, h_out, w_out)
    grad_w = xp.einsum("ngcijhw,ngohw->gocij", windows, delta, optimize=True)
    return grad_w.reshape(tuple(weight_shape))
