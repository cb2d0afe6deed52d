"""In-place operations (``add_``, ``+=``, ``x[i] = v``, ``fill_`` ...), as PyTorch records them.

An in-place op computes the out-of-place result and writes it into the tensor's own
array, so views of that storage see the change. When the graph is being recorded,
the op is recorded on a snapshot of the old value and the tensor takes the new node
as its ``grad_fn``. Every in-place change bumps the storage's version counter, so a
backward that saved the old value raises instead of using the new one.

A *view* ``v`` of a base ``b`` (``b[0]``, ``b.t()``, ``b.view(12)[3:7]`` ...) shares ``b``'s
storage, so changing ``v`` changes ``b`` too, and both must learn of it:

1. the op is recorded on ``v``'s old value, giving ``new_v``;
2. ``b`` takes a :class:`CopySlices` node with two inputs, its old history and ``new_v``;
3. ``v`` becomes the view re-applied to the new ``b`` (``ops/strided.py``'s :class:`AsStrided`).

Another view of ``b`` made *before* the change catches up when it is next used as an
input (or its ``requires_grad``/``grad_fn`` is read): its version no longer matches the
storage's, so :func:`refresh_view` re-applies it to ``b``'s new history, as PyTorch does
lazily. As in PyTorch, a view made under ``no_grad`` (or a row of ``for row in t``) may not
be changed in place while the graph is recorded, nor may a view of a leaf that requires grad.

Known differences from PyTorch: code that reads the private ``_grad_fn`` of a view made
before such a change sees the old node; the base's node is called ``CopySlicesBackward0``
(PyTorch: ``CopySlices``); and since the op runs on a snapshot, a view changed by an op that
PyTorch saves the output of (``relu_``) may be changed again without a version error.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy  # dtype metadata only (finfo, iinfo), never tensor data

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function, rebase_history
from minigrad.autograd.grad_mode import _GradMode, no_grad
from minigrad.backend import get_array_module
from minigrad.ops import indexing, strided
from minigrad.ops._util import ViewInfo, address_of, converted_scalar, product
from minigrad.tensor import Tensor


def apply(a: Tensor, op_name: str, compute: Callable[[Tensor], Tensor], *others: Any) -> Tensor:
    """Replace ``a``'s values with ``compute(a)``, recording the op if the graph needs it."""
    if a._inference and not _GradMode.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed.You can "
                           "make a clone to get a normal tensor before doing inplace update.See "
                           "https://github.com/pytorch/rfcs/pull/17 for more details.")
    view = None
    if a._base is not None:
        if op_name not in _FILLS:  # a fill writes one value, however often an element appears
            _check_no_overlap(a)
        view = a._view
    for other in others:
        if isinstance(other, Tensor) and op_name != "__setitem__":  # setitem checks the region it writes
            check_partial_overlap(a._array, other._array)
    recording = _GradMode.enabled and (
        a.requires_grad or (view is not None and view.base._requires_grad)
        or any(isinstance(o, Tensor) and o.requires_grad for o in others))
    _check_allowed(a, view, op_name, recording)
    if recording and view is not None:
        return _apply_to_view(a, view, op_name, compute)
    if recording:
        result = compute(_snapshot(a))
    else:
        with no_grad():
            result = compute(a)
    _check_result(a, result, op_name)
    _assign(a, result._array)
    if recording:
        rebase_history(a, result._grad_fn, result._output_nr, result._requires_grad)
    a._bump_version(op_name)
    return a


def _snapshot(a: Tensor) -> Tensor:
    """A copy of ``a``'s old value that keeps ``a``'s old place in the graph."""
    snapshot = Tensor(a._array.copy())
    snapshot._requires_grad, snapshot._grad_fn = a._requires_grad, a._grad_fn
    snapshot._output_nr = a._output_nr
    return snapshot


# --- views: the base changes too ------------------------------------------------------------

