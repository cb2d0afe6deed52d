"""Counting and searching: ``unique``, ``unique_consecutive``, ``bincount``, ``count_nonzero``,
``argwhere``, ``searchsorted`` and ``bucketize``.

Their results are indices and counts (int64), or the distinct values themselves: step functions of the
input, with no gradient, as in PyTorch.
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad._arguments import bool_argument, int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._util import TORCH_TYPE_NAMES, check_tensor_arguments, reduction_axes
from minigrad.ops.comparison import nonzero
from minigrad.tensor import Tensor, _normalize_dim

_INT64 = _dtypes.int64.numpy


class NoDerivative(Function):
    """A result PyTorch records in the graph without a derivative: it requires grad when an input does,
    and its backward raises PyTorch's error (``unique``'s values, ``heaviside``)."""

    @staticmethod
    def forward(ctx, result, error, name, *inputs):
        ctx._name, ctx.error = name, error
        return Tensor(result)

    @staticmethod
    def backward(ctx, grad):
        kind, message = ctx.error
        raise kind(message)


def recorded_without_derivative(result: Any, error: tuple, name: str, *inputs: Tensor) -> Tensor:
    """``result`` (an array) as a Tensor that, like PyTorch's, requires grad if one of ``inputs`` does;
    ``error`` is (exception class, message) of its backward."""
    if not any(t.requires_grad for t in inputs):
        return Tensor(result)
    return NoDerivative.apply(result, error, name, *inputs)


def _results(values: Any, inverse: Any, counts: Any, return_inverse: bool, return_counts: bool,
             input: Tensor, kernel: str = "_unique2") -> Any:
    """``values`` alone, or the tuple PyTorch returns with the inverse indices and/or the counts."""
    name = "".join(part.capitalize() for part in kernel.split("_")) + "Backward0"  # Unique2Backward0 ...
    error = (NotImplementedError, f"the derivative for '{kernel}' is not implemented.")
    out = [recorded_without_derivative(values, error, name, input)]
    if return_inverse:
        out.append(Tensor(inverse.astype(_INT64, copy=False)))
    if return_counts:
        out.append(Tensor(counts.astype(_INT64, copy=False)))
    return out[0] if len(out) == 1 else tuple(out)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct values (or distinct slices along ``dim``), in ascending order; optionally where each
    element went (``inverse``: ``input == values[inverse]``) and how often each value occurs.

    Always sorted (PyTorch's CPU kernel sorts for ``sorted=False`` too). Every NaN is distinct, as in
    PyTorch, and NaNs sort last."""
    check_tensor_arguments("unique", {"input": input})
    xp = get_array_module(input)
    array = input.array
    if dim is None:
        flat = array.reshape(-1)
        values, inverse, counts = xp.unique(flat, return_inverse=True, return_counts=True, equal_nan=False)
        return _results(values, inverse.reshape(array.shape), counts, return_inverse, return_counts, input)
    axis = _normalize_dim(int_argument(dim, "unique", "dim"), input.ndim)
    if array.shape[axis] == 0:
        empty = xp.zeros((0,), dtype=_INT64)
        return _results(array.copy(), empty, empty, return_inverse, return_counts, input, "unique_dim")
    values, inverse, counts = xp.unique(array, return_inverse=True, return_counts=True, axis=axis)
    return _results(values, inverse.reshape(-1), counts, return_inverse, return_counts, input, "unique_dim")


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """Collapse each run of equal consecutive values (or slices along ``dim``) to one:
    [1, 1, 2, 2, 3, 1, 1] → [1, 2, 3, 1]."""
    check_tensor_arguments("unique_consecutive", {"input": input})
    xp = get_array_module(input)
    array = input.array
    axis = 0
    if dim is None:
        array = array.reshape(-1)
    else:
        axis = _normalize_dim(int_argument(dim, "unique_consecutive", "dim"), input.ndim)
        array = xp.moveaxis(array, axis, 0)
    n = array.shape[0]
    if n == 0:
        empty = xp.zeros((0,), dtype=_INT64)
        inverse = xp.zeros(input.shape if dim is None else (0,), dtype=_INT64)
        return _results(input.array.copy(), inverse, empty, return_inverse, return_counts, input,
                        "unique_consecutive")
    rows = array.reshape(n, -1)
    starts = xp.ones(n, dtype=bool)
    starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)  # a slice that differs from the one before
    first = xp.nonzero(starts)[0]
    values = array[first]
    inverse = xp.cumsum(starts) - 1
    counts = xp.diff(xp.concatenate([first, xp.asarray([n], dtype=first.dtype)]))
    if dim is None:
        inverse = inverse.reshape(input.shape)
    else:
        values = xp.moveaxis(values, 0, axis)
    return _results(values, inverse, counts, return_inverse, return_counts, input, "unique_consecutive")


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """out[v] = the number of times v occurs in the 1-D non-negative integer ``input`` (or the sum of
    its ``weights``), for v = 0 … max(max(input) + 1, minlength) − 1."""
    check_tensor_arguments("bincount", {"input": input, "weights": weights}, optional=("weights",))
    minlength = int_argument(minlength, "bincount", "minlength", position=3)
    if input.ndim != 1 or input.dtype.is_floating_point or input.dtype is _dtypes.bool:
        if input.ndim != 1:
            raise RuntimeError(f"bincount only supports 1-d non-negative integral inputs (got a "
                               f"{input.ndim}-d tensor)")
        raise RuntimeError(f"\"bincount_cpu\" not implemented for '{TORCH_TYPE_NAMES[input.dtype.name]}'")
    if minlength < 0:
        raise RuntimeError(f"minlength should be >= 0, got {minlength}")
    if weights is not None and tuple(weights.shape) != tuple(input.shape):
        raise RuntimeError(f"weights should be 1-d and have the same length as input (input has "
                           f"{input.shape[0]} elements, weights shape {list(weights.shape)})")
    xp = get_array_module(input)
    array = input.array
    if array.size and int(array.min()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    length = max(int(array.max()) + 1 if array.size else 0, minlength)
    if weights is None:
        return Tensor(xp.bincount(array, minlength=length).astype(_INT64, copy=False)[:length])
    # PyTorch's result dtype: float32 weights stay float32, any other weights count in float64
    dtype = weights.array.dtype if weights.dtype is _dtypes.float32 else _dtypes.float64.numpy
    counted = xp.bincount(array, weights=weights.array.astype(_dtypes.float64.numpy), minlength=length)
    return Tensor(counted[:length].astype(dtype))


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """The number of non-zero elements, over all of them or over ``dim`` (an int or a tuple): int64."""
    check_tensor_arguments("count_nonzero", {"input": input})
    axes = reduction_axes(dim, input.ndim)
    return Tensor((input.array != 0).sum(axis=axes).astype(_INT64))


def argwhere(input: Tensor) -> Tensor:
    """The indices of the non-zero elements, one row each: ``nonzero(input)``, shape (n, ndim)."""
    check_tensor_arguments("argwhere", {"input": input})
    return nonzero(input)


def _side(side: Any, right: Any) -> str:
    """'left' or 'right' from searchsorted's two ways of saying it (they must agree)."""
    if side is None:
        return "right" if right else "left"
    if side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                           "left while right was True")
    return side


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    """For each value v, the index where it would be inserted into its sorted row to keep it sorted: the
    number of row elements < v (side 'left') or ≤ v (side 'right').

    A 1-D ``sorted_sequence`` serves every value; an N-D one holds one sorted row per leading index of
    ``input`` (same leading sizes). ``sorter`` gives the order that sorts an unsorted sequence."""
    check_tensor_arguments("searchsorted", {"sorted_sequence": sorted_sequence})
    side = _side(side, bool_argument(right, "searchsorted", "right"))
    xp = get_array_module(sorted_sequence)
    scalar = not isinstance(input, Tensor)
    values = xp.asarray(input, dtype=sorted_sequence.array.dtype) if scalar else input.array
    sequence = sorted_sequence.array
    if sorter is not None:
        if tuple(sorter.shape) != tuple(sorted_sequence.shape):
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but "
                               f"got boundary tensor {list(sorted_sequence.shape)} and got sorter tensor "
                               f"{list(sorter.shape)}")
        sequence = xp.take_along_axis(sequence, sorter.array.astype(_INT64), axis=-1)
    if sequence.ndim > 1 and (values.ndim != sequence.ndim or values.shape[:-1] != sequence.shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(sequence.shape)} and input value tensor "
                           f"{list(values.shape)}")
    if sequence.ndim <= 1:
        found = xp.searchsorted(sequence.reshape(-1), values, side=side)
    else:  # each row its own sequence: count its elements below each value (one comparison, no loop)
        below = sequence[..., None, :] <= values[..., :, None] if side == "right" else \
            sequence[..., None, :] < values[..., :, None]
        found = below.sum(axis=-1)
    dtype = _dtypes.int32.numpy if out_int32 else _INT64
    return Tensor(xp.asarray(found, dtype=dtype).reshape(values.shape))


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket of each value among the 1-D sorted ``boundaries``: i with boundaries[i−1] < v ≤
    boundaries[i] (``right=True``: boundaries[i−1] ≤ v < boundaries[i])."""
    check_tensor_arguments("bucketize", {"boundaries": boundaries})
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)
