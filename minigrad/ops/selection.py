"""More shape and selection operations: pieces (chunk, split, unbind, narrow), rearrangements
(flip, roll, repeat, repeat_interleave, movedim, swapaxes), picks (index_select, masked_fill,
tril/triu, diag) and joins (hstack, vstack).

Views where PyTorch returns views: narrow and the pieces of chunk/split/unbind are basic-index
reads (``a[..., start:stop]``), movedim/swapaxes are permutes. Everything else is a copy whose
backward moves the gradient back the way the forward moved the numbers.
"""

from __future__ import annotations

from numbers import Number
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad._arguments import int_argument
from minigrad.autograd.function import Function
from minigrad.ops import indexing, inplace
from minigrad.ops import shape as shape_ops
from minigrad.ops._checks import shape as shape_checks
from minigrad.ops._util import wrap, xp_of
from minigrad.tensor import Tensor, _normalize_dim

# --- pieces: views of one dimension ----------------------------------------------------------


def _along(a: Tensor, dim: int, part: Any) -> tuple:
    """The basic-index key that applies ``part`` (an int or a slice) to dimension ``dim`` of ``a``."""
    return (slice(None),) * dim + (part, Ellipsis)


def narrow(a: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The view ``a[..., start:start + length]`` along ``dim`` (``start`` may be negative)."""
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
    return indexing.getitem(a, _along(a, dim, slice(start, start + length)))


def _multi_output(pieces: list, node_name: str) -> tuple:
    """The views of PyTorch's split and unbind (``node_name``: its one node for all pieces)."""
    return tuple(indexing.mark_multi_output(piece, node_name, index) for index, piece in enumerate(pieces))


def _pieces(a: Tensor, dim: int, sizes: list, node_name: str) -> tuple:
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    return _multi_output([indexing.getitem(a, _along(a, dim, slice(start, start + n)))
                          for start, n in zip(starts, sizes)], node_name)


def split(a: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Pieces (views) of ``split_size_or_sections`` along ``dim`` (the last may be smaller), or of the
    listed sizes, which must add up to the dimension's size."""
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _normalize_dim(int_argument(dim, "split", "dim"), a.ndim)
    size = a.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int_argument(n, "split", "split_size") for n in split_size_or_sections]
        if any(n < 0 for n in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, "
                               f"but got split_sizes={sizes}")
        if sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input "
                               f"tensor's size at dimension {dim}), but got split_sizes={sizes}")
        return _pieces(a, dim, sizes, "SplitWithSizesBackward0")
    step = int_argument(split_size_or_sections, "split", "split_size")
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0:
        if size != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                               f"{size}")
        return _pieces(a, dim, [0], "SplitBackward0")
    count = max(-(-size // step), 1)
    return _pieces(a, dim, [min(step, size - k * step) for k in range(count)], "SplitBackward0")


def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple:
    """At most ``chunks`` pieces of ceil(size / chunks) along ``dim`` (views; fewer when that divides out)."""
    chunks = int_argument(chunks, "chunk", "chunks")
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = a.shape[_normalize_dim(dim, a.ndim)]
    if size == 0:  # ``chunks`` empty pieces, as PyTorch gives
        return split(a, [0] * chunks, dim)
    return split(a, -(-size // chunks), dim)


def unbind(a: Tensor, dim: int = 0) -> tuple:
    """The views ``a.select(dim, i)`` for every i: one dimension fewer each."""
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = _normalize_dim(int_argument(dim, "unbind", "dim"), a.ndim)
    return _multi_output([indexing.getitem(a, _along(a, dim, i)) for i in range(a.shape[dim])],
                         "UnbindBackward0")


def movedim(a: Tensor, source: Any, destination: Any) -> Tensor:
    """The view with dimensions ``source`` moved to positions ``destination``; the others keep their order."""
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
        return wrap(xp_of(a).flip(a.array, axes).copy() if axes else a.array.copy())

    @staticmethod
    def backward(ctx, grad):
        return wrap(xp_of(grad).flip(grad.array, ctx.axes) if ctx.axes else grad.array), None


def _dims(dims: Any, a: Tensor, function: str) -> tuple:
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    axes = tuple(_normalize_dim(int_argument(d, function, "dims"), a.ndim) for d in dims)
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"dim {axes[0] if len(axes) == 2 else list(axes)} appears multiple times in the "
                           f"list of dims")
    return axes


def flip(a: Tensor, *dims_args: Any, dims: Any = None) -> Tensor:
    """A copy of ``a`` with the order of elements reversed along ``dims``."""
    if dims is None:
        if not dims_args:
            raise TypeError('flip() missing 1 required positional arguments: "dims"')
        dims = dims_args[0] if len(dims_args) == 1 else dims_args
    axes = _dims(dims, a, "flip")
    return Flip.apply(a, axes if a.ndim else ())


class Roll(Function):
    """y = a shifted cyclically by ``shifts`` along ``axes``;   da = dy shifted back."""

    @staticmethod
    def forward(ctx, a, shifts, axes):
        ctx.shifts, ctx.axes = shifts, axes
        return wrap(xp_of(a).roll(a.array, shifts, axes))

    @staticmethod
    def backward(ctx, grad):
        return wrap(xp_of(grad).roll(grad.array, tuple(-s for s in ctx.shifts), ctx.axes)), None, None


def roll(a: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """``a`` shifted cyclically along ``dims``; without ``dims``, the flattened ``a`` shifted and reshaped."""
    shifts = tuple(shifts) if isinstance(shifts, (list, tuple)) else (shifts,)
    shifts = tuple(int_argument(s, "roll", "shifts") for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return shape_ops.reshape(roll(shape_ops.flatten(a), shifts, 0), a.shape)
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    axes = tuple(_normalize_dim(int_argument(d, "roll", "dims"), a.ndim) for d in dims)
    return Roll.apply(a, shifts, axes)


class Repeat(Function):
    """y = a tiled ``reps`` times along each dimension;   da = the sum of dy's tiles."""

    @staticmethod
    def forward(ctx, a, reps):
        ctx.reps, ctx.input_shape = reps, a.array.shape
        return wrap(xp_of(a).tile(a.array, reps) if reps else a.array.copy())

    @staticmethod
    def backward(ctx, grad):
        lead = len(ctx.reps) - len(ctx.input_shape)
        shape = (1,) * lead + ctx.input_shape
        split_shape = [n for r, s in zip(ctx.reps, shape) for n in (r, s)]  # (r0, s0, r1, s1, ...)
        tiles = grad.array.reshape(split_shape)
        summed = tiles.sum(axis=tuple(range(0, len(split_shape), 2))) if split_shape else tiles
        return wrap(summed.reshape(ctx.input_shape)), None


def repeat(a: Tensor, *sizes: Any) -> Tensor:
    """``a`` tiled: ``sizes[i]`` copies along dimension i (more sizes than dims add leading dims)."""
    reps = shape_checks.sizes_argument(sizes)
    if len(reps) < a.ndim:
        raise RuntimeError(f"Number of dimensions of repeat dims can not be smaller than number of "
                           f"dimensions of tensor (repeats {list(reps)}, tensor of shape {list(a.shape)})")
    if any(r < 0 for r in reps):
        shape = [r * n for r, n in zip(reps, (1,) * (len(reps) - a.ndim) + tuple(a.shape))]
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {shape} "
                           f"(repeats {list(reps)} of a tensor of shape {list(a.shape)})")
    return Repeat.apply(a, reps)


class RepeatInterleave(Function):
    """y = each element of a along ``axis`` repeated ``repeats`` times in a row;   da = dy's runs summed."""

    @staticmethod
    def forward(ctx, a, repeats, axis):
        ctx.repeats, ctx.axis, ctx.input_shape = repeats, axis, a.array.shape
        return wrap(xp_of(a).repeat(a.array, repeats, axis=axis))

    @staticmethod
    def backward(ctx, grad):
        shape, axis = ctx.input_shape, ctx.axis
        runs = grad.array.reshape(shape[:axis] + (shape[axis], ctx.repeats) + shape[axis + 1:])
        return wrap(runs.sum(axis=axis + 1)), None, None


def repeat_interleave(a: Tensor, repeats: Any, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element repeated ``repeats`` (an int) times in a row along ``dim`` (of the flattened ``a`` if
    None): ``[1, 2]`` -> ``[1, 1, 2, 2]``."""
    if isinstance(repeats, Tensor):
        if repeats.numel() != 1:
            raise NotImplementedError("repeat_interleave with a tensor of per-element repeats is not "
                                      "implemented in minigrad; give an int")
        repeats = repeats.item()
    repeats = int_argument(repeats, "repeat_interleave", "repeats")
    if repeats < 0:
        raise RuntimeError(f"Repeats must be non-negative (got {repeats})")
    if dim is None:
        a, axis = shape_ops.flatten(a), 0
    else:
        axis = _normalize_dim(int_argument(dim, "repeat_interleave", "dim"), a.ndim)
        if a.ndim == 0:
            a = shape_ops.reshape(a, 1)
    out = RepeatInterleave.apply(a, repeats, axis)
    if output_size is not None and output_size != out.shape[axis]:
        raise RuntimeError(f"repeat_interleave: output_size {output_size} does not match the size "
                           f"{out.shape[axis]} of the result")
    return out


# --- picks -------------------------------------------------------------------------------------------


class IndexSelect(Function):
    """y = a's entries ``index`` along ``axis``;   da = dy added back at those entries (repeats add up)."""

    graph_inputs = (0,)  # the indices carry no gradient: PyTorch's node has one input

    @staticmethod
    def forward(ctx, a, index, axis):
        ctx.key, ctx.input_shape = _along(a, axis, index.array.reshape(-1)), a.array.shape
        return wrap(xp_of(a).take(a.array, index.array.reshape(-1), axis=axis) if a.ndim else
                    a.array.reshape(1)[index.array.reshape(-1)].reshape(()))

    @staticmethod
    def backward(ctx, grad):
        xp = xp_of(grad)
        if not ctx.input_shape:
            return wrap(grad.array.copy()), None, None
        return wrap(indexing.scatter_add(xp, grad.array, ctx.input_shape, ctx.key)), None, None


def index_select(a: Tensor, dim: int, index: Tensor) -> Tensor:
    """The entries ``index`` (a 1-D int64/int32 tensor) of ``a`` along ``dim``, in that order (a copy)."""
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
    return IndexSelect.apply(a, index, axis)


class MaskedFill(Function):
    """y = value where mask, else a;   da = dy where not mask (summed to a's shape)."""

    graph_inputs = (0,)  # the mask carries no gradient: PyTorch's node has one input

    @staticmethod
    def forward(ctx, a, mask, value):
        ctx.mask, ctx.input_shape = mask.array, a.array.shape
        xp = xp_of(a)
        return wrap(xp.where(mask.array, xp.asarray(value, dtype=a.array.dtype), a.array))

    @staticmethod
    def backward(ctx, grad):
        from minigrad.autograd.engine import sum_to_shape  # noqa: PLC0415

        g = grad.array
        kept = wrap(xp_of(grad).where(ctx.mask, g.dtype.type(0), g))
        return sum_to_shape(kept, ctx.input_shape, ctx, 0), None, None


def masked_fill(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    """A copy of ``a`` with ``value`` (a number or 0-d tensor) where the bool ``mask`` (broadcast) is True."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_fill(): argument 'mask' (position 1) must be Tensor, not "
                        f"{type(mask).__name__}")
    if mask.dtype is not _dtypes.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.name}")
    if mask.device != a.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found {a.device} and "
                           f"{mask.device} (masked_fill)")
    from minigrad.ops._util import check_broadcast_shapes  # noqa: PLC0415
    from minigrad.ops.elementwise import where  # noqa: PLC0415

    check_broadcast_shapes(tuple(a.shape), tuple(mask.shape))
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                               f"with {value.ndim} dimension(s).")
        if value.requires_grad:  # differentiable in value too: where(mask, value, a)
            return where(mask, value.to(a.dtype), a)
        value = value.item()
    elif not isinstance(value, Number):
        raise TypeError(f"masked_fill(): argument 'value' must be Number, not {type(value).__name__}")
    return MaskedFill.apply(a, mask, value)


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
        xp = xp_of(a)
        return wrap((xp.tril if lower else xp.triu)(a.array, k))

    @staticmethod
    def backward(ctx, grad):
        xp = xp_of(grad)
        return wrap((xp.tril if ctx.lower else xp.triu)(grad.array, ctx.k)), None, None


def tril(a: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (j - i <= diagonal) of the last two dims; the rest zero."""
    if a.ndim < 2:
        raise RuntimeError(f"tril: input tensor must have at least 2 dimensions (got shape {list(a.shape)})")
    return Triangle.apply(a, int_argument(diagonal, "tril", "diagonal"), True)


def triu(a: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (j - i >= diagonal) of the last two dims; the rest zero."""
    if a.ndim < 2:
        raise RuntimeError(f"triu: input tensor must have at least 2 dimensions (got shape {list(a.shape)})")
    return Triangle.apply(a, int_argument(diagonal, "triu", "diagonal"), False)


def _diagonal_key(xp: Any, shape: tuple, k: int) -> tuple:
    """(rows, cols) of diagonal ``k`` of a matrix of ``shape``."""
    rows, cols = shape
    length = max(min(rows, cols - k) if k >= 0 else min(rows + k, cols), 0)
    start = xp.arange(length)
    return (start - min(k, 0), start + max(k, 0))


class Diag(Function):
    """1-D v -> the square matrix with v on diagonal k;  2-D m -> its diagonal k.
    Backward: the other way round (the diagonal of dy, or dy placed on the diagonal)."""

    @staticmethod
    def forward(ctx, a, k):
        xp = xp_of(a)
        ctx.k, ctx.input_shape = k, a.array.shape
        if a.ndim == 1:
            n = a.shape[0] + abs(k)
            out = xp.zeros((n, n), dtype=a.array.dtype)
            out[_diagonal_key(xp, (n, n), k)] = a.array
            return wrap(out)
        return wrap(a.array[_diagonal_key(xp, a.array.shape, k)])

    @staticmethod
    def backward(ctx, grad):
        xp = xp_of(grad)
        g = grad.array
        if len(ctx.input_shape) == 1:
            return wrap(g[_diagonal_key(xp, g.shape, ctx.k)]), None
        out = xp.zeros(ctx.input_shape, dtype=g.dtype)
        out[_diagonal_key(xp, ctx.input_shape, ctx.k)] = g
        return wrap(out), None


def diag(a: Tensor, diagonal: int = 0) -> Tensor:
    """A vector to a square matrix with it on diagonal ``diagonal``; a matrix to that diagonal (a copy)."""
    if a.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {a.ndim}D")
    return Diag.apply(a, int_argument(diagonal, "diag", "diagonal"))


# --- joins ---------------------------------------------------------------------------------------------


def hstack(tensors: Any) -> Tensor:
    """Join along dim 1 (dim 0 for 1-D tensors); 0-d tensors count as 1-D."""
    tensors = shape_checks.tensor_list(tensors, "hstack")
    if not tensors:
        raise RuntimeError("hstack expects a non-empty TensorList")
    tensors = [shape_ops.reshape(t, 1) if t.ndim == 0 else t for t in tensors]
    return shape_ops.cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    """Join along dim 0, 0-d and 1-D tensors first made rows (1 × n)."""
    tensors = shape_checks.tensor_list(tensors, "vstack")
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return shape_ops.cat([shape_ops.reshape(t, 1, -1) if t.ndim < 2 else t for t in tensors], 0)
