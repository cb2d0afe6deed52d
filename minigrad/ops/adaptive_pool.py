"""Adaptive pooling: the output size is given and the windows follow from it (PyTorch's
``adaptive_avg_pool2d`` / ``adaptive_max_pool2d``): output cell i covers input rows
⌊i·H/h⌋ … ⌈(i+1)·H/h⌉ − 1, so windows may differ in size and overlap.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._checks import pool as checks
from minigrad.ops._util import grad_where
from minigrad.ops.pool import _flat_in_input, _read_at
from minigrad.tensor import Tensor

# --- adaptive pooling: the output size is given, the windows follow from it -------------------------

def adaptive_windows(size: int, out: int) -> tuple:
    """PyTorch's windows along one axis: row i covers [⌊i·size/out⌋, ⌈(i+1)·size/out⌉)."""
    starts = [i * size // out for i in range(out)]
    ends = [-(-(i + 1) * size // out) for i in range(out)]
    return starts, ends


def _window_inside(xp: Any, size: int, out: int) -> Any:
    """(out, K) booleans beside :func:`_window_taps`: False where a short window repeats a position."""
    starts, ends = adaptive_windows(size, out)
    longest = max((e - s for s, e in zip(starts, ends)), default=1)
    # int64 also when out = 0 (no windows: NumPy would make an empty float array)
    starts, ends = xp.asarray(starts, dtype=xp.int64), xp.asarray(ends, dtype=xp.int64)
    return starts[:, None] + xp.arange(longest) < ends[:, None]


def _window_taps(xp: Any, size: int, out: int) -> Any:
    """(out, K) input positions of each window, K the longest window; short windows repeat their last
    position (a repeat changes neither a maximum nor which position is its first)."""
    starts, ends = adaptive_windows(size, out)
    longest = max((e - s for s, e in zip(starts, ends)), default=1)
    taps = xp.asarray(starts, dtype=xp.int64)[:, None] + xp.arange(longest)
    return xp.minimum(taps, xp.asarray(ends, dtype=xp.int64)[:, None] - 1)


def _check_not_empty(grad_output: Tensor, function: str) -> None:
    """An output size of 0 pools to an empty tensor, but PyTorch's backward refuses it."""
    for axis in (-2, -1):
        if grad_output.shape[axis] == 0:
            raise RuntimeError(f"{function}(): Expected grad_output to have non-zero size for non-batch "
                               f"dimensions, but grad_output has sizes {list(grad_output.shape)} with "
                               f"dimension {grad_output.ndim + axis} being empty")


class AdaptiveAvgPool2dFunction(Function):
    """y = the mean of each adaptive window (its taps gathered as (…, out_h, K_h, out_w, K_w), the
    repeats of short windows left out);  dx = Σ over the windows a pixel lies in of dy / |window|.

    Both directions select the taps inside each window (no 0/1 window matrix: a nan or inf would
    reach every output through 0 · nan), so a nan reaches only the windows that hold it, as PyTorch.
    """

    node_name = "AdaptiveAvgPool2DBackward0"

    @staticmethod
    def forward(ctx, input, output_size):  # noqa: A002 (PyTorch's name)
        x = input.array
        xp = get_array_module(x)
        ctx.save_for_backward(input)  # for the backward's edge and shape, as PyTorch saves it
        if output_size == (1, 1):  # the global average pool of ResNet & co.
            ctx.windows = None
            return Tensor(x.mean(axis=(-2, -1), keepdims=True))
        rows = _window_taps(xp, x.shape[-2], output_size[0])
        cols = _window_taps(xp, x.shape[-1], output_size[1])
        inside = (_window_inside(xp, x.shape[-2], output_size[0])[:, :, None, None]
                  & _window_inside(xp, x.shape[-1], output_size[1]))          # (oh, Kh, ow, Kw)
        counts = inside.sum(axis=(1, 3)).astype(x.dtype)
        ctx.windows = (rows, cols, inside, counts)
        taps = x[..., rows, :][..., cols]                                   # (…, oh, Kh, ow, Kw)
        return Tensor(xp.where(inside, taps, x.dtype.type(0)).sum(axis=(-3, -1)) / counts)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return AdaptiveAvgPool2dBackward.apply(grad_output, x, ctx.windows), None


class AdaptiveAvgPool2dBackward(Function):
    """dx = Σ over the windows a pixel lies in of δ / |window|: linear in δ, and its adjoint is the
    adaptive average pooling itself, so d⟨dx, ε⟩/dδ = adaptive_avg_pool2d(ε)."""

    node_name = "AdaptiveAvgPool2DBackwardBackward0"
    graph_inputs = (0, 1)  # grad_output and input (whose gradient is 0), as PyTorch's node

    @staticmethod
    def forward(ctx, grad_output, input, windows):  # noqa: A002 (PyTorch's name)
        _check_not_empty(grad_output, "adaptive_avg_pool2d_backward")
        g = grad_output.array
        input_shape = tuple(input.shape)
        xp = get_array_module(g)
        ctx.output_size = tuple(g.shape[-2:])
        height, width = input_shape[-2:]
        if windows is None:
            return Tensor(xp.broadcast_to(g / (height * width), input_shape).copy())
        rows, cols, inside, counts = windows
        shares = (g / counts)[..., :, None, :, None]                         # (…, oh, 1, ow, 1)
        shares = grad_where(inside, xp.broadcast_to(shares, g.shape[:-2] + inside.shape))
        planes = g.size // max(g.shape[-1] * g.shape[-2], 1)
        flat = rows[:, :, None, None] * width + cols                         # (oh, Kh, ow, Kw) into H·W
        positions = (xp.arange(planes).reshape(-1, 1) * (height * width) + flat.reshape(1, -1)).reshape(-1)
        totals = xp.bincount(positions, weights=shares.reshape(-1).astype(xp.float64),
                             minlength=planes * height * width)
        return Tensor(totals.astype(g.dtype).reshape(input_shape))

    @staticmethod
    def backward(ctx, grad):
        return AdaptiveAvgPool2dFunction.apply(grad, ctx.output_size), None, None


class AdaptiveMaxPool2dFunction(Function):
    """y = the maximum of each adaptive window (gathered as (…, out_h, out_w, K_h·K_w) taps);
    dx: δ goes to the window's first maximum in scan order (its last nan, if any, as PyTorch), summed
    where windows overlap."""

    node_name = "AdaptiveMaxPool2DBackward0"

    @staticmethod
    def forward(ctx, input, output_size, return_indices):  # noqa: A002 (PyTorch's name)
        x = input.array
        xp = get_array_module(x)
        rows = _window_taps(xp, x.shape[-2], output_size[0])
        cols = _window_taps(xp, x.shape[-1], output_size[1])
        taps = x[..., rows, :][..., cols]                                   # (…, oh, Kh, ow, Kw)
        window = rows.shape[1] * cols.shape[1]  # not -1: an output size of 0 leaves nothing to infer it from
        taps = xp.moveaxis(taps, -3, -2).reshape(taps.shape[:-4] + tuple(output_size) + (window,))
        ctx.save_for_backward(input)  # for the backward's edge and shape, as PyTorch saves it
        if 0 in taps.shape:
            ctx.argmax = xp.zeros(taps.shape[:-1], dtype=xp.int64)
            out = Tensor(xp.empty(taps.shape[:-1], dtype=x.dtype))
            return _with_indices(ctx, out, ctx.argmax, return_indices)
        first = _scan_winner(xp, taps)
        kw = cols.shape[1]
        out_h, out_w = xp.arange(output_size[0])[:, None], xp.arange(output_size[1])
        h = rows[out_h, first // kw]
        w = cols[out_w, first % kw]
        ctx.argmax = (h * x.shape[-1] + w).astype(xp.int64)               # flat index into the H·W plane
        out = Tensor(xp.take_along_axis(taps, first[..., None], axis=-1)[..., 0])
        return _with_indices(ctx, out, ctx.argmax, return_indices)

    @staticmethod
    def backward(ctx, grad_output, grad_indices=None):
        (x,) = ctx.saved_tensors
        return AdaptiveMaxPool2dBackward.apply(grad_output, x, ctx.argmax), None, None


class AdaptiveMaxPool2dBackward(Function):
    """dx = δ added at each window's maximum (``argmax``, flat into the H·W plane): linear in δ, and
    piecewise constant in x, so d⟨dx, ε⟩/dδ = ε read at each window's maximum (as for max_pool2d)."""

    node_name = "AdaptiveMaxPool2DBackwardBackward0"
    graph_inputs = (0, 1)  # grad_output and input (whose gradient is 0), as PyTorch's node

    @staticmethod
    def forward(ctx, grad_output, input, argmax):  # noqa: A002 (PyTorch's name)
        _check_not_empty(grad_output, "adaptive_max_pool2d_backward")
        g = grad_output.array
        input_shape = tuple(input.shape)
        xp = get_array_module(g)
        ctx.argmax = argmax
        ctx.save_for_backward(input)
        plane = input_shape[-2] * input_shape[-1]
        planes = g.size // max(g.shape[-1] * g.shape[-2], 1)
        offsets = (xp.arange(planes) * plane).reshape(g.shape[:-2] + (1, 1))
        totals = xp.bincount((argmax + offsets).reshape(-1), weights=g.reshape(-1).astype(xp.float64),
                             minlength=planes * plane)
        return Tensor(totals.astype(g.dtype).reshape(input_shape))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _read_at(grad, Tensor(ctx.argmax)), _flat_in_input(ctx, x), None


def _scan_winner(xp: Any, taps: Any) -> Any:
    """Which tap wins each window by PyTorch's scan (a tap replaces the choice if strictly greater, or
    nan): the first maximum, or the last nan where the window holds one."""
    nans = taps != taps
    last_nan = taps.shape[-1] - 1 - nans[..., ::-1].argmax(axis=-1)
    return xp.where(nans.any(axis=-1), last_nan, taps.argmax(axis=-1))


def _with_indices(ctx: Any, out: Tensor, argmax: Any, return_indices: bool) -> Any:
    if not return_indices:
        return out
    indices = Tensor(argmax.copy())
    ctx.mark_non_differentiable(indices)
    return out, indices


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002 (PyTorch's name)
    """Mean over the adaptive windows of ``input`` (N, C, H, W) or (C, H, W), as ``F.adaptive_avg_pool2d``."""
    size = checks.adaptive_size(input, output_size, "adaptive_avg_pool2d")
    if tuple(size) == (1, 1) and input.dtype.is_floating_point:  # PyTorch takes the mean: MeanBackward1
        return input.mean((-2, -1), keepdim=True)
    return AdaptiveAvgPool2dFunction.apply(input, size)


def adaptive_max_pool2d(input: Tensor, output_size: Any,  # noqa: A002 (PyTorch's name)
                        return_indices: bool = False) -> Any:
    """Max over the adaptive windows of ``input`` (N, C, H, W) or (C, H, W), as ``F.adaptive_max_pool2d``;
    with ``return_indices``, also each maximum's flat index into its H·W input plane."""
    size = checks.adaptive_size(input, output_size, "adaptive_max_pool2d")
    return AdaptiveMaxPool2dFunction.apply(input, size, bool(return_indices))