class CopySlices(Function):
    """b' = b with its view's region replaced by ``value`` (written into b's own storage).

    ``view_fn`` maps b's array to the view's. Backward:  db = dy with the view's region
    set to zero (those elements of b were overwritten),  dvalue = view_fn(dy), an as_strided of
    dy laid out as b.
    """

    @staticmethod
    def forward(ctx, base, value, view_fn):
        write_through(base.array, view_fn, value.array)
        ctx.view_fn, ctx.layouts = view_fn, strided.layouts(base.array, view_fn(base.array))
        return Tensor(base.array)

    @staticmethod
    def backward(ctx, grad):
        grad_value = (strided.AsStrided.apply(grad, *ctx.layouts, lambda: ctx.view_fn(grad.array))
                      if ctx.needs_input_grad[1] else None)
        grad_base = ZeroedView.apply(grad, ctx.view_fn) if ctx.needs_input_grad[0] else None
        return grad_base, grad_value, None


class ZeroedView(Function):
    """y = a with the region ``view_fn`` selects set to 0 (CopySlices' gradient for the base);
    linear and its own adjoint:  da = dy with that region set to 0."""

    @staticmethod
    def forward(ctx, a, view_fn):
        ctx.view_fn = view_fn
        out = a.array.copy()  # C order, so reshape(-1) below is a view of it
        out.reshape(-1)[_positions(view_fn, out.shape, get_array_module(a))] = 0
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        return ZeroedView.apply(grad, ctx.view_fn), None


def _positions(view_fn: Callable, base_shape: tuple, xp: Any) -> Any:
    """The flat index in the base of each element of the view: the view applied to 0, 1, ..., n-1."""
    return view_fn(xp.arange(product(base_shape)).reshape(base_shape)).reshape(-1)


def _apply_to_view(a: Tensor, view: ViewInfo, op_name: str, compute: Callable[[Tensor], Tensor]) -> Tensor:
    """``compute`` recorded on the view ``a``, then on its base (CopySlices) and ``a`` re-viewed."""
    _check_view_record(a, view)
    result = compute(_snapshot(a))
    _check_result(a, result, op_name)
    write_to_view(a, view, result, op_name)
    return a


def write_to_view(a: Tensor, view: ViewInfo, new_value: Tensor, op_name: str) -> None:
    """The view ``a`` takes ``new_value`` (and its history) in place: its base takes a CopySlices
    node (its old history, and ``new_value`` in the view's region), and ``a`` is made again from
    the new base."""
    base = view.base
    new_base = CopySlices.apply(base, new_value, view.fn)  # writes the new value through the view
    rebase_history(base, new_base._grad_fn, 0, new_base._requires_grad)
    a._bump_version(op_name)
    _view_again(a, view)


def _view_again(a: Tensor, view: ViewInfo) -> None:
    base = view.base
    array = view.fn(base._array)
    new_view = strided.AsStrided.apply(base, *strided.layouts(base._array, array), lambda: array)
    rebase_history(a, new_view._grad_fn, 0, new_view._requires_grad)
    view.version = a._version


def refresh_view(a: Tensor) -> None:
    """If ``a`` is a view whose storage changed in place since its ``grad_fn`` was made, make
    that ``grad_fn`` the view of its base's current history (a no-op otherwise)."""
    view = a._view
    if view is None or view.version == a._version or view.creation == "no_grad" or not _GradMode.enabled:
        return
    if view.base._requires_grad:
        _check_view_record(a, view)
        _view_again(a, view)
    else:  # the base has left the graph (``base.zero_()``, ``base.detach_()``): so does its view
        view.version = a._version
        if a._grad_fn is not None:
            a._grad_fn, a._requires_grad = None, False


# --- checks -----------------------------------------------------------------------------------

