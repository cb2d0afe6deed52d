"""Larger tensors built from smaller ones, and rotations: ``tile``, ``rot90``, ``meshgrid``,
``cartesian_prod``, ``block_diag`` and ``kron``.

``tile``, ``meshgrid``, ``cartesian_prod`` and ``kron`` are written in the shape ops (``repeat``,
``expand``, ``stack``) and products they are made of, as PyTorch composes them too, so the gradient is
theirs: a tile's gradient is the sum of the tiles' gradients, a grid's the sum over the grid's other
axes. A rotation's gradient is the opposite rotation; a block-diagonal matrix's gradient is cut back
into the blocks.
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

import warnings
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad._arguments import int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._util import check_tensor_arguments
from minigrad.ops.joining import stack
from minigrad.ops.rearrange import repeat
from minigrad.tensor import Tensor, _normalize_dim


def tile(input: Tensor, dims: Any) -> Tensor:
    """``input`` repeated ``dims[i]`` times along dimension i; fewer dims than the tensor has are padded
    with leading 1s (``tile(x, (2,))`` repeats the last dimension), more add leading dimensions."""
    check_tensor_arguments("tile", {"input": input})
    reps = tuple(int_argument(r, "tile", "dims") for r in dims)
    reps = (1,) * (input.ndim - len(reps)) + reps
    return repeat(input, *reps)


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """Rotate by 90° k times in the plane of ``dims``, from the first axis towards the second (k = 1:
    y[i, j] = a[j, n − 1 − i], a flip of dims[1] then a transpose)."""
    check_tensor_arguments("rot90", {"input": input})
    k = int_argument(k, "rot90", "k")
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    first, second = (_normalize_dim(int_argument(d, "rot90", "dims"), input.ndim) for d in dims)
    if first == second:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {first} and dim1 = "
                           f"{second}")
    return Rot90.apply(input, k % 4, (first, second))


class Rot90(Function):
    """y = a rotated by 90° k times in the plane of ``axes``;   da = dy rotated back (−k times)."""

    @staticmethod
    def forward(ctx, a, k, axes):
        ctx.k, ctx.axes = k, axes
        return Tensor(get_array_module(a).rot90(a.array, k, axes).copy())

    @staticmethod
    def backward(ctx, grad):
        return Rot90.apply(grad, (-ctx.k) % 4, ctx.axes), None, None


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple:
    """Coordinate grids: for 1-D tensors of sizes n₁ … nₖ, k tensors of shape (n₁, …, nₖ), the i-th
    holding tensors[i] along axis i ('ij'); 'xy' swaps the first two axes (Cartesian, as NumPy's
    default). Each grid is a broadcast view (an ``expand``) of its input."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("torch.meshgrid expects a non-empty TensorList")
    for position, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"meshgrid(): argument 'tensors' (position {position + 1}) must be tuple of "
                            f"Tensors, not {type(t).__name__}")
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                               f"{t.ndim}D tensor")
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                      "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: "
                           f"{indexing}")
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        raise RuntimeError("torch.meshgrid: Expected all tensors in the list to have the same dtype")
    swap = indexing == "xy" and len(tensors) >= 2
    axes = list(tensors)
    if swap:
        axes[0], axes[1] = axes[1], axes[0]
    sizes = tuple(t.numel() for t in axes)
    grids = []
    for i, t in enumerate(axes):
        shape = [1] * len(axes)
        shape[i] = sizes[i]
        grids.append(t.reshape(shape).expand(sizes))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each 1-D tensor, one row each, in lexicographic order
    (``itertools.product``): the flattened 'ij' meshgrid, stacked as columns."""
    for t in tensors:
        if not isinstance(t, Tensor) or t.ndim != 1:
            raise RuntimeError("Expect a 1D vector, but got shape "
                               f"{list(t.shape) if isinstance(t, Tensor) else type(t).__name__}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


class BlockDiag(Function):
    """Y = the blocks Bᵢ (each as a matrix) down the diagonal of a zero matrix;
    dBᵢ = the block of dY at Bᵢ's place (in Bᵢ's own shape and dtype)."""

    @staticmethod
    def forward(ctx, *blocks):
        xp = get_array_module(blocks[0])
        dtype = _dtypes.result_type(*blocks)
        matrices = [b.array.reshape(1, -1) if b.ndim < 2 else b.array for b in blocks]
        height, width = sum(m.shape[0] for m in matrices), sum(m.shape[1] for m in matrices)
        out = xp.zeros((height, width), dtype=dtype.numpy)
        places, row, column = [], 0, 0
        for m in matrices:
            out[row:row + m.shape[0], column:column + m.shape[1]] = m
            places.append((row, column, m.shape[0], m.shape[1]))
            row, column = row + m.shape[0], column + m.shape[1]
        ctx.places, ctx.shapes, ctx.dtypes = places, [b.shape for b in blocks], [b.dtype for b in blocks]
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        pieces = []
        for (row, column, height, width), shape, dtype in zip(ctx.places, ctx.shapes, ctx.dtypes):
            piece = grad.narrow(0, row, height).narrow(1, column, width).reshape(shape)
            pieces.append(piece if piece.dtype is dtype else piece.to(dtype))
        return tuple(pieces)


def block_diag(*tensors: Tensor) -> Tensor:
    """The block-diagonal matrix with the given blocks (0-d: 1×1, 1-D: one row, 2-D as they are), zeros
    elsewhere, in the blocks' promoted dtype."""
    for position, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"block_diag(): argument 'tensors' (position {position + 1}) must be tuple of "
                            f"Tensors, not {type(t).__name__}")
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                               f"{position} has {t.ndim} dimensions")
    if not tensors:
        from minigrad.creation import empty  # noqa: PLC0415 (creation imports the ops)

        return empty(1, 0)
    return BlockDiag.apply(*tensors)


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: block (i, j, …) is input[i, j, …] · other. With both of rank r (the smaller
    padded with leading 1s), input as shape (a₁, 1, a₂, 1, …) times other as (1, b₁, 1, b₂, …), reshaped
    to (a₁b₁, a₂b₂, …)."""
    check_tensor_arguments("kron", {"input": input, "other": other})
    ndim = max(input.ndim, other.ndim)
    a_shape = (1,) * (ndim - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (ndim - other.ndim) + tuple(other.shape)
    a = input.reshape(tuple(n for size in a_shape for n in (size, 1)))
    b = other.reshape(tuple(n for size in b_shape for n in (1, size)))
    return (a * b).reshape(tuple(m * n for m, n in zip(a_shape, b_shape)))
