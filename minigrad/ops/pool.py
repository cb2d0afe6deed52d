"""Max and average pooling: a reduction over the kh·kw strided views of the (padded) input.

For each kernel tap (i, j) the slice ``x_pad[..., i·d + s·h, j·d + s·w]`` (all h, w at
once) is one view; pooling combines these kh·kw views elementwise:

    max pool:  y = max_(i,j) view_ij               (padding is −∞, so it never wins)
    avg pool:  y = Σ_(i,j) view_ij / divisor       (padding is 0)

and the backward adds δ back onto the same views: for max, only where that tap was
the window's *first* maximum in scan order (PyTorch's rule, which makes ties
deterministic); for avg, δ / divisor everywhere. Sizes follow PyTorch, ceil_mode
included: a last, partial window is kept if it starts inside the input or left padding.
"""

from __future__ import annotations

from typing import Any

from minigrad._arguments import pair_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._checks import pool as checks
from minigrad.ops._util import grad_where, ieee_results
from minigrad.ops.conv.geometry import Pair, integer_size, window
from minigrad.performance.layout import empty_like_order, filled_like_order
from minigrad.performance.parallel import outer_axis, parallel_for
from minigrad.tensor import Tensor

__all__ = ["max_pool2d", "avg_pool2d", "MaxPool2dFunction", "AvgPool2dFunction",
           "pool_output_size", "max_pool2d_forward", "max_pool2d_taps", "max_pool2d_backward",
           "avg_pool2d_forward", "avg_pool2d_backward", "adaptive_avg_pool2d", "adaptive_max_pool2d",
           "AdaptiveAvgPool2dFunction", "AdaptiveMaxPool2dFunction", "adaptive_windows", "MaxPool2dBackward",
           "AvgPool2dBackward", "AdaptiveAvgPool2dBackward", "AdaptiveMaxPool2dBackward"]


