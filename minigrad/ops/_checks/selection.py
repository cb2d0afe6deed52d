"""Argument checks of the selection operations (``ops/selection.py``), with PyTorch's exceptions and
messages."""

from __future__ import annotations

from numbers import Number
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad._arguments import int_argument
from minigrad.ops._util import check_broadcast_shapes
from minigrad.tensor import Tensor, _normalize_dim


def narrow_arguments(a: Tensor, dim: Any, start: Any, length: Any) -> tuple[int, int, int]:
    """(axis, start, length) of ``a.narrow(dim, start, length)``, ``start`` made non-negative."""
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _normalize_dim(int_argument(dim, "narrow", "dim"), a.ndim)
    start, length = int_argument(start, "narrow", "start"), int_argument(length, "narrow", "length")
    size = a.shape[dim]
    if length < 0:
        raise RuntimeError(f"narrow(): length must be non-negative (got {length}).")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start %= size if size else 1
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return dim, start, length


def split_dim(a: Tensor, dim: Any) -> int:
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    return _normalize_dim(int_argument(dim, "split", "dim"), a.ndim)


def split_sizes(sections: Any, size: int, dim: int) -> list:
    """The listed sizes of ``split``: non-negative ints that add up to the dimension's ``size``."""
    sizes = [int_argument(n, "split", "split_size") for n in sections]
    if any(n < 0 for n in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, "
                           f"but got split_sizes={sizes}")
    if sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={sizes}")
    return sizes


def split_size(split_size: Any, size: int) -> int:
    """The piece size of ``split``: non-negative, and 0 only for a dimension of size 0."""
    step = int_argument(split_size, "split", "split_size")
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                           f"{size}")
    return step


def chunks_argument(a: Tensor, chunks: Any) -> int:
    chunks = int_argument(chunks, "chunk", "chunks")
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    return chunks


def unbind_dim(a: Tensor, dim: Any) -> int:
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return _normalize_dim(int_argument(dim, "unbind", "dim"), a.ndim)


def movedim_axes(a: Tensor, source: Any, destination: Any) -> tuple[list, list]:
    """``source`` and ``destination`` as equally many distinct axes of ``a``."""
    sources = list(source) if isinstance(source, (list, tuple)) else [source]
    targets = list(destination) if isinstance(destination, (list, tuple)) else [destination]
    if len(sources) != len(targets):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({sources} dims) should "
                           f"contain the same number of dims as destination ({targets} dims)")
    sources = [_normalize_dim(int_argument(d, "movedim", "source"), a.ndim) for d in sources]
    targets = [_normalize_dim(int_argument(d, "movedim", "destination"), a.ndim) for d in targets]
    for name, dims in (("source", sources), ("destination", targets)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    return sources, targets


def distinct_axes(dims: Any, a: Tensor, function: str) -> tuple:
    """``dims`` (an int or a sequence) as axes of ``a``, none repeated."""
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    axes = tuple(_normalize_dim(int_argument(d, function, "dims"), a.ndim) for d in dims)
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"dim {axes[0] if len(axes) == 2 else list(axes)} appears multiple times in the "
                           f"list of dims")
    return axes


def roll_arguments(a: Tensor, shifts: Any, dims: Any) -> tuple[tuple, tuple | None]:
    """(shifts, axes) of ``roll``, one shift per axis; axes None (one shift) rolls the flattened ``a``."""
    shifts = tuple(shifts) if isinstance(shifts, (list, tuple)) else (shifts,)
    shifts = tuple(int_argument(s, "roll", "shifts") for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return shifts, None
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    return shifts, tuple(_normalize_dim(int_argument(d, "roll", "dims"), a.ndim) for d in dims)


def check_repeat(a: Tensor, reps: tuple) -> None:
    """At least one repeat per dimension of ``a``, none negative."""
    if len(reps) < a.ndim:
        raise RuntimeError(f"Number of dimensions of repeat dims can not be smaller than number of "
                           f"dimensions of tensor (repeats {list(reps)}, tensor of shape {list(a.shape)})")
    if any(r < 0 for r in reps):
        shape = [r * n for r, n in zip(reps, (1,) * (len(reps) - a.ndim) + tuple(a.shape))]
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {shape} "
                           f"(repeats {list(reps)} of a tensor of shape {list(a.shape)})")


def repeats_argument(repeats: Any) -> int:
    """``repeat_interleave``'s ``repeats``: one non-negative int (or a one-element tensor)."""
    if isinstance(repeats, Tensor):
        if repeats.numel() != 1:
            raise NotImplementedError("repeat_interleave with a tensor of per-element repeats is not "
                                      "implemented in minigrad; give an int")
        repeats = repeats.item()
    repeats = int_argument(repeats, "repeat_interleave", "repeats")
    if repeats < 0:
        raise RuntimeError(f"Repeats must be non-negative (got {repeats})")
    return repeats


def check_output_size(output_size: int | None, out: Tensor, axis: int) -> None:
    if output_size is not None and output_size != out.shape[axis]:
        raise RuntimeError(f"repeat_interleave: output_size {output_size} does not match the size "
                           f"{out.shape[axis]} of the result")


def index_select_axis(a: Tensor, dim: Any, index: Any) -> int:
    """The axis of ``a.index_select(dim, index)``, after PyTorch's checks of ``index``: a 1-D int64/int32
    tensor on ``a``'s device, every entry in range."""
    if not isinstance(index, Tensor):
        raise TypeError(f"index_select(): argument 'index' (position 2) must be Tensor, not "
                        f"{type(index).__name__}")
    axis = _normalize_dim(int_argument(dim, "index_select", "dim"), a.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector (got index of shape "
                         f"{list(index.shape)})")
    if index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(f"index_select(): Expected dtype int32 or int64 for index (got "
                           f"{index.dtype.name})")
    if index.device != a.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found {a.device} and "
                           f"{index.device} (index_select)")
    size = a.shape[axis] if a.ndim else 1
    if a.ndim == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} "
                           f"value(s)")
    array = index.array
    bad = (array < 0) | (array >= size)
    if bool(bad.any()):  # checked here, since CuPy would wrap an out-of-range index around
        first = int(array[bad].reshape(-1)[0])
        if axis == 1:  # PyTorch's CPU kernel for dim 1 raises a RuntimeError, the others an IndexError
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={first} axis_dim={size}")
        raise IndexError(f"index out of range in self: index {first} for dimension {axis} with size {size}")
    return axis


def check_mask(a: Tensor, mask: Any) -> None:
    """``masked_fill``'s mask: a bool tensor on ``a``'s device that broadcasts to ``a``'s shape."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_fill(): argument 'mask' (position 1) must be Tensor, not "
                        f"{type(mask).__name__}")
    if mask.dtype is not _dtypes.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.name}")
    if mask.device != a.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found {a.device} and "
                           f"{mask.device} (masked_fill)")
    check_broadcast_shapes(tuple(a.shape), tuple(mask.shape))


def check_fill_value(value: Any) -> None:
    """``masked_fill``'s value: a number or a 0-d tensor."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                               f"with {value.ndim} dimension(s).")
    elif not isinstance(value, Number):
        raise TypeError(f"masked_fill(): argument 'value' must be Number, not {type(value).__name__}")


def check_matrices(a: Tensor, function: str) -> None:
    """tril and triu act on the last two dimensions."""
    if a.ndim < 2:
        raise RuntimeError(f"{function}: input tensor must have at least 2 dimensions (got shape "
                           f"{list(a.shape)})")


def check_diag(a: Tensor) -> None:
    if a.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {a.ndim}D")
