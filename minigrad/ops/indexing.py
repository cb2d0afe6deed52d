"""Indexing: ``a[key]`` and ``a[key] = value``, with basic slices and integer/bool arrays.

Reading gathers elements; its backward scatters the gradient back to where they came
from, *adding* where an index repeats (``a[[0, 0]]`` sends two gradients to ``a[0]``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import is_grad_enabled
from minigrad.backend import get_array_module
from minigrad.ops._checks import indexing as checks
from minigrad.ops._util import (
    TORCH_TYPE_NAMES,
    converted_scalar,
    ieee_results,
    mark_view,
    record_view,
)
from minigrad.tensor import Tensor


def prepare_key(a: Tensor, key: Any) -> tuple:
    """The key with Tensors and lists turned into arrays of ``a``'s module, bounds checked.

    Returns ``(key, is_basic)``; ``is_basic`` means only ints, slices, None and Ellipsis
    (a view, no repeated elements).
    """
    parts, basic = checks.key_parts(a, key)
    if not basic and any(_is_integer(part) for part in parts):
        return SplitKey(parts), basic
    return tuple(parts), basic


def _is_integer(part: Any) -> bool:
    """An int, or a 0-d integer array (a 0-d integer tensor indexes as an int in PyTorch)."""
    if hasattr(part, "dtype"):
        return part.ndim == 0 and part.dtype.kind in "iu"
    return isinstance(part, int) and not isinstance(part, bool)


class SplitKey:
    """A key that mixes integers with index arrays, applied in two steps as PyTorch does.

    PyTorch first selects with the integers (and slices, None, ...) and then indexes what is left
    with the arrays. NumPy treats the integers as index arrays too, which can move the arrays'
    dimensions elsewhere: ``a[0, :, [1, 2]]`` of a 2×3×4 tensor is 3×2 in PyTorch but 2×3 in NumPy.
    """

    __slots__ = ("first", "second")

    def __init__(self, parts: list):
        first: list[Any] = []
        second: list[Any] = []
        for part in parts:
            if _is_integer(part):
                first.append(int(part))
            elif hasattr(part, "dtype"):  # an index array: all of its dimensions are kept in step one
                first.extend([slice(None)] * (part.ndim if part.dtype == bool else 1))
                second.append(part)
            else:  # a slice, None or Ellipsis: applied in step one
                first.append(part)
                second.append(part if part is Ellipsis else slice(None))
        if Ellipsis not in first:  # so that step one is a view, also a 0-d one (a[0-d index] = v)
            first.append(Ellipsis)
        self.first, self.second = tuple(first), tuple(second)


def read(array: Any, key: Any) -> Any:
    """``array[key]``, for a plain or a :class:`SplitKey` key."""
    if isinstance(key, SplitKey):
        return array[key.first][key.second]
    return array[key]


def write(array: Any, key: Any, value: Any) -> None:
    """``array[key] = value``, for a plain or a :class:`SplitKey` key (step one is a view of ``array``)."""
    if isinstance(key, SplitKey):
        array[key.first][key.second] = value
    else:
        array[key] = value


class GetItem(Function):
    """y = a[key];   da = zeros with dy added at the positions the key selected (:class:`GetItemBackward`)."""

    @staticmethod
    def forward(ctx, a, key, basic, name):
        ctx.key, ctx.basic, ctx.input_shape = key, basic, a.array.shape
        ctx._name = name
        return Tensor(read(a.array, key))

    @staticmethod
    def backward(ctx, grad):
        return GetItemBackward.apply(grad, ctx.input_shape, ctx.key, ctx.basic, ctx.name()), None, None, None


# PyTorch's nodes for the backward of a read, where they are not the read's name + "Backward0"
_BACKWARD_OP_NAMES = {"IndexBackward0": "IndexPutImplBackward0", "IndexSelectBackward0": "IndexAddBackward0"}


class GetItemBackward(Function):
    """da = zeros(shape) with dy added at [key] (repeated positions sum up): the backward of ``a[key]``.

    It is linear in dy, and its own backward reads [key] again: d(da)/d(dy) is ``GetItem``. ``read_name``
    is the node name of the read (``SelectBackward0``); this node is named as PyTorch names the backward
    op (``SelectBackwardBackward0``; ``IndexPutImplBackward0`` for an index array, ``IndexAddBackward0``
    for ``index_select``).
    """

    @staticmethod
    def forward(ctx, grad, shape, key, basic, read_name):
        ctx.key, ctx.basic, ctx.read_name = key, basic, read_name
        ctx._name = _BACKWARD_OP_NAMES.get(read_name) or read_name[:-1] + "Backward0"
        xp = get_array_module(grad)
        g = grad.array
        if basic:  # a view: every selected element appears once
            grad_a = xp.zeros(shape, dtype=g.dtype)
            grad_a[key] = g
            return Tensor(grad_a)
        return Tensor(scatter_add(xp, g, shape, key))

    @staticmethod
    def backward(ctx, grad):
        return GetItem.apply(grad, ctx.key, ctx.basic, ctx.read_name), None, None, None, None


def _torch_node_name(key: Any, basic: bool) -> str:
    """PyTorch's name for the node of ``a[key]``: the last view it takes (Select for an int, Slice,
    Unsqueeze for None), Alias for ``a[:, :]``, Index when arrays select. A lone slice (``a[:]``) is
    always a Slice, as PyTorch skips full slices only inside a tuple."""
    if not basic:
        return "IndexBackward0"
    if isinstance(key, slice):
        return "SliceBackward0"
    name = "AliasBackward0"
    for part in key:
        if part is None:
            name = "UnsqueezeBackward0"
        elif isinstance(part, slice):
            if part != slice(None):
                name = "SliceBackward0"
        elif part is not Ellipsis:
            name = "SelectBackward0"
    return name


def scatter_add(xp: Any, values: Any, shape: tuple, key: Any) -> Any:
    """zeros(shape) with ``values`` added at ``[key]``, summing repeats (CuPy-safe, no ``add.at``)."""
    size = 1
    for n in shape:
        size *= n
    positions = read(xp.arange(size).reshape(shape), key)  # the flat position each value came from
    totals = xp.bincount(positions.reshape(-1), weights=values.reshape(-1).astype(xp.float64),
                         minlength=size)
    return totals.astype(values.dtype).reshape(shape)


def getitem(a: Tensor, key: Any) -> Tensor:
    view = a._view
    if type(key) is int and not ((a._requires_grad or (view is not None and view.base._requires_grad))
                                 and is_grad_enabled()):  # may_need_graph(a), inline: it runs per sample
        return select_row(a, key)  # a Dataset's x[i]
    given = key
    key, basic = prepare_key(a, key)
    name = _torch_node_name(given if isinstance(given, slice) else key, basic)
    if not basic:
        return GetItem.apply(a, key, basic, name)
    steps = _one_index_at_a_time(key, a.ndim)
    if len(steps) > 1:  # PyTorch's graph: a[1, 2:] is a Slice of a Select, one view node per index
        out = a
        for step in steps:
            out = _basic_view(out, step, _torch_node_name(step, True))
        return out
    return _basic_view(a, key, name)


def may_need_graph(a: Tensor) -> bool:
    """Whether ``a[i]`` could be recorded: ``a`` requires grad, or is a view whose base does (an
    in-place change of the base may yet give the view a history) — and grad mode is on."""
    view = a._view
    return (a._requires_grad or (view is not None and view.base._requires_grad)) and is_grad_enabled()


def select_row(a: Tensor, i: int) -> Tensor:
    """``a[i]`` for an int ``i`` where nothing is recorded: the view ``a[i, ...]`` made directly.

    The same tensor :func:`getitem` makes, without the graph's machinery: per-sample access
    (``x[i], y[i]`` in a Dataset's ``__getitem__``) runs once per sample, and that machinery cost
    ten times the NumPy indexing (docs/performance.md, "Per-sample access").
    """
    array = a._array
    shape = array.shape
    if not (shape and -shape[0] <= i < shape[0] and array.size):  # out of range, 0-d, or empty: no view
        return getitem(a, (i,))  # the general path (with PyTorch's IndexError)
    return record_view(Tensor(array[i, ...]), a, lambda base: base[i, ...])


def _basic_view(a: Tensor, key: tuple, name: str) -> Tensor:
    if Ellipsis not in key:
        key += (Ellipsis,)  # so that a[0, 1] is a 0-d view of a, as in PyTorch, not a NumPy scalar
    return mark_view(GetItem.apply(a, key, True, name), a, lambda array: array[key])


def _one_index_at_a_time(key: tuple, ndim: int) -> list:
    """A basic key as the one-index keys PyTorch applies in turn (full slices need none); the key
    itself when it holds a bool (``a[True]``), which is no index of a dimension."""
    if any(isinstance(part, bool) for part in key):
        return [key]
    explicit = sum(1 for part in key if part is not None and part is not Ellipsis)
    steps, dim = [], 0  # dim: the dimension of the result so far that the next part indexes
    for part in key:
        if part is Ellipsis:
            dim += ndim - explicit
        elif part is None or (isinstance(part, slice) and part != slice(None)):
            steps.append((slice(None),) * dim + (part,))
            dim += 1
        elif isinstance(part, slice):
            dim += 1
        else:  # an int: that dimension goes
            steps.append((slice(None),) * dim + (part,))
    return steps


def iterate(a: Tensor) -> Iterator[Tensor]:
    """``for row in a``: the views ``a[0], a[1], ...``. As PyTorch's (made by unbind), they may
    not be changed in place while the graph is recorded (``a[i]`` may)."""
    for i in range(a.shape[0]):
        yield mark_multi_output(getitem(a, i), "UnbindBackward0", i)


def mark_multi_output(piece: Tensor, node_name: str, index: int) -> Tensor:
    """``piece``, the ``index``-th output of PyTorch's split or unbind: a view that may not be changed
    in place in a graph, whose node takes the name of PyTorch's one node for all pieces."""
    if piece._view is not None and piece._view.creation == "default":
        piece._view.creation = "multi_output"
    node: Any = piece._grad_fn  # a generated Node class: piece_index is this one's own attribute
    if node is not None:
        node._name = node_name
        node.piece_index = index  # for the error of an in-place change ("Output 1 of Split ...")
    return piece


def _is_index_array(part: Any) -> bool:
    """A part of a key that PyTorch indexes with (a tensor, list or array; not a 0-d integer tensor)."""
    if isinstance(part, Tensor):
        return part.ndim != 0 or part.dtype in (_dtypes.bool, _dtypes.uint8)
    return isinstance(part, (list, numpy.ndarray))


class IndexPut(Function):
    """y = a with y[key] = value;   da = dy with zeros at key (itself an IndexPut),  dvalue = dy[key] (summed
    to value's shape by the engine)."""

    @staticmethod
    def forward(ctx, a, key, value):
        out = a.array.copy()
        source = value.array if isinstance(value, Tensor) else value
        try:
            with ieee_results():  # a number beyond a float16's range is inf there, as in PyTorch
                write(out, key, source)
        except ValueError:  # the array library's broadcast error, as PyTorch's
            target = list(read(out, key).shape)
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(source.shape)} cannot be "
                               f"broadcast to indexing result of shape {target}") from None
        ctx.key = key
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        grad_a = IndexPut.apply(grad, ctx.key, 0) if ctx.needs_input_grad[0] else None
        grad_value = None
        if ctx.needs_input_grad[2]:
            key = ctx.key
            basic = not isinstance(key, SplitKey) and not any(hasattr(part, "dtype") for part in key)
            if basic and Ellipsis not in key:
                key += (Ellipsis,)  # so that dy[0, 1] is a 0-d array, not a NumPy scalar
            grad_value = GetItem.apply(grad, key, basic, "IndexBackward0")
        return grad_a, None, grad_value


