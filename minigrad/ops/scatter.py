"""gather and scatter along one dimension (``torch.gather``, ``scatter``, ``scatter_add``), and one_hot.

For a 3-D tensor and ``dim=1`` (``dim`` 0 and 2 alike; a 0-d tensor counts as 1-D):

    gather:       out[i][j][k] = input[i][index[i][j][k]][k]  (out has index's shape)
    scatter:      out[i][index[i][j][k]][k] = src[i][j][k]    (out starts as a copy of input)
    scatter_add:  out[i][index[i][j][k]][k] += src[i][j][k]   (repeated indices add up)

Each is one advanced-indexing read or write with the key ``(i, index, k)``: ``index`` along ``dim``
and, along every other dimension, each element's own position. So the backward of gather is a
scatter_add of the gradient, and the backward of a scatter is a gather of it.
"""

from __future__ import annotations

from typing import Any

import numpy  # dtype metadata only (iinfo, finfo), never tensor data

from minigrad import backend
from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import indexing, inplace
from minigrad.ops._checks import scatter as checks
from minigrad.ops._util import product
from minigrad.tensor import Tensor

# --- the key ----------------------------------------------------------------------------------

def _at_least_1d(array: Any) -> Any:
    """A 0-d array as 1-D (PyTorch's gather and scatter treat a 0-d tensor as one of size 1)."""
    return array.reshape(1) if array.ndim == 0 else array


def _grid_key(index: Any, dim: int) -> tuple:
    """The advanced-indexing key ``(i, index, k)`` (for dim 1): ``index`` along ``dim``, and along each
    other dimension d an ``arange`` shaped to broadcast along d, so element ``[i][j][k]`` of ``index``
    pairs with positions i and k."""
    xp = backend.get_array_module(index)
    ndim = index.ndim
    return tuple(index if d == dim else xp.arange(n).reshape([n if k == d else 1 for k in range(ndim)])
                 for d, n in enumerate(index.shape))


def _leading_block(shape: tuple) -> tuple:
    """``[:n0, :n1, ...]``: the part of src (or of its gradient) that an index of ``shape`` uses."""
    return tuple(slice(0, n) for n in shape)


def _sum_at(xp: Any, values: Any, shape: tuple, key: tuple) -> Any:
    """zeros(shape) with ``values`` added at ``[key]``, repeats summed (CuPy-safe: no ``add.at``).

    Floats and bools go through a float64 bincount (``indexing.scatter_add``); integers are summed
    exactly, as running sums over the positions sorted, read off at the end of each run.
    """
    if values.dtype.kind not in "iu":
        return indexing.scatter_add(xp, values, shape, key)
    size = product(shape)
    totals = xp.zeros(size, dtype=values.dtype)
    if values.size == 0:
        return totals.reshape(shape)
    positions = xp.arange(size).reshape(shape)[key].reshape(-1)
    order = xp.argsort(positions)
    positions, running = positions[order], xp.cumsum(values.reshape(-1)[order])
    last = xp.ones(positions.shape, dtype=bool)  # the last element of each run of one position
    last[:-1] = positions[1:] != positions[:-1]
    ends = running[last]
    starts = xp.concatenate([xp.zeros(1, dtype=ends.dtype), ends[:-1]])
    totals[positions[last]] = (ends - starts).astype(values.dtype)  # wraps on overflow, as PyTorch
    return totals.reshape(shape)


# --- the operations -------------------------------------------------------------------------------

class Gather(Function):
    """out = input[key], key = (i, index, k) for dim 1;   dinput = zeros with dout added at key
    (an element gathered twice gets both gradients): zeros.scatter_add(dim, index, dout)."""

    graph_inputs = (0,)  # the indices carry no gradient: PyTorch's node has one input

    @staticmethod
    def forward(ctx, a, index, dim):
        ctx.dim, ctx.input_shape = dim, a.shape
        ctx.save_for_backward(index)
        key = _grid_key(_at_least_1d(index.array), dim)
        return Tensor(_at_least_1d(a.array)[key].reshape(index.shape))

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        zeros = Tensor(get_array_module(grad).zeros(ctx.input_shape, dtype=grad.array.dtype))
        return ScatterAdd.apply(zeros, index, grad, ctx.dim), None, None


