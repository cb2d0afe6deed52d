"""Shape operations, views of the same numbers: reshape/view/flatten/squeeze/unsqueeze,
permute/transpose/t/movedim/swapaxes, expand/broadcast_to. They move numbers around without
changing them, so each backward moves the gradient back the same way.

Joining and cutting into pieces (cat, stack, split, chunk, unbind, narrow) are in ``joining.py``,
copies that rearrange elements (flip, roll, repeat) in ``rearrange.py``, padding in ``padding.py``,
choosing elements by index or mask in ``selection.py``, ``masking.py`` and ``indexing.py``."""

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad._arguments import int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._checks import shape as checks
from minigrad.ops._util import mark_view, product, reduction_axes
from minigrad.tensor import Tensor, _normalize_dim


class Reshape(Function):
    """y = a with a new shape (same elements, same order);   da = dy viewed back as a's shape.

    PyTorch shows one node per reshaping call; each is a subclass below, its node named after it
    (``View`` -> ``ViewBackward0``), so that the code calls the op it means.
    """

    @staticmethod
    def forward(ctx, a, shape):
        ctx.input_shape = a.array.shape
        return Tensor(a.array.reshape(shape))

    @staticmethod
    def backward(ctx, grad):
        return View.apply(grad, ctx.input_shape), None


class View(Reshape):
    """``view``, and ``reshape`` of a contiguous tensor."""


class UnsafeView(Reshape):
    """PyTorch's reshape of a product's result (``matmul``, ``linear`` without bias), or of a strided
    view that needs a copy."""


class ReshapeAlias(Reshape):
    """PyTorch's reshape of a strided view (``t()``, ``transpose``) that needs no copy."""


class Unsqueeze(Reshape):
    """``unsqueeze``: a size-1 dimension inserted."""


class Squeeze(Reshape):
    """``squeeze()``: every size-1 dimension removed."""


class SqueezeDim(Reshape):
    """``squeeze(dim)``."""

    node_name = "SqueezeBackward1"


class SqueezeDims(Reshape):
    """``squeeze(dims)`` with a tuple of dims."""

    node_name = "SqueezeBackward2"


class SqueezeDim_(Reshape):  # PyTorch's in-place name
    """``squeeze_(dim)``, which PyTorch's ``matmul`` and ``linear`` apply to a vector's product."""

    node_name = "SqueezeBackward4"


def reshape(a: Tensor, *shape: Any) -> Tensor:
    return reshape_to(a, checks.infer_shape(checks.sizes_argument(shape), a.numel()))


def reshape_to(a: Tensor, shape: tuple) -> Tensor:
    """``a`` reshaped to ``shape`` (complete, no -1), with the node PyTorch's ``reshape`` records: a view
    of a contiguous tensor (an op's result counts as one, as PyTorch makes them); of a strided view
    (``t()``, ``transpose``) an alias where no copy is needed, else an unsafe view of a copy."""
    op: type[Reshape] = View
    if a._base is not None and not a._array.flags.c_contiguous:
        shares = get_array_module(a).may_share_memory(a._array.reshape(shape), a._array)
        op = ReshapeAlias if shares else UnsafeView
    return reshaped(a, shape, op)


def reshaped(a: Tensor, shape: tuple, op: type[Reshape] = View) -> Tensor:
    """``op.apply(a, shape)``, recorded as a view of ``a`` where no copy was needed."""
    return mark_view(op.apply(a, shape), a, lambda array: array.reshape(shape))


def view(a: Tensor, *shape: Any, dtype: Any = None) -> Tensor:
    """``a.view(shape)``: the same storage seen with a new shape (an error where that would need a copy);
    ``a.view(dtype)``: the same bytes read as another dtype."""
    if dtype is None and len(shape) == 1 and isinstance(shape[0], (_dtypes.dtype, type)):
        dtype, shape = shape[0], ()
    if dtype is not None:
        return _view_as_dtype(a, _dtypes.dtype_argument(dtype, "view"))
    out = reshaped(a, checks.infer_shape(checks.sizes_argument(shape), a.numel()))
    if out._base is None and a.numel() and _is_view_of_contiguous(a):
        raise RuntimeError(f"view size is not compatible with input tensor's size and stride (at least one "
                           f"dimension spans across two contiguous subspaces): can't view the "
                           f"{list(a.shape)} tensor as {list(out.shape)}. Use .reshape(...) instead.")
    return out


def _is_view_of_contiguous(a: Tensor) -> bool:
    """True if ``a`` was made by view ops from a C-contiguous array: its strides are then PyTorch's, and
    reshaping it needs a copy exactly where PyTorch's ``view`` raises. (Other arrays may be laid out
    differently from PyTorch's tensors, and for those ``view`` copies rather than raise.)"""
    return a._view is not None and a._view.base.array.flags.c_contiguous


def _view_as_dtype(a: Tensor, target: _dtypes.dtype) -> Tensor:
    """The same bytes as ``target`` elements; with another element size the last dim grows or shrinks.

    As in PyTorch it is not differentiable, and it shares storage (and the version counter) with ``a``.
    """
    checks.check_view_as_dtype(a, target)
    try:
        out = Tensor(a.array.view(target.numpy))
    except ValueError as error:
        raise RuntimeError(f"can't view the {list(a.shape)} {a.dtype.name} tensor as {target.name}: "
                           f"{error}") from None
    out._base = a if a._base is None else a._base
    return out


