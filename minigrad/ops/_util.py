"""Small helpers shared by the operations: operands, dimensions, dtypes."""

from __future__ import annotations

from collections.abc import Callable
from numbers import Number
from typing import Any

import numpy

from minigrad import backend
from minigrad import dtypes as _dtypes
from minigrad.autograd.grad_mode import _GradMode
from minigrad.backend import get_array_module
from minigrad.tensor import Tensor, _normalize_dim


def ieee_results() -> Any:
    """A ``with`` block whose inf and nan results come without NumPy's RuntimeWarnings, as PyTorch's do.

    (``log(0) = -inf``, ``1/0 = inf``, ``sqrt(-1) = nan``. It sets NumPy's warning state only;
    CuPy never warns.)
    """
    return numpy.errstate(divide="ignore", invalid="ignore", over="ignore")


def as_operand(value: Any, like: Tensor) -> Any:
    """A Tensor or Python number for an elementwise op (arrays: Tensors on ``like``'s device).

    Lists, None and other objects raise TypeError, as in PyTorch (``t + [1, 2]``)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, Number):
        # NumPy scalars become Python numbers, which never change a tensor's dtype.
        return value.item() if hasattr(value, "item") else value
    if not hasattr(value, "__array__") and backend.device_of(value).type != "cuda":
        raise TypeError(f"unsupported operand type(s) for a Tensor operation: 'Tensor' and "
                        f"'{type(value).__name__}'")
    from minigrad.creation import tensor  # noqa: PLC0415 (creation imports the ops)

    return tensor(value, device=like.device)


def first_tensor(*values: Any) -> Tensor:
    for value in values:
        if isinstance(value, Tensor):
            return value
    raise TypeError("expected at least one Tensor argument")


def array_of(value: Any, dtype: _dtypes.dtype) -> Any:
    """The raw array of a Tensor operand cast to ``dtype``, or a Python number as it is.

    A Python int meeting an integer dtype takes that dtype, wrapping around as PyTorch's do
    (``uint8 + (-2)`` adds 254; ``uint8 < -1`` compares with 255)."""
    if isinstance(value, Tensor):
        array = value._array
        return array if array.dtype == dtype.numpy else array.astype(dtype.numpy)
    if type(value) is int and dtype.numpy.kind in "iu":
        return wrap_integer(value, dtype.numpy)
    return value


def wrap_integer(value: int, dtype: Any) -> int:
    """The Python int ``value`` brought into the range of the integer NumPy ``dtype`` modulo 2^bits (two's
    complement), so that the array library keeps ``dtype``; beyond 64 bits it is PyTorch's OverflowError.
    (A Python int, not a NumPy scalar: ``-2 + t`` must reach the device array's own operator.)"""
    if not -2**63 <= value < 2**64:
        raise OverflowError(f"int too big to convert: {value} does not fit in 64 bits")
    info = numpy.iinfo(dtype)
    span = int(info.max) - int(info.min) + 1
    return (value - int(info.min)) % span + int(info.min)


def converted_scalar(value: Any, dtype: _dtypes.dtype, float_overflow: bool = False) -> Any:
    """The Python number ``value`` as an element of ``dtype`` (a fill value, a bound, an exponent),
    with PyTorch's check: "value cannot be converted to type int8_t without overflow" where it does
    not fit. As in PyTorch, a negative int that fits the magnitude of an unsigned type wraps around
    (``-1`` is 255 in uint8), a float meeting an integer type is truncated, bool takes anything, and
    an int beyond 64 bits is an OverflowError. ``float_overflow``: a float type takes any number
    (beyond its range: ±inf), as PyTorch's setitem does."""
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**64:
        raise OverflowError("int too big to convert")
    if dtype is _dtypes.bool:
        return bool(value)
    number = float(value)
    finite = abs(number) != float("inf") and number == number
    if dtype.is_floating_point:
        fits = float_overflow or not finite or abs(number) <= float(numpy.finfo(dtype.numpy).max)
    else:
        info = numpy.iinfo(dtype.numpy)
        smallest = -int(info.max) if info.min == 0 else int(info.min)  # unsigned: -max .. -1 wrap around
        fits = finite and smallest <= int(value) <= int(info.max)
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow: {value!r}")
    return value if dtype.is_floating_point else wrap_integer(int(value), dtype.numpy)


def opmath(x: Any) -> Any:
    """``x`` in the type PyTorch's CPU kernels compute a float16 reduction in (float32, its "opmath"):
    the sum of squares of a variance or a norm, a softmax's sum, a running sum. The caller rounds
    the result back to float16 once."""
    return x.astype(numpy.float32) if x.dtype == numpy.float16 else x


def reduction_axes(dim: Any, ndim: int) -> tuple | None:
    """``dim`` (None, int, or sequence) as a tuple of non-negative axes; None means all.

    A 0-d tensor accepts dim 0 or -1 as in PyTorch; there is nothing to reduce (None).
    """
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        axes = tuple(_normalize_dim(d, ndim) for d in dim)
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"dim {list(dim)} appears multiple times in the list of dims")
        return axes if axes and ndim else None
    axis = _normalize_dim(dim, ndim)
    return (axis,) if ndim else None