class Scatter(Function):
    """out = input with out[key] = src (or a number);   dinput = dout with zeros at key,  dsrc = dout[key].

    Where an index repeats, which value lands is unspecified (as in PyTorch).
    """

    @staticmethod
    def forward(ctx, a, index, src, dim, value):
        if src is None:
            ctx._name = "ScatterBackward1"  # PyTorch's name for the overload with a number
        ctx.dim, ctx.src_shape = dim, None if src is None else src.shape
        ctx.save_for_backward(index)
        index_1d = _at_least_1d(index.array)
        out = _at_least_1d(a.array).copy()
        if index_1d.size:  # (an empty index may be larger than src, which PyTorch then does not check)
            out[_grid_key(index_1d, dim)] = value if src is None else _at_least_1d(src.array)[
                _leading_block(index_1d.shape)]
        return Tensor(out.reshape(a.shape))

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        # the overwritten elements of input get no gradient: dout with 0 scattered there
        grad_a = Scatter.apply(grad, index, None, ctx.dim, 0) if ctx.needs_input_grad[0] else None
        grad_src = _gathered_grad(grad, index, ctx.dim, ctx.src_shape) if ctx.needs_input_grad[2] else None
        return grad_a, None, grad_src, None, None


class ScatterAdd(Function):
    """out = input with src added at key (repeats add up);   dinput = dout,  dsrc = dout[key]."""

    @staticmethod
    def forward(ctx, a, index, src, dim):
        ctx.dim, ctx.src_shape = dim, src.shape
        ctx.save_for_backward(index)
        index_1d = _at_least_1d(index.array)
        source = _at_least_1d(a.array)
        if not index_1d.size:
            return Tensor(a.array.copy())
        block = _at_least_1d(src.array)[_leading_block(index_1d.shape)]
        added = _sum_at(get_array_module(a), block, source.shape, _grid_key(index_1d, dim))
        return Tensor((source + added).reshape(a.shape))

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        grad_src = _gathered_grad(grad, index, ctx.dim, ctx.src_shape) if ctx.needs_input_grad[2] else None
        return grad, None, grad_src, None


def _gathered_grad(grad: Tensor, index: Tensor, dim: int, src_shape: tuple) -> Tensor:
    """dsrc = grad.gather(dim, index), padded with zeros to src's shape where src is larger than index
    (its other elements were never used; PyTorch refuses that backward instead)."""
    from minigrad.ops.padding import ConstantPad  # noqa: PLC0415 (padding is a sibling op module)

    picked = Gather.apply(grad, index, dim)
    if picked.shape == src_shape:
        return picked
    return ConstantPad.apply(picked, tuple((0, n - m) for n, m in zip(src_shape, picked.shape)), 0)


# --- the public functions ---------------------------------------------------------------------------

def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:  # noqa: A002
    """Values of ``input`` picked along ``dim`` by ``index``; the result has ``index``'s shape.

    ``out[i][j] = input[index[i][j]][j]`` for dim 0, ``out[i][j] = input[i][index[i][j]]`` for dim 1
    (3-D: ``out[i][j][k] = input[i][index[i][j][k]][k]`` for dim 1). ``index`` is an int64 (or int32)
    tensor with input's number of dimensions and index.size(d) <= input.size(d) for d != dim.
    Differentiable in input: its gradient is the output's scattered back, added where an index
    repeats. ``sparse_grad=True`` is accepted; the gradient is dense (minigrad has no sparse tensors).
    """
    dim = checks.dim_argument("gather", input, dim)
    checks.check_index_type("gather", index)
    if index.numel():
        checks.check_index_dtype("gather", index)
        checks.check_gather_shapes(input, dim, index)
        checks.check_bounds(index, checks.size_along(input, dim), dim)
    return Gather.apply(input, _integer(index), dim)


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,  # noqa: A002
            reduce: str | None = None) -> Tensor:
    """A copy of ``input`` with ``src``'s values (or the number ``value``) written where ``index`` points.

    ``out[index[i][j]][j] = src[i][j]`` for dim 0, ``out[i][index[i][j]] = src[i][j]`` for dim 1; only
    src's leading index-shaped block is used. ``index`` as for :func:`gather`, also index.size(d) <=
    src.size(d); src must have input's dtype. Where an index repeats, which value lands is unspecified
    (as in PyTorch). Differentiable: dinput = dout with the written positions zeroed, dsrc =
    dout.gather(dim, index). ``reduce=`` is not implemented (NotImplementedError; use scatter_add).
    """
    src, value = checks.src_or_value("scatter", src, value, reduce)
    return _scatter(input, dim, index, src, value)