def pool_output_size(size: int, kernel: int, stride: int, padding: int, dilation: int,
                     ceil_mode: bool) -> int:
    """⌊ or ⌈ (size + 2p − d(k−1) − 1) / s ⌉ + 1; ceil_mode drops a window starting in the right padding."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def _output_shape(shape: tuple, kernel_size: Pair, stride: Pair, padding: Pair, dilation: Pair,
                  ceil_mode: bool) -> Pair:
    height, width = (pool_output_size(shape[axis - 2], kernel_size[axis], stride[axis], padding[axis],
                                      dilation[axis], ceil_mode) for axis in (0, 1))
    return height, width


def _framed_size(input_size: Pair, out_shape: Pair, kernel_size: Pair, stride: Pair, padding: Pair,
                 dilation: Pair) -> Pair:
    """(H, W) of the input framed by ``padding`` on each side, plus what a ceil_mode window overhangs."""
    needed = [(out_shape[a] - 1) * stride[a] + dilation[a] * (kernel_size[a] - 1) + 1 for a in (0, 1)]
    return (max(needed[0], input_size[0] + 2 * padding[0]), max(needed[1], input_size[1] + 2 * padding[1]))


def _padded(x: Any, out_shape: Pair, kernel_size: Pair, stride: Pair, padding: Pair, dilation: Pair,
            fill: Any) -> Any:
    """``x`` framed by ``fill``: ``padding`` on each side, plus what a ceil_mode window overhangs."""
    height, width = x.shape[-2:]
    size = _framed_size((height, width), out_shape, kernel_size, stride, padding, dilation)
    if size == (height, width):
        return x
    framed = filled_like_order(x, x.shape[:-2] + size, fill, x.dtype)   # in x's memory order
    framed[..., padding[0]:padding[0] + height, padding[1]:padding[1] + width] = x
    return framed


def _taps(out_shape: Pair, kernel_size: Pair, stride: Pair, dilation: Pair) -> Any:
    """Yield ``(tap number, slice of the padded input)`` for every kernel tap in scan order."""
    for i in range(kernel_size[0]):
        rows = window(i * dilation[0], out_shape[0], stride[0])
        for j in range(kernel_size[1]):
            yield i * kernel_size[1] + j, (Ellipsis, rows, window(j * dilation[1], out_shape[1], stride[1]))


def _by_planes(x: Any, passes: int, fn: Any) -> None:
    """``fn(part)`` for index tuples ``part`` that cut the leading (batch, channel) axes of ``x`` into
    pieces, run concurrently on minigrad's threads (``performance/parallel.py``) where ``x`` is large.

    Every (H, W) plane is pooled on its own, so the pieces give the same numbers as one whole.
    ``passes``: about how many times the work goes over ``x``'s bytes.
    """
    if x.ndim < 3:
        fn((Ellipsis,))
        return
    axis = outer_axis(x, range(x.ndim - 2))
    before = (slice(None),) * axis
    parallel_for(get_array_module(x), x.shape[axis], passes * x.nbytes // max(x.shape[axis], 1),
                 lambda start, stop: fn(before + (slice(start, stop),)))


def _lowest(xp: Any, dtype: Any) -> Any:
    """The padding value of max pooling: −∞, or the smallest integer."""
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


# --- max pooling: arrays ---------------------------------------------------------------------------

def max_pool2d_forward(x: Any, kernel_size: Pair, stride: Pair, padding: Pair, dilation: Pair,
                       ceil_mode: bool) -> Any:
    """y = max over the kh·kw tap views of x padded with −∞; ``x`` is (..., H, W)."""
    xp = get_array_module(x)
    out_shape = _output_shape(x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    out = empty_like_order(x, x.shape[:-2] + out_shape, x.dtype)

    def pool(part: tuple) -> None:
        framed = _padded(x[part], out_shape, kernel_size, stride, padding, dilation, _lowest(xp, x.dtype))
        piece = out[part]
        for tap, view in _taps(out_shape, kernel_size, stride, dilation):
            if tap == 0:
                piece[...] = framed[view]
            else:
                xp.maximum(piece, framed[view], out=piece)

    _by_planes(x, 2, pool)
    return out


def _first_valid_tap(out_shape: Pair, kernel_size: Pair, stride: Pair, padding: Pair, dilation: Pair,
                     xp: Any) -> Any:
    """For each output, the first tap in scan order that lies inside the input (not the padding)."""
    first = []
    for axis in (0, 1):
        start = xp.arange(out_shape[axis]) * stride[axis] - padding[axis]      # where each window starts
        first.append(xp.maximum(-(start // dilation[axis]), 0))                # ⌈−start / d⌉, at least 0
    return first[0][:, None] * kernel_size[1] + first[1][None, :]


def max_pool2d_taps(x: Any, kernel_size: Pair, stride: Pair, padding: Pair, dilation: Pair,
                    ceil_mode: bool) -> Any:
    """Which tap (i·kw + j) holds each window's maximum, by PyTorch's scan rule.

    Taps are visited in order and one replaces the current choice if its value is
    strictly greater (so ties keep the first) or is NaN (so NaN propagates). A window
    of −∞ only keeps its first tap inside the input.
    """
    xp = get_array_module(x)
    out_shape = _output_shape(x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    framed = _padded(x, out_shape, kernel_size, stride, padding, dilation, _lowest(xp, x.dtype))
    best = xp.full(x.shape[:-2] + out_shape, _lowest(xp, x.dtype), dtype=x.dtype)
    chosen = _first_valid_tap(out_shape, kernel_size, stride, padding, dilation, xp)
    chosen = xp.broadcast_to(chosen.astype(xp.int32), best.shape).copy()
    for tap, view in _taps(out_shape, kernel_size, stride, dilation):
        values = framed[view]
        better = (values > best) | (values != values)                         # NaN != NaN
        best = xp.where(better, values, best)
        chosen = xp.where(better, xp.int32(tap), chosen)
    return chosen


def max_pool2d_indices(taps: Any, input_size: Pair, kernel_size: Pair, stride: Pair, padding: Pair,
                       dilation: Pair) -> Any:
    """Tap numbers -> flat indices into the H·W input plane (PyTorch's ``return_indices``)."""
    xp = get_array_module(taps)
    out_h, out_w = taps.shape[-2:]
    i, j = taps // kernel_size[1], taps % kernel_size[1]
    rows = xp.arange(out_h)[:, None] * stride[0] - padding[0] + i * dilation[0]
    cols = xp.arange(out_w)[None, :] * stride[1] - padding[1] + j * dilation[1]
    return (rows * input_size[1] + cols).astype(xp.int64)


def max_pool2d_backward(grad_out: Any, x: Any, kernel_size: Pair, stride: Pair, padding: Pair,
                        dilation: Pair, ceil_mode: bool, out: Any = None) -> Any:
    """dx: each δ goes to its window's first maximum, added tap by tap onto that tap's view.

    With the forward's output ``out``, a tap holds the maximum where it equals ``out`` and
    no earlier tap did; without it (or when a window's maximum is −∞, which the padding
    shares, or NaN, which equals nothing) the winning taps are recomputed by
    :func:`max_pool2d_taps`.
    """
    xp = get_array_module(grad_out)
    if out is not None and not _has_non_finite(out):
        return _max_pool2d_backward_from_output(grad_out, x, out, kernel_size, stride, padding, dilation)
    taps = max_pool2d_taps(x, kernel_size, stride, padding, dilation, ceil_mode)
    out_shape = taps.shape[-2:]
    grad = _padded(xp.zeros(x.shape, dtype=grad_out.dtype), out_shape, kernel_size, stride, padding,
                   dilation, 0)
    zero = xp.zeros((), dtype=grad_out.dtype)
    for tap, view in _taps(out_shape, kernel_size, stride, dilation):
        grad[view] += xp.where(taps == tap, grad_out, zero)
    height, width = x.shape[-2:]
    return grad[..., padding[0]:padding[0] + height, padding[1]:padding[1] + width]


def _like(template: Any, values: Any) -> Any:
    """``values`` copied into an array laid out in memory as ``template`` is."""
    copy = get_array_module(values).empty_like(template, dtype=values.dtype)
    copy[...] = values
    return copy


def _has_non_finite(out: Any) -> bool:
    """True if some window's maximum is −∞ (or the lowest integer) or NaN: then the taps are recomputed.

    One pass: +∞, which would not need it, also takes the slower path.
    """
    xp = get_array_module(out)
    if out.dtype.kind == "f":
        return not bool(xp.isfinite(out).all())
    return bool((out == _lowest(xp, out.dtype)).any())


def _max_pool2d_backward_from_output(grad_out: Any, x: Any, out: Any, kernel_size: Pair, stride: Pair,
                                     padding: Pair, dilation: Pair) -> Any:
    """dx routed by comparing each tap's view with the saved maximum, first tap first.

    Four passes a tap: compare, drop what an earlier tap took, remember what is taken, and
    write δ where hit (selected: a nan δ reaches only its maximum). Windows that do not overlap
    (stride ≥ extent) write their views directly; overlapping ones add up.
    """
    xp = get_array_module(grad_out)
    out_shape = out.shape[-2:]
    size = _framed_size(x.shape[-2:], out_shape, kernel_size, stride, padding, dilation)
    overlapping = any(stride[a] < dilation[a] * (kernel_size[a] - 1) + 1 for a in (0, 1))
    # Windows that tile the input exactly (2x2 stride 2 on an even size) write every element below.
    tiling = all(stride[a] == kernel_size[a] and dilation[a] == 1 and out_shape[a] * stride[a] == size[a]
                 for a in (0, 1))
    grad = empty_like_order(x, x.shape[:-2] + size, grad_out.dtype)   # in x's memory order, as `out` is
    last_tap = kernel_size[0] * kernel_size[1] - 1

    def route(part: tuple) -> None:
        framed = _padded(x[part], out_shape, kernel_size, stride, padding, dilation, _lowest(xp, x.dtype))
        maxima, delta, piece = out[part], grad_out[part], grad[part]
        if delta.strides != maxima.strides:   # one copy into out's memory order beats mixed-order passes
            delta = _like(maxima, delta)
        if not tiling:
            piece.fill(0)
        taken = None
        for tap, view in _taps(out_shape, kernel_size, stride, dilation):
            hit = framed[view] == maxima
            if taken is None:
                taken = hit
            else:
                xp.greater(hit, taken, out=hit)          # hit and not taken before: ties go to the first tap
                if tap < last_tap:
                    taken |= hit
            if overlapping:
                piece[view] += grad_where(hit, delta)
            else:
                grad_where(hit, delta, out=piece[view])   # written in place: no temporary

    _by_planes(x, 2 + kernel_size[0] * kernel_size[1], route)
    height, width = x.shape[-2:]
    return grad[..., padding[0]:padding[0] + height, padding[1]:padding[1] + width]


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


# --- autograd Functions and the public functions ---------------------------------------------------

def _pool_pair(value: Any, name: str, function: str) -> Pair:
    """An int or a sequence of one or two ints, as the pair (along height, along width)."""
    return pair_argument(value, name, function, "{function}: {name} must either be a single int, or a tuple "
                                                "of two ints, but got {name}={values}")


class MaxPool2dFunction(Function):
    """y = max over each window;   dx: δ goes to the window's first maximum (tap by tap)."""

    node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):  # noqa: A002
        x = input.array
        ctx.settings = (kernel_size, stride, padding, dilation, ceil_mode)
        out = Tensor(max_pool2d_forward(x, *ctx.settings))
        ctx.save_for_backward(input, out)
        if not return_indices:
            return out
        taps = max_pool2d_taps(x, *ctx.settings)
        indices = Tensor(max_pool2d_indices(taps, x.shape[-2:], kernel_size, stride, padding, dilation))
        ctx.mark_non_differentiable(indices)
        return out, indices

    @staticmethod
    def backward(ctx, grad_output, grad_indices=None):
        x, out = ctx.saved_tensors
        return MaxPool2dBackward.apply(grad_output, x, out, *ctx.settings), None, None, None, None, None, None


