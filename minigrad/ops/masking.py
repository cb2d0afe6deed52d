"""Selection by a mask or by flat positions, and writing back there: ``masked_select``, ``masked_scatter``,
``take``, ``put`` and ``index_put``; and along one dimension, ``select`` and ``index_fill``.

Selecting and writing are each other's adjoints, so each backward is the other operation:

    masked_select:   y = a[mask] (1-D)                 da = zeros with dy written at mask (masked_scatter)
    masked_scatter:  y = a with y[mask] = source[:k]   da = dy with zeros at mask,  dsource = dy[mask]
    take:            y = a.flatten()[index]            da = zeros with dy added at index (repeats add up)
    put:             y = a with y.flat[index] = source da = dy with zeros at index,  dsource = take(dy, index)
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from typing import Any

import numpy

from minigrad import dtypes as _dtypes
from minigrad._arguments import bool_argument, int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import indexing
from minigrad.ops import inplace as _inplace
from minigrad.ops._util import (
    TORCH_TYPE_NAMES,
    check_broadcast_shapes,
    check_tensor_arguments,
    converted_scalar,
    product,
)
from minigrad.ops.elementwise import where
from minigrad.ops.joining import cat
from minigrad.ops.scatter import _sum_at
from minigrad.tensor import Tensor, _normalize_dim

_INT64 = _dtypes.int64.numpy


def _broadcast_mask(function: str, a: Tensor, mask: Tensor) -> tuple:
    """(the common shape, the mask's array broadcast to it); a mask must be bool, as in PyTorch."""
    if mask.dtype is not _dtypes.bool:
        raise RuntimeError(f"{function}: expected BoolTensor for mask")
    check_broadcast_shapes(tuple(a.shape), tuple(mask.shape))
    shape = tuple(numpy.broadcast_shapes(tuple(a.shape), tuple(mask.shape)))  # sizes only, no data
    return shape, get_array_module(a).broadcast_to(mask.array, shape)


class MaskedSelect(Function):
    """y = a[mask] (a and mask broadcast together; y is 1-D, in row-major order);
    da = zeros (of the broadcast shape) with dy written where mask is true (summed to a's shape by the
    engine)."""

    @staticmethod
    def forward(ctx, a, mask, shape):
        xp = get_array_module(a)
        ctx.mask, ctx.shape = mask, shape
        return Tensor(xp.broadcast_to(a.array, shape)[mask])

    @staticmethod
    def backward(ctx, grad):
        zeros = Tensor(get_array_module(grad).zeros(ctx.shape, dtype=grad.array.dtype))
        return MaskedScatter.apply(zeros, ctx.mask, grad), None, None


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``input`` where ``mask`` is true, as a 1-D tensor (the two broadcast together)."""
    check_tensor_arguments("masked_select", {"input": input, "mask": mask})
    shape, full_mask = _broadcast_mask("masked_select", input, mask)
    return MaskedSelect.apply(input, full_mask, shape)


class MaskedScatter(Function):
    """y = a with the positions where mask is true filled, in row-major order, by source's first k elements
    (k = the number of true entries);   da = dy with zeros where mask is true,
    dsource = dy[mask] followed by zeros for source's unused elements, in source's shape."""

    @staticmethod
    def forward(ctx, a, mask, source):
        count = int(mask.sum())
        if source.numel() < count:
            raise RuntimeError(f"masked_scatter: expected source to have at least {count} elements (the "
                               f"number of true values in mask), but got {source.numel()}")
        ctx.mask, ctx.source_shape, ctx.count = mask, tuple(source.shape), count
        out = get_array_module(a).broadcast_to(a.array, mask.shape).copy()
        out[mask] = source.array.reshape(-1)[:count]
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        mask = Tensor(ctx.mask)
        grad_a = where(mask, 0.0, grad) if ctx.needs_input_grad[0] else None
        grad_source = None
        if ctx.needs_input_grad[2]:
            picked = MaskedSelect.apply(grad, ctx.mask, tuple(grad.shape))
            unused = product(ctx.source_shape) - ctx.count
            if unused:
                zeros = Tensor(get_array_module(grad).zeros((unused,), dtype=grad.array.dtype))
                picked = cat([picked, zeros], 0)
            grad_source = picked.reshape(ctx.source_shape)
        return grad_a, None, grad_source


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with the elements where ``mask`` is true replaced, in order, by ``source``'s."""
    check_tensor_arguments("masked_scatter", {"input": input, "mask": mask, "source": source})
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but got "
                           f"{TORCH_TYPE_NAMES[input.dtype.name]} and {TORCH_TYPE_NAMES[source.dtype.name]}")
    _, full_mask = _broadcast_mask("masked_scatter_", input, mask)
    return MaskedScatter.apply(input, full_mask, source)