def scatter_(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,  # noqa: A002
             reduce: str | None = None) -> Tensor:
    """In-place :func:`scatter`: recorded as PyTorch records it (a leaf that requires grad refuses)."""
    src, value = checks.src_or_value("scatter_", src, value, reduce)
    return inplace.apply(input, "scatter_", lambda t: _scatter(t, dim, index, src, value), src)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:  # noqa: A002
    """A copy of ``input`` with ``src``'s values added where ``index`` points; repeated indices add up.

    ``out[index[i][j]][j] += src[i][j]`` for dim 0, ``out[i][index[i][j]] += src[i][j]`` for dim 1.
    Shapes and dtypes as for :func:`scatter`. Differentiable: dinput = dout, dsrc = dout.gather(dim, index).
    """
    checks.check_src_type("scatter_add", src)
    return _scatter(input, dim, index, src, None, add=True)


def scatter_add_(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:  # noqa: A002
    """In-place :func:`scatter_add`, recorded as PyTorch records it."""
    checks.check_src_type("scatter_add_", src)
    return inplace.apply(input, "scatter_add_", lambda t: _scatter(t, dim, index, src, None, add=True), src)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    """A copy of ``input`` with ``alpha * source[..., i, ...]`` added at ``index[i]`` along ``dim``;
    repeated indices add up (``dC.index_add_(0, ix, demb)`` accumulates embedding gradients).

    It is :func:`scatter_add` with ``index`` spread over ``source``'s other dimensions, so it is
    differentiated as that is: dinput = dout, dsource = alpha · dout.index_select(dim, index).
    """
    dim = checks.check_index_add(input, dim, index, source)
    count = index.numel()
    spread = [1] * input.ndim
    spread[dim] = count
    spread_index = index.reshape(spread).expand(*source.shape)
    scaled = source if alpha == 1 else source * alpha
    return scatter_add(input, dim, spread_index, scaled)


def index_add_(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    """In-place :func:`index_add`, recorded as the other in-place ops are."""
    return inplace.apply(input, "index_add_", lambda t: index_add(t, dim, index, source, alpha=alpha), source)


def _scatter(a: Tensor, dim: int, index: Tensor, src: Tensor | None, value: Any, add: bool = False) -> Tensor:
    """Checks in PyTorch's order, then Scatter (or ScatterAdd) on ``a``."""
    dim = checks.check_scatter("scatter", a, dim, index, src)
    index = _integer(index)
    if add:
        return ScatterAdd.apply(a, index, src, dim)
    return Scatter.apply(a, index, src, dim, None if src is not None else checks.value_argument(value, a))


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``out[..., c] = 1`` where ``tensor[...] == c``, else 0; int64, shape ``(*tensor.shape, num_classes)``.

    ``tensor`` holds int64 class values; ``num_classes=-1`` means ``tensor.max() + 1``.
    """
    num_classes = checks.one_hot_classes(tensor, num_classes)
    xp = get_array_module(tensor)
    return Tensor((tensor.array[..., None] == xp.arange(num_classes)).astype(numpy.int64))


def _integer(index: Tensor) -> Tensor:
    """``index``, or as int64 if it is an empty index of another dtype (PyTorch checks no empty index)."""
    return index if index.dtype in (_dtypes.int64, _dtypes.int32) else index.long()
