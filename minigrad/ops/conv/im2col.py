"""im2col and col2im: turn every receptive field of an image into one column, and back.

``im2col`` copies, for each of the kh·kw kernel taps (i, j), one strided slice of the
padded input — never single pixels — into the matching rows of the column matrix:

    cols[(c, i, j), (n, h, w)] = x_pad[n, c, h·s_h + i·d_h, w·s_w + j·d_w]

so a convolution becomes one matrix product, ``out = W.reshape(C_out, C_in·kh·kw) @ cols``.
``col2im`` is its exact adjoint (⟨im2col(x), y⟩ = ⟨x, col2im(y)⟩): it adds each tap's
rows back onto the same slice of a zero image. Overlapping windows add up; no
scatter is needed.

Column layout (a choice made for speed): rows are ``(c, i, j)``, channel-major, so
the rows of one group of channels are one contiguous block and a grouped convolution
is a single batched product over ``(groups, ...)`` views; columns are ``(n, h, w)``,
so the whole batch sits in one wide matrix and the product is one large GEMM per
group instead of many small ones per image.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.ops.conv.geometry import Pair, crop2d, output_shape, window

__all__ = ["im2col", "col2im"]


def im2col(x: Any, kernel_size: Pair, stride: Pair, padding: Pair, dilation: Pair) -> Any:
    """Columns of ``x`` (N, C, H, W): ``(C·kh·kw, N·H_out·W_out)``, rows (c, i, j), columns (n, h, w)."""
    xp = get_array_module(x)
    n, c, height, width = x.shape
    kh, kw = kernel_size
    h_out, w_out = output_shape(x.shape, kernel_size, stride, padding, dilation)
    # Channels before batch: each tap's slice is then one block of `cols`, written in order.
    ph, pw = padding
    source = x.transpose(1, 0, 2, 3)
    if ph or pw:
        padded = xp.zeros((c, n, height + 2 * ph, width + 2 * pw), dtype=x.dtype)
        padded[:, :, ph:ph + height, pw:pw + width] = source
        source = padded
    cols = xp.empty((c, kh, kw, n, h_out, w_out), dtype=x.dtype)
    for i in range(kh):
        rows = window(i * dilation[0], h_out, stride[0])
        for j in range(kw):
            cols[:, i, j] = source[:, :, rows, window(j * dilation[1], w_out, stride[1])]
    return cols.reshape(c * kh * kw, n * h_out * w_out)


def col2im(cols: Any, input_shape: tuple, kernel_size: Pair, stride: Pair, padding: Pair,
           dilation: Pair) -> Any:
    """The adjoint of :func:`im2col`: add each column back onto its window; returns (N, C, H, W).

    The result is a view in (C, N, H, W) memory order (of a padded buffer), as computed.
    """
    xp = get_array_module(cols)
    n, c, height, width = input_shape
    kh, kw = kernel_size
    h_out, w_out = output_shape(input_shape, kernel_size, stride, padding, dilation)
    cols = cols.reshape(c, kh, kw, n, h_out, w_out)
    ph, pw = padding
    image = xp.zeros((c, n, height + 2 * ph, width + 2 * pw), dtype=cols.dtype)
    for i in range(kh):
        rows = window(i * dilation[0], h_out, stride[0])
        for j in range(kw):
            image[:, :, rows, window(j * dilation[1], w_out, stride[1])] += cols[:, i, j]
    return crop2d(image, padding).transpose(1, 0, 2, 3)