def masked_scatter_(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return _inplace.apply(input, "masked_scatter_", lambda t: masked_scatter(t, mask, source), source)


# --- take and put: the tensor as one flat row ---------------------------------------------------

def _flat_index(function: str, a: Tensor, index: Tensor) -> Any:
    """``index`` as non-negative int64 positions into ``a.flatten()``, checked (negative ones count from the
    end, as in PyTorch)."""
    if index.dtype is not _dtypes.int64:
        raise RuntimeError(f"{function}(): Expected a long tensor for index, but got "
                           f"{TORCH_TYPE_NAMES[index.dtype.name]}")
    n = a.numel()
    positions = index.array.astype(_INT64, copy=False)
    if positions.size:
        low, high = int(positions.min()), int(positions.max())
        if low < -n or high >= n:
            bad = high if high >= n else low
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return positions % max(n, 1)


class Take(Function):
    """y = a.flatten()[index] (y has index's shape);   da = zeros with dy added at index (repeats add up)."""

    @staticmethod
    def forward(ctx, a, positions):
        ctx.positions, ctx.input_shape = positions, tuple(a.shape)
        return Tensor(a.array.reshape(-1)[positions])

    @staticmethod
    def backward(ctx, grad):
        zeros = Tensor(get_array_module(grad).zeros(ctx.input_shape, dtype=grad.array.dtype))
        return Put.apply(zeros, ctx.positions, grad, True), None


def take(input: Tensor, index: Tensor) -> Tensor:
    """``input`` read as a 1-D row at ``index`` (any shape; negative positions count from the end)."""
    check_tensor_arguments("take", {"input": input, "index": index})
    return Take.apply(input, _flat_index("take", input, index))


class Put(Function):
    """y = a with y.flat[index] = source (``accumulate``: += source, repeats adding up);
    da = dy (with zeros at index unless accumulating),  dsource = dy.flat[index]."""

    @staticmethod
    def forward(ctx, a, positions, source, accumulate):
        xp = get_array_module(a)
        ctx.positions, ctx.accumulate, ctx.source_shape = positions, accumulate, tuple(source.shape)
        out = a.array.copy().reshape(-1)
        values = source.array.reshape(-1).astype(out.dtype, copy=False)
        if accumulate:  # repeated positions add up (CuPy-safe: no add.at)
            out += _sum_at(xp, values, out.shape, (positions.reshape(-1),))
        else:
            out[positions.reshape(-1)] = values
        return Tensor(out.reshape(a.array.shape))

    @staticmethod
    def backward(ctx, grad):
        grad_a = grad_source = None
        if ctx.needs_input_grad[0]:
            if ctx.accumulate:
                grad_a = grad
            else:
                zeros = Tensor(get_array_module(grad).zeros(ctx.positions.shape, dtype=grad.array.dtype))
                grad_a = Put.apply(grad, ctx.positions, zeros, False)
        if ctx.needs_input_grad[2]:
            grad_source = Take.apply(grad, ctx.positions.reshape(ctx.source_shape))
        return grad_a, None, grad_source, None


class IndexPutAccumulate(Put):
    """``index_put(..., accumulate=True)``: ``put`` with accumulation, under PyTorch's node name."""

    node_name = "IndexPutBackward0"


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``source``'s elements written at the flat positions ``index`` (added, with
    ``accumulate=True``); index and source have as many elements."""
    check_tensor_arguments("put", {"input": input, "index": index, "source": source})
    accumulate = bool_argument(accumulate, "put", "accumulate")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {TORCH_TYPE_NAMES[input.dtype.name]} and source.dtype = "
                           f"{TORCH_TYPE_NAMES[source.dtype.name]}")
    return Put.apply(input, _flat_index("put_", input, index).reshape(-1), source, accumulate)


def put_(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return _inplace.apply(input, "put_", lambda t: put(t, index, source, accumulate), source)


# --- index_put: a[indices] = values as a function -----------------------------------------------

def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``input[indices] = values`` (``indices`` a tuple of index tensors, as
    ``__setitem__`` takes them); ``accumulate=True`` adds instead, repeated positions adding up (the
    same as ``put`` with accumulate on the flat positions those indices name)."""
    check_tensor_arguments("index_put", {"input": input, "values": values})
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 2) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    if not accumulate:
        return indexing.index_put(input, tuple(indices), values)
    xp = get_array_module(input)
    flat = Tensor(xp.arange(input.numel(), dtype=_INT64).reshape(input.shape))
    positions = flat[tuple(indices)]  # the flat positions the indices name, in indexing's shape
    source = values.to(input.dtype).expand(positions.shape).reshape(-1)
    return IndexPutAccumulate.apply(input, positions.array.reshape(-1), source, True)