def index_put(a: Tensor, key: Any, value: Any) -> Tensor:
    one_value = not isinstance(value, Tensor) or value.numel() == 1
    raw = [part for part in (key if isinstance(key, tuple) else (key,)) if _is_index_array(part)]
    if one_value and len(raw) == 1 and isinstance(raw[0], Tensor) and raw[0].dtype is _dtypes.uint8:
        # PyTorch puts one value at one mask with masked_fill_, which takes no byte mask
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    key, _ = prepare_key(a, key)
    if isinstance(value, Tensor):
        if value.device != a.device:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found {a.device} and "
                               f"{value.device} (index_put)")
        parts = key.second if isinstance(key, SplitKey) else key
        arrays = [part for part in parts if hasattr(part, "dtype")]
        fills_a_mask = one_value and len(arrays) == 1 and arrays[0].dtype == bool
        if value.dtype is not a.dtype and arrays and not fills_a_mask:
            # PyTorch converts a value only for a basic key (a copy into a view) or for one value put
            # at one mask (masked_fill); index arrays need the destination's dtype
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{TORCH_TYPE_NAMES[a.dtype.name]} for the destination and "
                               f"{TORCH_TYPE_NAMES[value.dtype.name]} for the source.")
        if value.dtype is not a.dtype:
            value = value.to(a.dtype)
    elif isinstance(value, (list, tuple, numpy.ndarray, str)) or value is None:
        name = "numpy.ndarray" if isinstance(value, numpy.ndarray) else type(value).__name__
        raise TypeError(f"can't assign a {name} to a {a.dtype.name} tensor (assign a Tensor or a number)")
    elif not isinstance(value, (int, float, bool)):
        from minigrad.creation import tensor  # noqa: PLC0415

        value = tensor(value, dtype=a.dtype, device=a.device)
    else:  # a number, as an element of a's type: int8 refuses 300, uint8 takes -1 as 255, as PyTorch
        value = converted_scalar(value, a.dtype, float_overflow=True)
    return IndexPut.apply(a, key, value)