def _check_allowed(a: Tensor, view: ViewInfo | None, op_name: str, recording: bool) -> None:
    if not recording:
        return
    if view is not None:
        if view.creation == "no_grad":
            raise RuntimeError(f"{op_name}: A view was created in no_grad mode and is being modified inplace "
                               "with grad mode enabled. Given that this use case is ambiguous and "
                               "error-prone, it is forbidden. You can clarify your code by moving both the "
                               "view and the inplace either both inside the no_grad block (if you don't "
                               "want the inplace to be tracked) or both outside (if you want the inplace "
                               "to be tracked).")
        if view.creation == "multi_output":
            node = a._grad_fn
            made_by = (f"Output {getattr(node, 'piece_index', 0)} of {node.name().removesuffix('Backward0')}"
                       if node is not None
                       else "Output of split or unbind (or a row of `for row in tensor`)")
            raise RuntimeError(f"{op_name}: {made_by} is a view and is "
                               "being modified inplace. This view is the output of a function that returns "
                               "multiple views. Such functions do not allow the output views to be modified "
                               "inplace. You should replace the inplace operation by an out-of-place one.")
        if view.base._requires_grad and view.base._grad_fn is None:
            raise RuntimeError(f"a view of a leaf Variable that requires grad is being used in an in-place "
                               f"operation ({op_name} on a view of shape {list(a.shape)} of a leaf of shape "
                               f"{list(view.base.shape)}). Wrap it in `with minigrad.no_grad():` or use an "
                               "out-of-place operation.")
    if a._requires_grad and a._grad_fn is None:
        raise RuntimeError(f"a leaf Variable that requires grad is being used in an in-place operation "
                           f"({op_name}). Wrap it in `with minigrad.no_grad():` or use an out-of-place "
                           "operation.")


def _check_view_record(a: Tensor, view: ViewInfo) -> None:
    """The view record must still make ``a`` from its base. It no longer does after the base's own
    layout changed in place (``base.t_()``, ``transpose_``, ``squeeze_``, ``unsqueeze_``): PyTorch's
    views keep their own strides, minigrad's are re-made from the base when the graph needs them."""
    remade = view.fn(view.base._array)
    array = a._array
    if (remade.shape, remade.strides, address_of(remade)) != (array.shape, array.strides, address_of(array)):
        raise RuntimeError(f"a view of shape {list(array.shape)} was made before its base (now of shape "
                           f"{list(view.base.shape)}) changed its own layout in place (t_, transpose_, "
                           "squeeze_, unsqueeze_); minigrad cannot record through it. Make the view after "
                           "the change.")


_FILLS = ("fill_", "zero_")


def _assign(a: Tensor, values: Any) -> None:
    """``a``'s elements = ``values``, through its base when ``a`` is an expanded view."""
    if a._view is not None and _repeats(a._array):
        write_through(a._view.base._array, a._view.fn, values)
    else:
        a._array[...] = values


def write_through(base: Any, view_fn: Callable, values: Any) -> None:
    """``view_fn(base)[...] = values``. NumPy makes an expanded view (stride 0) read-only: there each
    element of ``base`` the view shows is written once, by its flat position (a fill's one value)."""
    view = view_fn(base)
    if not _repeats(view):
        view[...] = values
        return
    xp = get_array_module(base)
    changed = base.copy()  # C order: reshape(-1) is a view of it
    changed.reshape(-1)[_positions(view_fn, base.shape, xp)] = xp.broadcast_to(values, view.shape).reshape(-1)
    base[...] = changed


def setitem(a: Tensor, key: Any, value: Any) -> Tensor:
    """``a[key] = value``, recorded as the other in-place ops are."""
    if (isinstance(value, Tensor) and type(value._array) is type(a._array)
            and get_array_module(a).may_share_memory(a._array, value._array)):
        parts, basic = indexing.prepare_key(a, key)
        if basic:  # the region written is a view (Ellipsis: also for a[0, 1]): it must not partly overlap
            check_partial_overlap(a._array[parts if Ellipsis in parts else parts + (Ellipsis,)], value._array)
    return apply(a, "__setitem__", lambda t: indexing.index_put(t, key, value), value)