def index_put_(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    return _inplace.apply(input, "index_put_", lambda t: index_put(t, indices, values, accumulate), values)


# --- select and index_fill: one position, or a set of them, along a dimension --------------------

def select(input: Tensor, dim: int, index: int) -> Tensor:
    """``input`` at ``index`` along ``dim``, that dimension dropped: ``x.select(1, i)`` is ``x[:, i]``,
    a view (its backward writes dy back at that position, zeros elsewhere)."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _normalize_dim(int_argument(dim, "select", "dim"), input.ndim)
    index = int_argument(index, "select", "index", position=2)
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} "
                         f"at dimension {dim}")
    return input[(slice(None),) * dim + (index,)]


class IndexFill(Function):
    """y = a with ``value`` at the positions ``index`` along a dimension (``mask``: those positions,
    shaped to broadcast against a);   da = dy with zeros there (itself an index_fill)."""

    graph_inputs = (0,)  # the mask and the value are no inputs of PyTorch's node

    @staticmethod
    def forward(ctx, a, mask, value):
        ctx.mask = mask
        xp = get_array_module(a)
        return Tensor(xp.where(mask, xp.asarray(value, dtype=a.array.dtype), a.array))

    @staticmethod
    def backward(ctx, grad):
        return IndexFill.apply(grad, ctx.mask, 0), None, None


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` with ``value`` (a number or 0-d tensor) at positions ``index`` (int64, a
    scalar or vector) along ``dim``."""
    check_tensor_arguments("index_fill", {"input": input, "index": index})
    dim = _normalize_dim(int_argument(dim, "index_fill", "dim"), input.ndim)
    if index.dtype is not _dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = input.shape[dim] if input.ndim else 1
    xp = get_array_module(input)
    positions = index.array.reshape(-1)
    bad = positions[(positions < -size) | (positions >= size)]
    if bad.size:
        raise IndexError(f"index {int(bad[0])} is out of bounds for dimension {dim} with size {size}")
    mask = xp.zeros(size, dtype=bool)
    mask[positions] = True  # negative positions count from the end, as PyTorch's
    mask = mask.reshape((size,) + (1,) * (input.ndim - dim - 1)) if input.ndim else mask.reshape(())
    if isinstance(value, Tensor):
        if value.requires_grad:  # differentiable in value too (PyTorch's IndexFillBackward1)
            return where(Tensor(mask), value.to(input.dtype), input)
        value = value.item()
    return IndexFill.apply(input, mask, converted_scalar(value, input.dtype))


def index_fill_(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _inplace.apply(input, "index_fill_", lambda t: index_fill(t, dim, index, value), value)
