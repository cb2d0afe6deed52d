"""Average pooling: the mean over the kh·kw strided views of the (zero-padded) input.

For each kernel tap (i, j) the slice ``x_pad[..., i·d + s·h, j·d + s·w]`` is one view (the
same taps as max pooling, ``ops/pool.py``):

    y = Σ_(i,j) view_ij / divisor          dx = δ / divisor added back onto every view

The divisor is the window's size, or (``count_include_pad=False``) the number of its elements
inside the input; ``divisor_override`` replaces it. Sizes follow PyTorch, ceil_mode included.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._checks import pool as checks
from minigrad.ops._util import ieee_results
from minigrad.ops.conv.geometry import Pair, integer_size
from minigrad.ops.pool import (
    _by_planes,
    _framed_size,
    _output_shape,
    _padded,
    _pool_pair,
    _taps,
)
from minigrad.performance.layout import empty_like_order
from minigrad.tensor import Tensor

# --- average pooling: arrays -----------------------------------------------------------------------

def avg_pool2d_divisor(input_size: Pair, out_shape: Pair, kernel_size: Pair, stride: Pair, padding: Pair,
                       count_include_pad: bool, divisor_override: int | None, xp: Any, dtype: Any) -> Any:
    """What each window's sum is divided by, (H_out, W_out), as PyTorch counts it.

    A window's extent is clipped to the padded input (never to a ceil_mode overhang);
    without ``count_include_pad`` it is clipped to the input itself.
    """
    if divisor_override:
        return divisor_override
    extents = []
    for axis in (0, 1):
        start = xp.arange(out_shape[axis]) * stride[axis] - padding[axis]
        end = xp.minimum(start + kernel_size[axis], input_size[axis] + padding[axis])
        if not count_include_pad:
            start, end = xp.maximum(start, 0), xp.minimum(end, input_size[axis])
        extents.append(end - start)
    return (extents[0][:, None] * extents[1][None, :]).astype(dtype)


def avg_pool2d_forward(x: Any, kernel_size: Pair, stride: Pair, padding: Pair, ceil_mode: bool,
                       count_include_pad: bool, divisor_override: int | None) -> Any:
    """y = Σ over the kh·kw tap views of x padded with 0, divided by each window's divisor."""
    xp = get_array_module(x)
    one = (1, 1)
    out_shape = _output_shape(x.shape, kernel_size, stride, padding, one, ceil_mode)
    divisor = avg_pool2d_divisor(x.shape[-2:], out_shape, kernel_size, stride, padding, count_include_pad,
                                 divisor_override, xp, x.dtype)
    # Summed in the input's memory order, not across it (docs/performance.md, average pooling).
    out = empty_like_order(x, x.shape[:-2] + out_shape, x.dtype)

    def pool(part: tuple) -> None:
        framed = _padded(x[part], out_shape, kernel_size, stride, padding, one, 0)
        total = out[part]
        with ieee_results():                              # inf + (−inf) = nan, silently, as in PyTorch
            for tap, view in _taps(out_shape, kernel_size, stride, one):
                if tap == 0:
                    total[...] = framed[view]
                else:
                    xp.add(total, framed[view], out=total)
        if x.dtype.kind != "f":
            total[...] = _truncated_quotient(total, divisor)
        else:
            total /= divisor

    _by_planes(x, 2, pool)
    return out


def _truncated_quotient(total: Any, divisor: Any) -> Any:
    """Integer averages as PyTorch computes them (int64): the quotient rounded toward zero, −7 / 4 = −1."""
    xp = get_array_module(total)
    divisor = xp.asarray(divisor, dtype=total.dtype)
    magnitude = xp.abs(total) // xp.abs(divisor)
    return xp.where((total < 0) != (divisor < 0), -magnitude, magnitude)


def avg_pool2d_backward(grad_out: Any, input_shape: tuple, kernel_size: Pair, stride: Pair, padding: Pair,
                        count_include_pad: bool, divisor_override: int | None) -> Any:
    """dx: every tap's view receives δ / divisor (δ's shape gives the output's, so no ``ceil_mode``)."""
    xp = get_array_module(grad_out)
    one = (1, 1)
    out_shape = grad_out.shape[-2:]
    divisor = avg_pool2d_divisor(input_shape[-2:], out_shape, kernel_size, stride, padding,
                                 count_include_pad, divisor_override, xp, grad_out.dtype)
    size = _framed_size(input_shape[-2:], out_shape, kernel_size, stride, padding, one)
    grad = empty_like_order(grad_out, tuple(input_shape[:-2]) + size, grad_out.dtype)  # added to in δ's order

    def spread(part: tuple) -> None:
        share, piece = grad_out[part] / divisor, grad[part]
        piece.fill(0)
        for _, view in _taps(out_shape, kernel_size, stride, one):
            piece[view] += share

    _by_planes(grad_out, 3 + kernel_size[0] * kernel_size[1], spread)
    height, width = input_shape[-2:]
    return grad[..., padding[0]:padding[0] + height, padding[1]:padding[1] + width]


# --- the autograd Functions and the public function -------------------------------------------------

class AvgPool2dFunction(Function):
    """y = (sum over each window) / divisor;   dx: every window position gets δ / divisor."""

    node_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, input, kernel_size, stride, padding, ceil_mode, count_include_pad,  # noqa: A002
                divisor_override):
        ctx.settings = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        ctx.save_for_backward(input)  # for the backward's edge and shape, as PyTorch saves it
        return Tensor(avg_pool2d_forward(input.array, *ctx.settings))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_input = AvgPool2dBackward.apply(grad_output, x, *ctx.settings)
        return grad_input, None, None, None, None, None, None


class AvgPool2dBackward(Function):
    """dx = δ / divisor spread over each window (:func:`avg_pool2d_backward`): linear in δ, and its
    adjoint is the average pooling itself, so d⟨dx, ε⟩/dδ = avg_pool2d(ε)."""

    node_name = "AvgPool2DBackwardBackward0"
    graph_inputs = (0, 1)  # grad_output and input (whose gradient is 0), as PyTorch's node

    @staticmethod
    def forward(ctx, grad_output, input, kernel_size, stride, padding, ceil_mode,  # noqa: A002
                count_include_pad, divisor_override):
        ctx.settings = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return Tensor(avg_pool2d_backward(grad_output.array, tuple(input.shape), kernel_size, stride, padding,
                                          count_include_pad, divisor_override))

    @staticmethod
    def backward(ctx, grad):
        return AvgPool2dFunction.apply(grad, *ctx.settings), None, None, None, None, None, None, None


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002 (PyTorch's name)
               padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """Mean over windows of ``input`` (N, C, H, W) or (C, H, W), as ``F.avg_pool2d``.

    Floating point, or int64 (each mean rounded toward zero, as PyTorch does).
    """
    name = "avg_pool2d"
    checks.check_has_channels(input)
    kernel_size = _pool_pair(kernel_size, "kernel_size", name)
    stride = kernel_size if stride is None or stride == [] or stride == () else \
        _pool_pair(stride, "stride", name)
    padding = _pool_pair(padding, "padding", name)
    if divisor_override is not None:
        divisor_override = integer_size(divisor_override, "divisor_override", name, "int")
    checks.check_pool(input, kernel_size, stride, padding, (1, 1))
    checks.check_output_size(input, _output_shape(input.shape, kernel_size, stride, padding, (1, 1),
                                                  ceil_mode))
    checks.check_dtype(input, name)
    checks.check_divisor(divisor_override)
    return AvgPool2dFunction.apply(input, kernel_size, stride, padding, bool(ceil_mode),
                                   bool(count_include_pad), divisor_override)
