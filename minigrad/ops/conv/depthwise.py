"""Depthwise convolution (one input channel per group), by summing kh·kw shifted, scaled slices.

When each group sees a single input channel, im2col's per-group products are
(m × kh·kw)·(kh·kw × N·L) with m = C_out / C_in tiny (usually 1): too thin for BLAS,
while the column buffer is kh·kw times the input. The im2col algorithm therefore
sums the kernel taps directly, as depthwise kernels in production libraries do:

    forward:      y[n, c·m + o]     = Σ_{i,j} W[c·m + o, 0, i, j] · tap_ij(x_pad)[n, c]
    grad_input:   tap_ij(dx_pad)[n, c] += Σ_o W[c·m + o, 0, i, j] · δ[n, c·m + o]
    grad_weight:  dW[c·m + o, 0, i, j] = Σ_{n,h,w} δ[n, c·m + o, h, w] · tap_ij(x_pad)[n, c, h, w]

where tap_ij(a)[..., h, w] = a[..., h·s + i·d, w·s + j·d] is one strided view per tap.

Speed: NumPy pays per innermost row it visits, and these rows are only W_out long.
With stride 1 each tap's view, read row after row, is one contiguous run of the
padded image if the (W_pad − W_out) columns that run off the right edge come along;
so we compute on that wider "grid" (its extra columns get δ = 0 and are cropped
away) and every elementwise pass runs over whole images at once.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.ops.conv.geometry import Pair, output_shape, window

__all__ = ["is_depthwise", "forward", "grad_input", "grad_weight"]


def is_depthwise(weight_shape: tuple, groups: int) -> bool:
    """True when every group has exactly one input channel (and there is more than one group)."""
    return groups > 1 and weight_shape[1] == 1


class _Grid:
    """The positions the taps are evaluated at: (H_out, W_grid); W_grid = W_pad for stride 1, else W_out."""

    def __init__(self, input_shape: tuple, kernel_size: Pair, stride: Pair, padding: Pair, dilation: Pair):
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.size = input_shape[-2:]
        self.padded = (self.size[0] + 2 * padding[0], self.size[1] + 2 * padding[1])
        self.out = output_shape(input_shape, kernel_size, stride, padding, dilation)
        self.whole_rows = stride == (1, 1)
        self.width = self.padded[1] if self.whole_rows else self.out[1]

    def buffer(self, xp: Any, lead: tuple, dtype: Any) -> Any:
        """A zero padded image (lead..., H_pad, W_pad), with room for the last tap's run to overhang."""
        area = self.padded[0] * self.padded[1]
        overhang = self.dilation[1] * (self.kernel_size[1] - 1) if self.whole_rows else 0
        return xp.zeros(lead + (area + overhang,), dtype=dtype)

    def image(self, buffer: Any) -> Any:
        """The (lead..., H_pad, W_pad) view of a buffer, and the unpadded (H, W) part of it."""
        # Splitting the contiguous last axis is always a view (NumPy and CuPy), so writes go through.
        padded = buffer[..., :self.padded[0] * self.padded[1]].reshape(buffer.shape[:-1] + self.padded)
        ph, pw = self.padding
        return padded, padded[..., ph:ph + self.size[0], pw:pw + self.size[1]]

    def tap(self, buffer: Any, i: int, j: int) -> Any:
        """tap_ij of the buffer's image, evaluated on the grid: (lead..., H_out, W_grid), a view."""
        if self.whole_rows:
            start = i * self.dilation[0] * self.padded[1] + j * self.dilation[1]
            run = buffer[..., start:start + self.out[0] * self.width]
            return run.reshape(buffer.shape[:-1] + (self.out[0], self.width))
        padded, _ = self.image(buffer)
        rows = window(i * self.dilation[0], self.out[0], self.stride[0])
        return padded[..., rows, window(j * self.dilation[1], self.out[1], self.stride[1])]

    def taps(self) -> list:
        return [(i, j) for i in range(self.kernel_size[0]) for j in range(self.kernel_size[1])]


def _load(x: Any, grid: _Grid) -> Any:
    """x (N, C, H, W) copied into a zero padded buffer."""
    xp = get_array_module(x)
    buffer = grid.buffer(xp, x.shape[:2], x.dtype)
    grid.image(buffer)[1][...] = x
    return buffer