# The integer type of each float type's width: selecting by bits (see grad_where).
_SAME_WIDTH_INTEGERS = {2: "int16", 4: "int32", 8: "int64"}


def grad_where(mask: Any, grad: Any, out: Any = None) -> Any:
    """``grad`` where ``mask`` is true, else exactly 0: a backward that routes a gradient by a mask
    selects, never multiplies, so a nan or inf arriving where the mask is false gives 0 (NaN·0 = NaN),
    as in PyTorch.

    The same numbers as ``xp.where(mask, grad, 0)``. For floats it is done with bits — ``grad``'s bit
    pattern AND all-ones where ``mask`` is true, all-zeros (+0.0) where false — in two ufunc passes
    that keep ``grad``'s memory order, because NumPy's ``where`` is much slower than a multiply
    (docs/performance.md, "Selecting by a mask"). With ``out``, the result is written there.
    """
    xp = backend.get_array_module(grad)
    if grad.dtype.kind != "f":
        return _written(xp.where(mask, grad, grad.dtype.type(0)), out)
    # 0 − True = −1, every bit set; made one byte wide, and widened (sign and all) by the AND itself
    return _keep_bits(grad, xp.negative(_bytes(mask)), out)


def zero_where(mask: Any, values: Any, out: Any = None) -> Any:
    """``values``, but exactly 0 where ``mask`` is true: :func:`grad_where` of ``~mask``, one pass fewer.

    With ``out``, the result is written there."""
    xp = backend.get_array_module(values)
    if values.dtype.kind != "f":
        return _written(xp.where(mask, values.dtype.type(0), values), out)
    return _keep_bits(values, xp.subtract(_bytes(mask), xp.int8(1)), out)  # False − 1 = −1: every bit set


def _bytes(mask: Any) -> Any:
    """A boolean mask read as int8 0 and 1 (the same bytes: no copy)."""
    xp = backend.get_array_module(mask)
    return xp.asarray(mask, dtype=bool).view(xp.int8)


def _keep_bits(values: Any, all_ones_or_zeros: Any, out: Any = None) -> Any:
    """``values``' bits AND an int8 mask of −1 (all ones: keep) or 0 (all zeros: +0.0), in its memory
    order (or into ``out``). The AND widens the int8 mask to ``values``' width, −1 to all ones, as it
    reads it: a one-byte mask is a quarter of the memory traffic of a float32-wide one."""
    xp = backend.get_array_module(values)
    integers = _SAME_WIDTH_INTEGERS[values.dtype.itemsize]
    bits = None if out is None else out.view(integers)
    return xp.bitwise_and(values.view(integers), all_ones_or_zeros, out=bits).view(values.dtype)


def _written(result: Any, out: Any) -> Any:
    """``result``, copied into ``out`` if one is given."""
    if out is None:
        return result
    out[...] = result
    return out


def sign_array(xp: Any, x: Any) -> Any:
    """-1, 0 or 1 as x is negative, zero or positive, and 0 for nan: PyTorch's ``sign``/``sgn``, which
    |x|'s and l1_loss's backwards multiply by (the array library's sign gives nan for nan)."""
    out = xp.sign(x)
    if x.dtype.kind == "f":
        out = xp.where(xp.isnan(x), x.dtype.type(0), out)
    return out


class ViewInfo:
    """How a view was made (``view._view``): ``view.array`` is ``fn(base.array)``.

    ``base`` is the tensor the chain of view ops started from, ``fn`` the array-level view
    (``lambda array: array[key]``, composed for a view of a view), ``version`` the storage's
    version when the view's ``grad_fn`` was last made, and ``creation`` as PyTorch's
    CreationMeta: ``"default"``, ``"no_grad"`` (made with grad mode off: it stays out of its
    base's graph) or ``"multi_output"`` (a row of ``for row in t``, PyTorch's unbind).
    ``ops/inplace.py`` uses it to record an in-place change of the view on the base as well.
    """

    __slots__ = ("base", "fn", "version", "creation")

    def __init__(self, base: Tensor, fn: Callable, version: int, creation: str):
        self.base, self.fn, self.version, self.creation = base, fn, version, creation