def check_partial_overlap(written: Any, read: Any) -> None:
    """PyTorch's rule: an in-place op may read the memory it writes only element for element (``a += a``),
    not shifted (``a[1:] += a[:-1]``, whose result would depend on the order of the loop). As in
    PyTorch, only dense (contiguous) arrays are compared; other layouts are let through."""
    # the same array, or two that own their memory (``base`` None; an array library without it checks on)
    if written is read or (getattr(written, "base", False) is None and getattr(read, "base", False) is None):
        return
    xp = get_array_module(written)
    if type(read) is not type(written):  # on two devices: the device error comes from the op itself
        return
    if not (_dense(written) and _dense(read)) or written.size == 0 or read.size == 0:
        return
    if not xp.may_share_memory(written, read):  # exact for dense arrays: their bounds are their memory
        return
    # the lowest address of each (Ellipsis: a view also of a 0-d array)
    first = (slice(0, 1),) * written.ndim + (Ellipsis,), (slice(0, 1),) * read.ndim + (Ellipsis,)
    if (written.shape == read.shape and written.strides == read.strides
            and xp.shares_memory(written[first[0]], read[first[1]])):
        return
    raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor "
                       "refer to a single memory location. Please clone() the tensor before performing the "
                       f"operation. (a tensor of shape {list(read.shape)} read while one of shape "
                       f"{list(written.shape)} is written)")


def _dense(array: Any) -> bool:
    return bool(array.flags.c_contiguous or array.flags.f_contiguous)


def _repeats(array: Any) -> bool:
    """An expanded array: one element in several places (a stride of 0)."""
    return any(step == 0 and n > 1 for step, n in zip(array.strides, array.shape))


def _check_no_overlap(a: Tensor) -> None:
    """An expanded view holds one element in several places (stride 0): PyTorch refuses to write it."""
    if _repeats(a._array):
        raise RuntimeError(f"unsupported operation: more than one element of the written-to tensor (of "
                           f"shape {list(a.shape)}) refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")


def _check_result(a: Tensor, result: Tensor, op_name: str) -> None:
    if result.shape != a.shape:
        raise RuntimeError(f"{op_name}: output with shape {list(a.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}")
    if not _can_cast(result.dtype, a.dtype):
        raise RuntimeError(f"{op_name}: result type {result.dtype.name} can't be cast to the desired output "
                           f"type {a.dtype.name}")


def _can_cast(source: _dtypes.dtype, target: _dtypes.dtype) -> bool:
    """PyTorch's rule for in-place results: never down a category (float -> int, int -> bool)."""
    return source.category <= target.category


# --- fills ------------------------------------------------------------------------------------

def _is_graph_view(a: Tensor) -> bool:
    """A view whose base may be in the graph: its fills go through :func:`apply` (and CopySlices)."""
    return a._base is not None and a._view is not None and _GradMode.enabled


class Fill(Function):
    """y = value everywhere;   dy/da = 0 (the old values are gone, so is their gradient)."""

    @staticmethod
    def forward(ctx, a, value):
        return Tensor(get_array_module(a).full_like(a.array, value))

    @staticmethod
    def backward(ctx, grad):
        return Tensor(get_array_module(grad).zeros_like(grad.array)), None


class Zero(Fill):
    """y = 0 everywhere (``zero_``);   dy/da = 0."""