class MaxPool2dBackward(Function):
    """dx = δ routed to each window's first maximum (:func:`max_pool2d_backward`), a function of δ and x.

    Linear in δ, and piecewise constant in x (a small change of x does not move the maxima):

        d⟨dx, ε⟩/dδ = ε read at each window's maximum,      d⟨dx, ε⟩/dx = 0.
    """

    node_name = "MaxPool2DWithIndicesBackwardBackward0"
    graph_inputs = (0, 1)  # grad_output and input, as PyTorch's node

    @staticmethod
    def forward(ctx, grad_output, input, output, kernel_size, stride, padding, dilation,  # noqa: A002
                ceil_mode):
        ctx.settings = (kernel_size, stride, padding, dilation, ceil_mode)
        ctx.save_for_backward(input)
        return Tensor(max_pool2d_backward(grad_output.array, input.array, *ctx.settings, out=output.array))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        kernel_size, stride, padding, dilation, _ = ctx.settings
        taps = max_pool2d_taps(x.array, *ctx.settings)
        indices = Tensor(max_pool2d_indices(taps, x.shape[-2:], kernel_size, stride, padding, dilation))
        return _read_at(grad, indices), _flat_in_input(ctx, x), None, None, None, None, None, None


def _flat_in_input(ctx: Any, x: Tensor) -> Tensor | None:
    """d(dx)/dx of a max-pooling backward: exactly zero (not None: x's graph is used, as PyTorch's)."""
    return Tensor(get_array_module(x).zeros_like(x.array)) if ctx.needs_input_grad[1] else None


def _read_at(grad: Tensor, indices: Tensor) -> Tensor:
    """``grad`` (..., H, W) read at the flat H·W ``indices`` (..., h, w), as max_pool_double_backward."""
    return grad.flatten(-2).gather(-1, indices.flatten(-2)).view(indices.shape)


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


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002 (PyTorch's name)
               padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:
    """Max over (dilated) windows of ``input`` (N, C, H, W) or (C, H, W), as ``F.max_pool2d``.

    With ``return_indices``, also each maximum's flat index into its H·W input plane.
    """
    name = "max_pool2d"
    kernel_size = _pool_pair(kernel_size, "kernel_size", name)
    stride = kernel_size if stride is None or stride == [] or stride == () else \
        _pool_pair(stride, "stride", name)
    padding, dilation = _pool_pair(padding, "padding", name), _pool_pair(dilation, "dilation", name)
    checks.check_pool(input, kernel_size, stride, padding, dilation)
    checks.check_output_size(input, _output_shape(input.shape, kernel_size, stride, padding, dilation,
                                                  ceil_mode))
    checks.check_dtype(input, name)
    return MaxPool2dFunction.apply(input, kernel_size, stride, padding, dilation, bool(ceil_mode),
                                   bool(return_indices))


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
