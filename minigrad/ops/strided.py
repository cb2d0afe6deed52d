"""Memory layout: strides, ``as_strided``, ``unfold``, and the in-place view ops.

A tensor's numbers live in one block of memory, its *storage*; the tensor reads them through a
*layout*: a shape, a stride per dimension (how many elements to step in storage for one step
along that dimension) and a storage offset (where element ``[0, 0, ...]`` sits)::

    element [i, j] of a 2-D tensor  =  storage[offset + i * stride[0] + j * stride[1]]

A fresh 3×4 tensor has strides (4, 1); its transpose ``t.t()`` is the same storage read with
strides (1, 4), and ``t[:, 1:]`` the same storage from offset 1. In minigrad the storage is the
array of the tensor the views were made from (``t._base``, or ``t`` itself), and a tensor's
layout is its NumPy (or CuPy) array's: ``array.strides`` counts bytes, ``stride()`` elements.

``as_strided`` and ``unfold`` make new layouts over the same storage, so writes show through.
Their windows may overlap (one storage element appears at several positions of the view), so
their backward *adds* what each position receives into a buffer shaped like the storage, as
PyTorch's ``AsStridedBackward0`` and ``UnfoldBackward0`` do.

The in-place view ops (``squeeze_``, ``unsqueeze_``, ``t_``, ``transpose_``) change a tensor's own
layout and keep its storage; they are recorded as PyTorch records them (``SqueezeBackward3``,
``TBackward1``, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad._arguments import int_argument
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import is_grad_enabled, no_grad
from minigrad.backend import get_array_module
from minigrad.ops import inplace
from minigrad.ops import shape as shape_ops
from minigrad.ops._util import ViewInfo, address_of, mark_view
from minigrad.tensor import Tensor, _normalize_dim

# --- reading a layout -------------------------------------------------------------------------


def stride(a: Tensor, dim: int | None = None) -> tuple[int, ...] | int:
    """The element strides of ``a``'s layout (``stride(dim)``: one of them).

    NumPy gives a dimension inserted by ``t[None]`` the stride 0, which PyTorch never does for a
    dimension of size 1: there the stride PyTorch's ``unsqueeze`` gives is reported, the size times
    the stride of the next dimension.
    """
    strides = _strides(a)
    if dim is None:
        return strides
    if not strides:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return strides[_normalize_dim(int_argument(dim, "stride", "dim"), len(strides))]


def _strides(a: Tensor) -> tuple[int, ...]:
    array = a._array
    strides = [step // array.itemsize for step in array.strides]
    following = 1  # size × stride of the dimension to the right
    for axis in reversed(range(array.ndim)):
        if strides[axis] == 0 and array.shape[axis] == 1:
            strides[axis] = following
        following = array.shape[axis] * strides[axis]
    return tuple(strides)


def storage_offset(a: Tensor) -> int:
    """Where ``a``'s first element sits in its storage, in elements."""
    return (address_of(a._array) - address_of(_storage_owner(a)._array)) // a._array.itemsize


_offset = storage_offset  # for as_strided, whose argument takes this name


def _storage_owner(a: Tensor) -> Tensor:
    return a if a._base is None else a._base


def _extent(shape: tuple, strides: tuple) -> int:
    """How many storage elements a layout reaches from its offset: 1 + the largest position."""
    if any(n == 0 for n in shape):
        return 0
    return 1 + sum((n - 1) * step for n, step in zip(shape, strides))


# --- as_strided -------------------------------------------------------------------------------

class AsStrided(Function):
    """y[i, j, ...] = storage[offset + i·stride[0] + j·stride[1] + ...]  (a view of a's storage).

    ``layout`` and ``output_layout`` place a's and y's elements in one storage, each as
    (shape, strides, storage offset); ``make_view()`` gives y's array. Besides ``as_strided``,
    ``ops/inplace.py`` records with it a view re-made from its base after an in-place change
    (PyTorch's node there too), and CopySlices' gradient for the written region.

    Backward: a storage-shaped buffer receives dy, *added* at each position the view read (the
    windows may overlap), and each element of a takes what its own position received:
    da[k] = buffer[position of a[k]] (divided by how many elements of a share that position, as
    PyTorch does, so that an expanded input gives its own input the right sum).
    """

    @staticmethod
    def forward(ctx, a, layout, output_layout, make_view):
        ctx.layout, ctx.output_layout = layout, output_layout  # each (shape, strides, storage offset)
        return Tensor(make_view())  # the storage read with the new layout

    @staticmethod
    def backward(ctx, grad):
        return AsStridedScatter.apply(grad, ctx.layout, ctx.output_layout), None, None, None