def _delta_on_grid(grad_out: Any, grid: _Grid, groups: int) -> Any:
    """δ (N, C·m, H_out, W_out) as (N, C, m, H_out, W_grid), zero in the grid's extra columns."""
    xp = get_array_module(grad_out)
    n, c_out, h_out, w_out = grad_out.shape
    per_channel = c_out // groups
    if grid.width == w_out:
        return grad_out.reshape(n, groups, per_channel, h_out, w_out)
    on_grid = xp.zeros((n, groups, per_channel, h_out, grid.width), dtype=grad_out.dtype)
    on_grid[..., :w_out] = grad_out.reshape(n, groups, per_channel, h_out, w_out)
    return on_grid


def forward(x: Any, weight: Any, stride: Pair, padding: Pair, dilation: Pair, groups: int) -> tuple:
    """y = Σ_taps W[:, tap] · tap(x_pad); returns ``(out, padded x buffer)``."""
    xp = get_array_module(x)
    n = x.shape[0]
    c_out, _, kh, kw = weight.shape
    grid = _Grid(x.shape, (kh, kw), stride, padding, dilation)
    buffer = _load(x, grid)
    scale = weight.reshape(groups, c_out // groups, kh, kw)           # (C, m, kh, kw)
    out = xp.empty((n, groups, c_out // groups) + (grid.out[0], grid.width), dtype=x.dtype)
    term = xp.empty_like(out)
    for k, (i, j) in enumerate(grid.taps()):
        view = grid.tap(buffer, i, j)[:, :, None]                      # (N, C, 1, H_out, W_grid)
        w_ij = scale[:, :, i, j, None, None]                           # (C, m, 1, 1)
        xp.multiply(view, w_ij, out=out if k == 0 else term)
        if k:
            out += term
    out = out.reshape(n, c_out, grid.out[0], grid.width)
    return out[..., :grid.out[1]], buffer


def grad_input(grad_out: Any, weight: Any, input_shape: tuple, stride: Pair, padding: Pair, dilation: Pair,
               groups: int, cache: Any = None) -> Any:
    """Each tap's view of dx_pad receives Σ_o W[c·m + o, tap] · δ[c·m + o]."""
    xp = get_array_module(grad_out)
    c_out, _, kh, kw = weight.shape
    grid = _Grid(input_shape, (kh, kw), stride, padding, dilation)
    delta = _delta_on_grid(grad_out, grid, groups)                     # (N, C, m, H_out, W_grid)
    scale = weight.reshape(groups, c_out // groups, kh, kw)
    buffer = grid.buffer(xp, tuple(input_shape[:2]), grad_out.dtype)
    term = xp.empty(delta.shape[:2] + delta.shape[3:], dtype=grad_out.dtype)
    for i, j in grid.taps():
        if delta.shape[2] == 1:
            xp.multiply(delta[:, :, 0], scale[:, 0, i, j, None, None], out=term)
        else:
            term[...] = xp.einsum("ncmhw,cm->nchw", delta, scale[:, :, i, j])
        grid.tap(buffer, i, j)[...] += term
    return grid.image(buffer)[1]


def grad_weight(x: Any, grad_out: Any, weight_shape: tuple, stride: Pair, padding: Pair, dilation: Pair,
                groups: int, cache: Any = None) -> Any:
    """dW[:, tap] = Σ_{n,h,w} δ · tap(x_pad); ``cache`` is the forward's padded x buffer."""
    xp = get_array_module(grad_out)
    c_out, _, kh, kw = weight_shape
    grid = _Grid(x.shape, (kh, kw), stride, padding, dilation)
    buffer = _load(x, grid) if cache is None else cache
    delta = _delta_on_grid(grad_out, grid, groups)
    grad_w = xp.empty((groups, c_out // groups, kh, kw), dtype=grad_out.dtype)
    for i, j in grid.taps():
        grad_w[:, :, i, j] = xp.einsum("ncmhw,nchw->cm", delta, grid.tap(buffer, i, j))
    return grad_w.reshape(tuple(weight_shape))
