"""Joining tensors and cutting them into pieces: cat, stack, hstack, vstack, and the other way
split, chunk, unbind, narrow.

The pieces are views, as in PyTorch: basic-index reads (``a[..., start:stop]``). ``cat``'s backward
cuts the gradient into the inputs' pieces (:class:`Split`), ``stack``'s takes its slices
(:class:`Unbind`), and the other way round.
"""

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import indexing
from minigrad.ops import shape as shape_ops
from minigrad.ops._checks import joining as checks
from minigrad.ops._checks import shape as shape_checks
from minigrad.ops._util import array_of
from minigrad.tensor import Tensor, _normalize_dim

# --- joins ---------------------------------------------------------------------------------------------


class Cat(Function):
    """y = the inputs joined along ``axis``;   each input's gradient is its slice of dy (:class:`Split`)."""

    @staticmethod
    def forward(ctx, axis, dtype, *tensors):
        ctx.axis = axis
        ctx.sizes = [t.array.shape[axis] for t in tensors]
        xp = get_array_module(tensors[0])
        return Tensor(xp.concatenate([array_of(t, dtype) for t in tensors], axis=axis))

    @staticmethod
    def backward(ctx, grad):
        return (None, None, *Split.apply(grad, ctx.axis, ctx.sizes))


class Split(Function):
    """(y₁, y₂, ...) = consecutive slices of a along ``axis``, of ``sizes`` (views);   da = the dyᵢ joined
    again (:class:`Cat`). The backward of ``cat``, with PyTorch's ``split_with_sizes`` node."""

    node_name = "SplitWithSizesBackward0"

    @staticmethod
    def forward(ctx, a, axis, sizes):
        ctx.axis = axis
        index = [slice(None)] * a.ndim
        pieces, start = [], 0
        for size in sizes:
            index[axis] = slice(start, start + size)
            pieces.append(Tensor(a.array[tuple(index)]))
            start += size
        return tuple(pieces)

    @staticmethod
    def backward(ctx, *grads):
        return Cat.apply(ctx.axis, grads[0].dtype, *grads), None, None


class Stack(Function):
    """y = the inputs stacked along a new ``axis``;   input i's gradient is dy's slice i along ``axis``
    (:class:`Unbind`)."""

    @staticmethod
    def forward(ctx, axis, dtype, *tensors):
        ctx.axis = axis
        xp = get_array_module(tensors[0])
        arrays = [t.array for t in tensors]
        if axis == 0:  # ``array`` of equal-shape arrays is their stack, without a view of each first
            return Tensor(xp.array(arrays, dtype=dtype.numpy))
        return Tensor(xp.stack(arrays, axis=axis, dtype=dtype.numpy))

    @staticmethod
    def backward(ctx, grad):
        return (None, None, *Unbind.apply(grad, ctx.axis))


class Unbind(Function):
    """(y₀, y₁, ...) = a's slices along ``axis``, that axis removed (views);   da = the dyᵢ stacked again
    (:class:`Stack`). The backward of ``stack``, with PyTorch's ``unbind`` node."""

    @staticmethod
    def forward(ctx, a, axis):
        ctx.axis = axis
        return tuple(Tensor(piece) for piece in get_array_module(a).moveaxis(a.array, axis, 0))

    @staticmethod
    def backward(ctx, *grads):
        return Stack.apply(ctx.axis, grads[0].dtype, *grads), None


def cat(tensors: Any, dim: int = 0) -> Tensor:
    tensors = shape_checks.tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    dtype = _dtypes.result_type(*tensors)  # the skipped ones below count too, as in PyTorch
    # PyTorch skips 1-D empty tensors in cat (legacy behaviour)
    tensors = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)] or tensors[:1]
    axis = _normalize_dim(dim, tensors[0].ndim)
    checks.check_cat(tensors, axis)
    return Cat.apply(axis, dtype, *tensors)


def stack(tensors: Any, dim: int = 0) -> Tensor:
    """Join tensors of one shape along a new dimension ``dim``."""
    tensors = shape_checks.nonempty_tensor_list(tensors, "stack")
    checks.check_stack(tensors)
    axis = _normalize_dim(dim, tensors[0].ndim + 1)
    # of one shape, they promote as their distinct dtypes do: one tensor of each decides
    dtype = _dtypes.result_type(*{t.array.dtype: t for t in tensors}.values())
    return Stack.apply(axis, dtype, *tensors)


def hstack(tensors: Any) -> Tensor:
    """Join along dim 1 (dim 0 for 1-D tensors); 0-d tensors count as 1-D."""
    tensors = shape_checks.nonempty_tensor_list(tensors, "hstack")
    tensors = [shape_ops.reshape(t, 1) if t.ndim == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    """Join along dim 0, 0-d and 1-D tensors first made rows (1 × n)."""
    tensors = shape_checks.nonempty_tensor_list(tensors, "vstack")
    return cat([shape_ops.reshape(t, 1, -1) if t.ndim < 2 else t for t in tensors], 0)


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