class AsStridedScatter(Function):
    """AsStrided's backward: a storage buffer gets dy added at the view's positions, and
    da[k] = buffer[position of a[k]] / (how many elements of a sit at that position).

    Linear in dy; its adjoint (:class:`AsStridedGather`) runs the other way round.
    """

    node_name = "AsStridedBackward0"  # PyTorch's node for this gradient (an as_strided of the buffer)

    @staticmethod
    def forward(ctx, grad, layout, output_layout):
        ctx.layout, ctx.output_layout = layout, output_layout
        xp = get_array_module(grad)
        buffer = _storage_sum(xp, grad.array, output_layout, _reach(layout, output_layout))
        positions = _positions(xp, layout)
        shared = _sharing(xp, layout, buffer.size)[positions]
        return Tensor((buffer[positions] / shared).astype(grad.dtype.numpy))

    @staticmethod
    def backward(ctx, grad_grad):
        return AsStridedGather.apply(grad_grad, ctx.layout, ctx.output_layout), None, None


class AsStridedGather(Function):
    """The adjoint of :class:`AsStridedScatter`: each v[k] / (elements of a sharing its position)
    is added into a storage buffer at a's positions, which is then read with the view's layout."""

    node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, values, layout, output_layout):
        ctx.layout, ctx.output_layout = layout, output_layout
        xp = get_array_module(values)
        size = _reach(layout, output_layout)
        shared = _sharing(xp, layout, size)[_positions(xp, layout)]
        buffer = _storage_sum(xp, values.array / shared, layout, size)
        return Tensor(buffer[_positions(xp, output_layout)].astype(values.dtype.numpy))

    @staticmethod
    def backward(ctx, grad):
        return AsStridedScatter.apply(grad, ctx.layout, ctx.output_layout), None, None


