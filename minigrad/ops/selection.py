"""More shape and selection operations: pieces (chunk, split, unbind, narrow), rearrangements
(flip, roll, repeat, repeat_interleave, movedim, swapaxes), picks (index_select, masked_fill,
tril/triu, diag) and joins (hstack, vstack).

Views where PyTorch returns views: narrow and the pieces of chunk/split/unbind are basic-index
reads (``a[..., start:stop]``), movedim/swapaxes are permutes. Everything else is a copy whose
backward moves the gradient back the way the forward moved the numbers.
"""

from __future__ import annotations

import math
from typing import Any

from minigrad._arguments import int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import indexing, inplace
from minigrad.ops import shape as shape_ops
from minigrad.ops._checks import selection as checks
from minigrad.ops._checks import shape as shape_checks
from minigrad.ops._util import converted_scalar
from minigrad.ops.reduction import SumDims
from minigrad.ops.shape import View
from minigrad.tensor import Tensor, _normalize_dim

# --- pieces: views of one dimension ----------------------------------------------------------


def _along(dim: int, part: Any) -> tuple:
    """The basic-index key that applies ``part`` (an int or a slice) to dimension ``dim``."""
    return (slice(None),) * dim + (part, Ellipsis)


def narrow(a: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The view ``a[..., start:start + length]`` along ``dim`` (``start`` may be negative)."""
    dim, start, length = checks.narrow_arguments(a, dim, start, length)
    return indexing.getitem(a, _along(dim, slice(start, start + length)))


def _multi_output(pieces: list, node_name: str) -> tuple:
    """The views of PyTorch's split and unbind (``node_name``: its one node for all pieces)."""
    return tuple(indexing.mark_multi_output(piece, node_name, index) for index, piece in enumerate(pieces))


def _pieces(a: Tensor, dim: int, sizes: list, node_name: str) -> tuple:
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    return _multi_output([indexing.getitem(a, _along(dim, slice(start, start + n)))
                          for start, n in zip(starts, sizes)], node_name)


def split(a: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Pieces (views) of ``split_size_or_sections`` along ``dim`` (the last may be smaller), or of the
    listed sizes, which must add up to the dimension's size."""
    dim = checks.split_dim(a, dim)
    size = a.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = checks.split_sizes(split_size_or_sections, size, dim)
        return _pieces(a, dim, sizes, "SplitWithSizesBackward0")
    step = checks.split_size(split_size_or_sections, size)
    count = max(-(-size // step), 1) if step else 1  # a size-0 dimension splits into one empty piece
    return _pieces(a, dim, [min(step, size - k * step) for k in range(count)], "SplitBackward0")


def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple:
    """At most ``chunks`` pieces of ceil(size / chunks) along ``dim`` (views; fewer when that divides out)."""
    chunks = checks.chunks_argument(a, chunks)
    size = a.shape[_normalize_dim(dim, a.ndim)]
    if size == 0:  # ``chunks`` empty pieces, as PyTorch gives
        return split(a, [0] * chunks, dim)
    return split(a, -(-size // chunks), dim)


def unbind(a: Tensor, dim: int = 0) -> tuple:
    """The views ``a.select(dim, i)`` for every i: one dimension fewer each."""
    dim = checks.unbind_dim(a, dim)
    return _multi_output([indexing.getitem(a, _along(dim, i)) for i in range(a.shape[dim])],
                         "UnbindBackward0")


def movedim(a: Tensor, source: Any, destination: Any) -> Tensor:
    """The view with dimensions ``source`` moved to positions ``destination``; the others keep their order."""
    sources, targets = checks.movedim_axes(a, source, destination)
    if a.ndim == 0:
        return shape_ops.reshape(a, ())
    order = [None] * a.ndim
    for s, d in zip(sources, targets):
        order[d] = s
    rest = iter(d for d in range(a.ndim) if d not in sources)
    return shape_ops.permute(a, [d if d is not None else next(rest) for d in order])


def swapaxes(a: Tensor, axis0: int, axis1: int) -> Tensor:
    """The view with two dimensions exchanged (``transpose``)."""
    return shape_ops.transpose(a, axis0, axis1)


def broadcast_to(a: Tensor, size: Any) -> Tensor:
    """The view of ``a`` broadcast to ``size`` (``expand``)."""
    return shape_ops.expand(a, size)


# --- rearrangements: copies ----------------------------------------------------------------------


class Flip(Function):
    """y = a reversed along ``axes``;   da = dy reversed along them."""

    @staticmethod
    def forward(ctx, a, axes):
        ctx.axes = axes
        return Tensor(get_array_module(a).flip(a.array, axes).copy() if axes else a.array.copy())

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, ctx.axes), None


def flip(a: Tensor, *dims_args: Any, dims: Any = None) -> Tensor:
    """A copy of ``a`` with the order of elements reversed along ``dims``."""
    if dims is None:
        if not dims_args:
            raise TypeError('flip() missing 1 required positional arguments: "dims"')
        dims = dims_args[0] if len(dims_args) == 1 else dims_args
    axes = checks.distinct_axes(dims, a, "flip")
    return Flip.apply(a, axes if a.ndim else ())


class Roll(Function):
    """y = a shifted cyclically by ``shifts`` along ``axes``;   da = dy shifted back."""

    @staticmethod
    def forward(ctx, a, shifts, axes):
        ctx.shifts, ctx.axes = shifts, axes
        return Tensor(get_array_module(a).roll(a.array, shifts, axes))

    @staticmethod
    def backward(ctx, grad):
        return Roll.apply(grad, tuple(-s for s in ctx.shifts), ctx.axes), None, None


def roll(a: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """``a`` shifted cyclically along ``dims``; without ``dims``, the flattened ``a`` shifted and reshaped."""
    shifts, axes = checks.roll_arguments(a, shifts, dims)
    if axes is None:
        return shape_ops.reshape(roll(shape_ops.flatten(a), shifts, 0), a.shape)
    return Roll.apply(a, shifts, axes)


class Repeat(Function):
    """y = a tiled ``reps`` times along each dimension;   da = the sum of dy's tiles."""

    @staticmethod
    def forward(ctx, a, reps):
        ctx.reps, ctx.input_shape = reps, a.array.shape
        try:
            return Tensor(get_array_module(a).tile(a.array, reps) if reps else a.array.copy())
        except MemoryError:  # NumPy's; PyTorch's is a RuntimeError
            raise RuntimeError(f"can't allocate memory: repeat{tuple(reps)} of a tensor of shape "
                               f"{list(a.shape)} needs {a.element_size() * a.numel() * math.prod(reps)} "
                               "bytes") from None

    @staticmethod
    def backward(ctx, grad):
        lead = len(ctx.reps) - len(ctx.input_shape)
        shape = (1,) * lead + ctx.input_shape
        split_shape = tuple(n for r, s in zip(ctx.reps, shape) for n in (r, s))  # (r0, s0, r1, s1, ...)
        if not split_shape:  # a 0-d tensor, no repeats
            return grad, None
        tiles = View.apply(grad, split_shape)
        summed = SumDims.apply(tiles, tuple(range(0, len(split_shape), 2)), False, None)
        if summed.shape != ctx.input_shape:  # more repeats than dims: the leading 1s go
            summed = View.apply(summed, ctx.input_shape)
        return summed, None


def repeat(a: Tensor, *sizes: Any) -> Tensor:
    """``a`` tiled: ``sizes[i]`` copies along dimension i (more sizes than dims add leading dims)."""
    reps = shape_checks.sizes_argument(sizes)
    checks.check_repeat(a, reps)
    return Repeat.apply(a, reps)


class RepeatInterleave(Function):
    """y = each element of a along ``axis`` repeated ``repeats`` times in a row;   da = dy's runs summed."""

    @staticmethod
    def forward(ctx, a, repeats, axis):
        ctx.repeats, ctx.axis, ctx.input_shape = repeats, axis, a.array.shape
        return Tensor(get_array_module(a).repeat(a.array, repeats, axis=axis))

    @staticmethod
    def backward(ctx, grad):
        shape, axis = ctx.input_shape, ctx.axis
        split_shape = shape[:axis] + (shape[axis], ctx.repeats) + shape[axis + 1:]
        runs = View.apply(grad, split_shape)
        return SumDims.apply(runs, (axis + 1,), False, None), None, None


def repeat_interleave(a: Tensor, repeats: Any, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element repeated ``repeats`` (an int) times in a row along ``dim`` (of the flattened ``a`` if
    None): ``[1, 2]`` -> ``[1, 1, 2, 2]``."""
    repeats = checks.repeats_argument(repeats)
    if dim is None:
        a, axis = shape_ops.flatten(a), 0
    else:
        axis = _normalize_dim(int_argument(dim, "repeat_interleave", "dim"), a.ndim)
        if a.ndim == 0:
            a = shape_ops.reshape(a, 1)
    out = RepeatInterleave.apply(a, repeats, axis)
    checks.check_output_size(output_size, out, axis)
    return out


# --- picks -------------------------------------------------------------------------------------------


class IndexSelect(Function):
    """y = a's entries ``index`` along ``axis``;   da = dy added back at those entries (repeats add up)."""

    graph_inputs = (0,)  # the indices carry no gradient: PyTorch's node has one input

    @staticmethod
    def forward(ctx, a, index, axis):
        ctx.key, ctx.input_shape = _along(axis, index.array.reshape(-1)), a.array.shape
        return Tensor(get_array_module(a).take(a.array, index.array.reshape(-1), axis=axis) if a.ndim else
                    a.array.reshape(1)[index.array.reshape(-1)].reshape(()))

    @staticmethod
    def backward(ctx, grad):
        if not ctx.input_shape:
            return grad, None, None
        return indexing.GetItemBackward.apply(grad, ctx.input_shape, ctx.key, False, ctx.name()), None, None


def index_select(a: Tensor, dim: int, index: Tensor) -> Tensor:
    """The entries ``index`` (a 1-D int64/int32 tensor) of ``a`` along ``dim``, in that order (a copy)."""
    axis = checks.index_select_axis(a, dim, index)
    return IndexSelect.apply(a, index, axis)


class MaskedFill(Function):
    """y = value where mask, else a;   da = dy where not mask (0 where mask: itself a masked_fill),
    summed to a's shape by the engine."""

    graph_inputs = (0,)  # the mask carries no gradient: PyTorch's node has one input

    @staticmethod
    def forward(ctx, a, mask, value):
        ctx.mask = mask
        xp = get_array_module(a)
        return Tensor(xp.where(mask.array, xp.asarray(value, dtype=a.array.dtype), a.array))

    @staticmethod
    def backward(ctx, grad):
        return MaskedFill.apply(grad, ctx.mask, 0), None, None


def masked_fill(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    """A copy of ``a`` with ``value`` (a number or 0-d tensor) where the bool ``mask`` (broadcast) is True."""
    from minigrad.ops.elementwise import where  # noqa: PLC0415

    checks.check_mask(a, mask)
    checks.check_fill_value(value)
    if isinstance(value, Tensor):
        if value.requires_grad:  # differentiable in value too: where(mask, value, a)
            return where(mask, value.to(a.dtype), a)
        value = value.item()
    return MaskedFill.apply(a, mask, converted_scalar(value, a.dtype))  # uint8 takes -1 as 255, as PyTorch


def masked_fill_(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    """In-place :func:`masked_fill`, recorded as the other in-place ops are."""
    return inplace.apply(a, "masked_fill_", lambda t: masked_fill(t, mask, value), value)


class Triangle(Function):
    """y = a with the entries above (tril) or below (triu) diagonal ``k`` of the last two dims zeroed;
    da = dy zeroed the same way."""

    @staticmethod
    def forward(ctx, a, k, lower):
        ctx.k, ctx.lower = k, lower
        ctx._name = "TrilBackward0" if lower else "TriuBackward0"
        xp = get_array_module(a)
        return Tensor((xp.tril if lower else xp.triu)(a.array, k))

    @staticmethod
    def backward(ctx, grad):
        return Triangle.apply(grad, ctx.k, ctx.lower), None, None


def tril(a: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (j - i <= diagonal) of the last two dims; the rest zero."""
    checks.check_matrices(a, "tril")
    return Triangle.apply(a, int_argument(diagonal, "tril", "diagonal"), True)


def triu(a: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (j - i >= diagonal) of the last two dims; the rest zero."""
    checks.check_matrices(a, "triu")
    return Triangle.apply(a, int_argument(diagonal, "triu", "diagonal"), False)


def _diagonal_key(xp: Any, shape: tuple, k: int) -> tuple:
    """(rows, cols) of diagonal ``k`` of a matrix of ``shape``."""
    rows, cols = shape
    length = max(min(rows, cols - k) if k >= 0 else min(rows + k, cols), 0)
    start = xp.arange(length)
    return (start - min(k, 0), start + max(k, 0))


class Diag(Function):
    """1-D v -> the square matrix with v on diagonal k;  2-D m -> its diagonal k.
    Backward: the other way round (the diagonal of dy, or dy placed on the diagonal of zeros)."""

    @staticmethod
    def forward(ctx, a, k):
        xp = get_array_module(a)
        ctx.k, ctx.input_shape = k, a.array.shape
        if a.ndim == 1:
            n = a.shape[0] + abs(k)
            out = xp.zeros((n, n), dtype=a.array.dtype)
            out[_diagonal_key(xp, (n, n), k)] = a.array
            return Tensor(out)
        return Tensor(a.array[_diagonal_key(xp, a.array.shape, k)])

    @staticmethod
    def backward(ctx, grad):
        if len(ctx.input_shape) == 1:
            return Diag.apply(grad, ctx.k), None
        xp = get_array_module(grad)
        zeros = Tensor(xp.zeros(ctx.input_shape, dtype=grad.array.dtype))
        return indexing.IndexPut.apply(zeros, _diagonal_key(xp, ctx.input_shape, ctx.k), grad), None


def diag(a: Tensor, diagonal: int = 0) -> Tensor:
    """A vector to a square matrix with it on diagonal ``diagonal``; a matrix to that diagonal (a copy)."""
    checks.check_diag(a)
    return Diag.apply(a, int_argument(diagonal, "diag", "diagonal"))


# --- joins ---------------------------------------------------------------------------------------------


def hstack(tensors: Any) -> Tensor:
    """Join along dim 1 (dim 0 for 1-D tensors); 0-d tensors count as 1-D."""
    tensors = shape_checks.nonempty_tensor_list(tensors, "hstack")
    tensors = [shape_ops.reshape(t, 1) if t.ndim == 0 else t for t in tensors]
    return shape_ops.cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    """Join along dim 0, 0-d and 1-D tensors first made rows (1 × n)."""
    tensors = shape_checks.nonempty_tensor_list(tensors, "vstack")
    return shape_ops.cat([shape_ops.reshape(t, 1, -1) if t.ndim < 2 else t for t in tensors], 0)