def fill(a: Tensor, op_name: str, value: Any) -> Tensor:
    """Set every element to ``value``; a tensor in the graph stays in it, with a zero gradient."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        value = value.item()
    value = converted_scalar(value, a.dtype)  # int8 refuses 300, uint8 takes -1 as 255, as PyTorch
    if _is_graph_view(a):
        return apply(a, op_name, lambda t: Tensor(get_array_module(t).full_like(t.array, value)))
    if a._grad_fn is not None and _GradMode.enabled:  # recorded, as PyTorch's FillBackward0
        node = Zero if op_name == "zero_" else Fill
        return apply(a, op_name, lambda t: node.apply(t, value))
    _check_allowed(a, None, op_name, _GradMode.enabled)
    _assign(a, value)  # under no_grad a tensor keeps its history, as in PyTorch
    a._bump_version(op_name)
    return a


def fill_random(a: Tensor, op_name: str, distribution: str, first: float, second: float,
                generator: Any) -> Tensor:
    """Fill with uniform(first, second) or normal(mean=first, std=second) numbers (host-drawn)."""
    from minigrad.random import default_generator  # noqa: PLC0415

    if not a.dtype.is_floating_point:  # PyTorch has no integer kernel for these: NotImplementedError
        raise NotImplementedError(f"{op_name} is not implemented for {a.dtype.name} tensors: it draws "
                                  f"floating point numbers (tensor of shape {list(a.shape)})")
    _check_distribution(op_name, distribution, first, second)
    rng = (generator or default_generator).rng
    if distribution == "uniform":
        host = rng.uniform(first, second, size=a.shape)
    else:
        host = rng.normal(first, second, size=a.shape)
    return _fill_from_host(a, op_name, host)


def _check_distribution(op_name: str, distribution: str, first: Any, second: Any) -> None:
    """PyTorch's checks: numbers for both parameters, std ≥ 0, finite uniform bounds with from ≤ to."""
    names = ("from", "to") if distribution == "uniform" else ("mean", "std")
    for position, (name, value) in enumerate(zip(names, (first, second)), start=1):
        if not isinstance(value, (int, float, numpy.integer, numpy.floating)):   # a bool is an int
            raise TypeError(f"{op_name}(): argument '{name}' (position {position}) must be float, not "
                            f"{type(value).__name__}")
    if distribution == "normal" and not second >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {second}")
    if distribution == "uniform":
        for name, value in zip(names, (first, second)):
            if not math.isfinite(value):
                raise RuntimeError(f"{name} is out of bounds for float ({op_name}({first}, {second}))")
        if first > second:
            raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={first} > "
                               f"to={second}")


def _random_upper_bound(dtype: _dtypes.dtype) -> int:
    """``random_()``'s exclusive upper end: past the largest integer ``dtype`` holds exactly."""
    if dtype.is_floating_point:
        return 2 ** (numpy.finfo(dtype.numpy).nmant + 1) + 1
    if dtype.numpy == numpy.bool_:
        return 2
    return int(numpy.iinfo(dtype.numpy).max) + 1


def fill_random_integers(a: Tensor, bounds: tuple, generator: Any) -> Tensor:
    """``random_``: integers uniform in [0, to) for bounds ``(to,)``, [from, to) for ``(from, to)``.

    No bounds (or ``to=None``) reaches up to the largest integer the dtype holds exactly.
    """
    from minigrad.random import default_generator  # noqa: PLC0415

    if len(bounds) > 2:
        raise TypeError(f"random_() takes at most 2 bounds (from, to), but got {len(bounds)}: {bounds}")
    low, high = bounds if len(bounds) == 2 else (0, bounds[0] if bounds else None)
    high = _random_upper_bound(a.dtype) if high is None else high
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    host = (generator or default_generator).rng.integers(low, high, size=a.shape)
    return _fill_from_host(a, "random_", host)


def _fill_from_host(a: Tensor, op_name: str, host: Any) -> Tensor:
    """Write the host-drawn ``host`` into ``a`` (through the graph when ``a`` is a view in it)."""
    from minigrad import backend  # noqa: PLC0415

    values = backend.from_host(host.astype(a.dtype.numpy), a.device)
    if _is_graph_view(a):
        return apply(a, op_name, lambda t: Tensor(values))
    _check_allowed(a, None, op_name, _GradMode.enabled)
    a._array[...] = values
    a._bump_version(op_name)
    return a