def layouts(base: Any, view: Any) -> tuple[tuple, tuple]:
    """The layouts (shape, strides, offset) of the array ``base`` and of its view ``view``, both
    counted in elements from ``base``'s first element: :class:`AsStrided`'s two layouts."""
    itemsize = base.itemsize

    def layout(array: Any) -> tuple:
        return (tuple(array.shape), tuple(step // itemsize for step in array.strides),
                (address_of(array) - address_of(base)) // itemsize)

    return layout(base), layout(view)


def _positions(xp: Any, layout: tuple) -> Any:
    """The storage position of every element of a layout ``(shape, strides, offset)``, as an array
    of that shape: offset + Σ index_k · stride_k."""
    shape, strides, offset = layout
    positions = xp.full(shape, offset, dtype=xp.int64)
    for axis, (n, step) in enumerate(zip(shape, strides)):
        positions += xp.arange(n, dtype=xp.int64).reshape((-1,) + (1,) * (len(shape) - axis - 1)) * step
    return positions


def _reach(*layouts: tuple) -> int:
    """A storage size that holds every position of the layouts."""
    return max(_extent(shape, strides) + offset for shape, strides, offset in layouts)


def _storage_sum(xp: Any, values: Any, layout: tuple, size: int) -> Any:
    """A storage buffer of ``size`` with each of ``values`` (laid out as ``layout``) added at its position."""
    return xp.bincount(_positions(xp, layout).reshape(-1), weights=values.reshape(-1).astype(xp.float64),
                       minlength=size)


def _sharing(xp: Any, layout: tuple, size: int) -> Any:
    """How many elements of ``layout`` sit at each storage position (at least 1)."""
    return xp.maximum(xp.bincount(_positions(xp, layout).reshape(-1), minlength=size), 1)


def as_strided(a: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """A view of ``a``'s storage with the layout ``size``, ``stride``, ``storage_offset`` (by default
    ``a``'s own offset). Writes to it change ``a``; its windows may overlap."""
    size, strides = _int_tuple(size, "size"), _int_tuple(stride, "stride")
    offset = _offset(a) if storage_offset is None else int_argument(storage_offset, "as_strided",
                                                                    "storage_offset")
    _check_as_strided(a, size, strides, offset)
    base = a._view.base if a._view is not None else a  # the tensor its view chain started from
    base_offset = _offset(base)
    reach = _extent(size, strides)
    if reach and (offset < base_offset or reach + offset > _extent(base.shape, _strides(base)) + base_offset):
        raise RuntimeError(f"as_strided: minigrad's views reach only the memory of the tensor they were "
                           f"made from: sizes {list(size)}, strides {list(strides)}, storage offset {offset} "
                           f"reach outside its {list(base.shape)} elements from offset {base_offset}")
    fn = _strided_view_fn(base, size, strides, offset - base_offset)
    out = AsStrided.apply(a, (tuple(a.shape), _strides(a), _offset(a)), (size, strides, offset),
                          lambda: fn(base._array))
    return _mark_strided_view(out, a, base, fn)


def _strided_view_fn(base: Tensor, size: tuple, strides: tuple, offset: int) -> Callable:
    """The array function that makes the view from an array laid out as ``base`` is (the view's
    record, ``ViewInfo.fn``). An array of ``base``'s shape with another layout (the positions
    ``ops/inplace.py`` computes from ``arange``) is first copied into ``base``'s layout."""
    itemsize = base._array.itemsize  # the array's own element strides (a size-1 dimension's may be 0)
    base_strides = tuple(step // itemsize for step in base._array.strides)
    extent = _extent(tuple(base.shape), base_strides)

    def view(array: Any) -> Any:
        xp = get_array_module(array)
        as_strided_ = xp.lib.stride_tricks.as_strided
        itemsize = array.itemsize
        if tuple(step // itemsize for step in array.strides) != base_strides:
            storage = xp.zeros(max(extent, 1), dtype=array.dtype)
            as_strided_(storage, array.shape, [step * itemsize for step in base_strides])[...] = array
            array = storage
        flat = as_strided_(array, (max(extent, 1),), (itemsize,))
        return as_strided_(flat[offset:], size, [step * itemsize for step in strides])

    return view


def _mark_strided_view(out: Tensor, a: Tensor, base: Tensor, fn: Callable) -> Tensor:
    """Record ``out`` as a view of ``base`` made by ``fn`` (not composed with ``a``'s own view: the
    layout already counts from the storage)."""
    root = _storage_owner(a)
    out._base = root
    if root._inference:  # a view of an inference tensor is one too (as _util.record_view's)
        out._inference = True
    parent = a._view
    creation = "default" if is_grad_enabled() else "no_grad"
    if parent is not None and parent.creation != "default":
        creation = parent.creation
    out._view = ViewInfo(base, fn, root._version_value, creation)
    return out


def _int_tuple(values: Any, name: str) -> tuple[int, ...]:
    if not isinstance(values, (tuple, list)):
        raise TypeError(f"as_strided(): argument '{name}' must be tuple of ints, not {type(values).__name__}")
    return tuple(int_argument(v, "as_strided", name) for v in values)


def _check_as_strided(a: Tensor, size: tuple, strides: tuple, offset: int) -> None:
    """PyTorch's checks, with its messages."""
    if len(size) != len(strides):
        raise RuntimeError(f"mismatch in length of strides and shape (sizes {list(size)}, strides "
                           f"{list(strides)})")
    if any(step < 0 for step in strides):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(strides)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(size)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    owner = _storage_owner(a)
    storage = _extent(tuple(owner.shape), _strides(owner)) * owner._array.itemsize // a._array.itemsize
    needed = _extent(size, strides) + offset if _extent(size, strides) else 0
    if needed > storage:
        itemsize = a._array.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(strides)}, storage offset "
                           f"{offset}, and itemsize {itemsize} requiring a storage size of "
                           f"{needed * itemsize} are out of bounds for storage of size {storage * itemsize}")


# --- unfold: sliding windows --------------------------------------------------------------------

class Unfold(Function):
    """Windows of ``size`` elements, ``step`` apart, along ``axis`` (a view: no copy):

        y[..., w, ..., k] = a[..., w·step + k, ...]    for w < L = (n − size) // step + 1, k < size

    Backward (:class:`UnfoldBackward`): windows overlap when step < size, so each input element
    gathers the gradient of every window position it appears in:
    da[..., w·step + k, ...] += dy[..., w, ..., k].
    """

    @staticmethod
    def forward(ctx, a, axis, size, step):
        ctx.axis, ctx.size, ctx.step, ctx.input_shape = axis, size, step, a.array.shape
        return Tensor(_windows(a.array, axis, size, step))

    @staticmethod
    def backward(ctx, grad):
        return UnfoldBackward.apply(grad, ctx.input_shape, ctx.axis, ctx.size, ctx.step), None, None, None


class UnfoldBackward(Function):
    """da = zeros(a's shape), then for each offset k in the window: da[k :: step][:L] += dy[..., k].

    A loop over the window's offsets (never over the windows), as col2im loops over a kernel's.
    Linear in dy; its adjoint is the unfold itself.
    """

    @staticmethod
    def forward(ctx, grad, input_shape, axis, size, step):
        ctx.axis, ctx.size, ctx.step = axis, size, step
        g = grad.array
        xp = get_array_module(g)
        grad_a = xp.zeros(input_shape, dtype=g.dtype)
        if not input_shape:  # a 0-d tensor: one window of its one element
            return Tensor(g.sum().astype(g.dtype).reshape(()))
        windows = g.shape[axis]
        for k in range(size):
            target = [slice(None)] * len(input_shape)
            target[axis] = slice(k, k + step * (windows - 1) + 1, step)
            grad_a[tuple(target)] += g[..., k]
        return Tensor(grad_a)

    @staticmethod
    def backward(ctx, grad_grad):
        return Unfold.apply(grad_grad, ctx.axis, ctx.size, ctx.step), None, None, None, None


def _windows(array: Any, axis: int, size: int, step: int) -> Any:
    """``array``'s sliding windows along ``axis`` as a strided view: that axis counts the windows
    (stride × step), a new last axis of ``size`` walks inside a window (the axis's own stride)."""
    xp = get_array_module(array)
    if array.ndim == 0:
        return xp.lib.stride_tricks.as_strided(array, (size,), (array.itemsize,))
    windows = (array.shape[axis] - size) // step + 1
    shape = array.shape[:axis] + (windows,) + array.shape[axis + 1:] + (size,)
    strides = list(array.strides)
    strides[axis] *= step
    return xp.lib.stride_tricks.as_strided(array, shape, (*strides, array.strides[axis]))


def unfold(a: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``a.unfold(dimension, size, step)``: every window of ``size`` elements along ``dimension``,
    ``step`` apart, in a new last dimension; a view sharing ``a``'s storage."""
    size, step = int_argument(size, "unfold", "size"), int_argument(step, "unfold", "step")
    axis = _normalize_dim(int_argument(dimension, "unfold", "dimension"), a.ndim)
    length = a.shape[axis] if a.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {axis} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return mark_view(Unfold.apply(a, axis, size, step), a, lambda array: _windows(array, axis, size, step))


# --- in-place view ops: the tensor's own layout changes ---------------------------------------

def squeeze_(a: Tensor, dim: Any = None) -> Tensor:
    overload = 3 if dim is None else 5 if isinstance(dim, (tuple, list)) else 4
    return _relayout(a, "squeeze_", lambda t: shape_ops.squeeze(t, dim), f"SqueezeBackward{overload}")


def unsqueeze_(a: Tensor, dim: int) -> Tensor:
    return _relayout(a, "unsqueeze_", lambda t: shape_ops.unsqueeze(t, dim), "UnsqueezeBackward1")


def t_(a: Tensor) -> Tensor:
    return _relayout(a, "t_", shape_ops.t, "TBackward1")


def transpose_(a: Tensor, dim0: int, dim1: int) -> Tensor:
    return _relayout(a, "transpose_", lambda t: shape_ops.transpose(t, dim0, dim1), "TransposeBackward1")


def _relayout(a: Tensor, op_name: str, view_op: Callable[[Tensor], Tensor], node_name: str) -> Tensor:
    """Give ``a`` the layout of ``view_op(a)`` (same storage), in place. In the graph, ``a`` takes the
    view op's node (named ``node_name``, PyTorch's in-place overload); a view keeps its view record,
    with the new layout added to it. Bumps the version, as any in-place change."""
    view = a._view
    recording = is_grad_enabled() and a.requires_grad
    inplace._check_allowed(a, view, op_name, recording)
    if recording:
        out = view_op(a)
    else:
        with no_grad():
            out = view_op(a)
    a._array = out._array
    if recording and out._grad_fn is not None:
        out._grad_fn._name = node_name
        a._grad_fn, a._output_nr = out._grad_fn, 0
    if view is not None and out._view is not None:
        view.fn = out._view.fn
    a._bump_version(op_name)
    if view is not None:
        view.version = a._version
    return a


__all__ = ["as_strided", "squeeze_", "storage_offset", "stride", "t_", "transpose_",
           "unfold", "unsqueeze_"]
