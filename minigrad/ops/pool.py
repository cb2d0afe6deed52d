"""Max pooling, and what every pooling shares: a reduction over the kh·kw strided views of the
(padded) input. Average pooling is in ``avg_pool.py``, adaptive pooling in ``adaptive_pool.py``.

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
from minigrad.ops._util import grad_where
from minigrad.ops.conv.geometry import Pair, window
from minigrad.performance.layout import empty_like_order, filled_like_order
from minigrad.performance.parallel import outer_axis, parallel_for
from minigrad.tensor import Tensor

__all__ = ["max_pool2d", "MaxPool2dFunction", "MaxPool2dBackward", "pool_output_size", "max_pool2d_forward",
           "max_pool2d_taps", "max_pool2d_backward"]


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