def address_of(array: Any) -> int:
    """The memory address of ``array``'s first element (a NumPy or CuPy array)."""
    if isinstance(array, numpy.ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr


def mark_view(out: Tensor, base: Tensor, fn: Callable) -> Tensor:
    """Record that ``out`` shares ``base``'s memory and was made from it by the array function
    ``fn``: one version counter for both (``out._base``, the storage's owner) and ``out._view``."""
    if get_array_module(base).may_share_memory(out._array, base._array):
        record_view(out, base, fn)
    return out


def record_view(out: Tensor, base: Tensor, fn: Callable) -> Tensor:
    """``mark_view`` for an ``out`` known to be a view of ``base``: its storage's owner, and how it
    was made (a view of a view is one view of the first base, as in PyTorch)."""
    root = base if base._base is None else base._base
    out._base = root
    if root._inference:  # a view of an inference tensor is one too, as in PyTorch
        out._inference = True
    parent = base._view if base._base is not None else None  # None: base is no view (or a detached one)
    creation = "default" if _GradMode.enabled else "no_grad"
    if parent is None:
        out._view = ViewInfo(base, fn, root._version_value, creation)
    else:
        out._view = ViewInfo(parent.base, _compose(parent.fn, fn), root._version_value,
                             parent.creation if parent.creation != "default" else creation)
    return out


def _compose(first: Callable, then: Callable) -> Callable:
    return lambda array: then(first(array))


def check_tensor_arguments(function: str, arguments: dict[str, Any], optional: tuple[str, ...] = ()) -> None:
    """PyTorch's argument parser: each argument (listed in signature order) must be a Tensor, or None
    when it is ``optional``; anything else is a TypeError naming the argument, its position and type."""
    for position, (name, value) in enumerate(arguments.items(), start=1):
        if not isinstance(value, Tensor) and not (value is None and name in optional):
            raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Tensor, not "
                            f"{type(value).__name__}")


def check_broadcast(*operands: Any) -> None:
    """Raise PyTorch's RuntimeError if the Tensor operands' shapes do not broadcast together."""
    check_broadcast_shapes(*(tuple(o.shape) for o in operands if isinstance(o, Tensor)))


def check_broadcast_shapes(*shapes: tuple) -> None:
    """Raise PyTorch's RuntimeError, naming sizes and shapes, if ``shapes`` do not broadcast together."""
    if not shapes:
        return
    result = shapes[0]
    for shape in shapes[1:]:
        ndim = max(len(result), len(shape))
        a, b = (1,) * (ndim - len(result)) + result, (1,) * (ndim - len(shape)) + shape
        for dim in reversed(range(ndim)):  # PyTorch reports the last mismatching dimension
            if a[dim] != b[dim] and a[dim] != 1 and b[dim] != 1:
                raise RuntimeError(f"The size of tensor a ({a[dim]}) must match the size of tensor b "
                                   f"({b[dim]}) at non-singleton dimension {dim} "
                                   f"(shapes {list(result)} and {list(shape)})")
        result = tuple(n if n != 1 else m for n, m in zip(a, b))


def apply_broadcasting(function: Any, *args: Any) -> Any:
    """``function.apply(*args)`` for an elementwise op: operands that do not broadcast raise
    PyTorch's RuntimeError naming both shapes (not the array library's ValueError)."""
    try:
        return function.apply(*args)
    except ValueError:
        check_broadcast(*args)
        raise


def product(sizes: tuple) -> int:
    """The number of elements of a shape: the product of its sizes (1 for ``()``)."""
    total = 1
    for size in sizes:
        total *= size
    return total


# PyTorch's names for dtypes in its "not implemented for" errors.
TORCH_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                    "int64": "Long", "float16": "Half", "float32": "Float", "float64": "Double"}


def not_implemented_for(function: str, tensor: Any) -> NotImplementedError:
    """PyTorch's error for a dtype an operation has no kernel for (a RuntimeError subclass)."""
    name = tensor.dtype.numpy.name
    return NotImplementedError(f'"{function}" not implemented for \'{TORCH_TYPE_NAMES.get(name, name)}\'')