def flatten(a: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    start, end = _normalize_dim(start_dim, a.ndim), _normalize_dim(end_dim, a.ndim)
    if a.ndim == 0:
        return reshape(a, 1)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = a.shape
    return reshape_to(a, shape[:start] + (product(shape[start:end + 1]),) + shape[end + 1:])


def squeeze(a: Tensor, dim: Any = None) -> Tensor:
    """Remove size-1 dimensions (all, or those in ``dim`` that have size 1)."""
    axes = (reduction_axes(dim, a.ndim) or ()) if dim is not None else tuple(range(a.ndim))
    shape = tuple(n for i, n in enumerate(a.shape) if not (i in axes and n == 1))
    op = Squeeze if dim is None else SqueezeDims if isinstance(dim, (tuple, list)) else SqueezeDim
    return reshaped(a, shape, op)


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dimension at ``dim`` (in ``[-ndim-1, ndim]``)."""
    axis = _normalize_dim(int_argument(dim, "unsqueeze", "dim"), a.ndim + 1)
    shape = a.shape
    return reshaped(a, shape[:axis] + (1,) + shape[axis:], Unsqueeze)


class Permute(Function):
    """y = a with its axes reordered;   da = dy with the inverse order (by the same op: the
    backward of ``t`` is a ``t``, of ``transpose`` a ``transpose``)."""

    @staticmethod
    def forward(ctx, a, axes):
        ctx.inverse = tuple(sorted(range(len(axes)), key=axes.__getitem__))
        return Tensor(a.array.transpose(axes))

    @staticmethod
    def backward(ctx, grad):
        return ctx._forward_cls.apply(grad, ctx.inverse), None


class Transpose(Permute):
    """``transpose(dim0, dim1)``: two axes swapped."""


class T(Permute):
    """``t()``: a matrix's axes swapped (a vector or a number unchanged)."""


def permute(a: Tensor, *dims: Any) -> Tensor:
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return permuted(a, checks.permute_axes(a, checks.sizes_argument(dims)))


def permuted(a: Tensor, axes: tuple, op: type[Permute] = Permute) -> Tensor:
    """``op.apply(a, axes)``, recorded as a view of ``a``."""
    return mark_view(op.apply(a, axes), a, lambda array: array.transpose(axes))


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    d0, d1 = _normalize_dim(dim0, a.ndim), _normalize_dim(dim1, a.ndim)
    if a.ndim == 0:
        return a.view(())
    axes = list(range(a.ndim))
    axes[d0], axes[d1] = axes[d1], axes[d0]
    return permuted(a, tuple(axes), Transpose)


def t(a: Tensor) -> Tensor:
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return permuted(a, tuple(reversed(range(a.ndim))), T)


class Expand(Function):
    """y = a broadcast to a larger shape (no copy);   da = dy summed over the broadcast axes
    (the new leading ones and those where a has size 1), then shaped as a."""

    @staticmethod
    def forward(ctx, a, shape):
        ctx.input_shape = a.array.shape
        lead = len(shape) - a.ndim
        ctx.axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(a.array.shape)
                                              if n == 1 and shape[lead + i] != 1)
        ctx.only_leading = len(ctx.axes) == lead
        return Tensor(get_array_module(a).broadcast_to(a.array, shape))

    @staticmethod
    def backward(ctx, grad):
        from minigrad.ops.reduction import SumDims  # noqa: PLC0415 (reduction's backward expands)

        if not ctx.axes:
            return grad, None
        if ctx.only_leading:  # summing the new axes away leaves a's shape
            return SumDims.apply(grad, ctx.axes, False, None), None
        summed = SumDims.apply(grad, ctx.axes, True, None)
        if summed.shape != ctx.input_shape:
            summed = View.apply(summed, ctx.input_shape)
        return summed, None


def expand(a: Tensor, *sizes: Any) -> Tensor:
    shape = checks.expanded_shape(a, checks.sizes_argument(sizes))
    return mark_view(Expand.apply(a, shape), a,
                     lambda array: get_array_module(array).broadcast_to(array, shape))


def movedim(a: Tensor, source: Any, destination: Any) -> Tensor:
    """The view with dimensions ``source`` moved to positions ``destination``; the others keep their order."""
    sources, targets = checks.movedim_axes(a, source, destination)
    if a.ndim == 0:
        return reshape(a, ())
    order = [None] * a.ndim
    for s, d in zip(sources, targets):
        order[d] = s
    rest = iter(d for d in range(a.ndim) if d not in sources)
    return permute(a, [d if d is not None else next(rest) for d in order])


def swapaxes(a: Tensor, axis0: int, axis1: int) -> Tensor:
    """The view with two dimensions exchanged (``transpose``)."""
    return transpose(a, axis0, axis1)


def broadcast_to(a: Tensor, size: Any) -> Tensor:
    """The view of ``a`` broadcast to ``size`` (``expand``)."""
    return expand(a, size)
