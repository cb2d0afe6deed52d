"""Checkers for anyone deriving gradients by hand: ``assert_close``, ``compare`` and a numeric gradient.

* :func:`assert_close` is ``torch.testing.assert_close``: the same signature, the same
  per-dtype tolerances and the same messages, so a test written for PyTorch runs unchanged.
* :func:`compare` is the one-line report of Karpathy's "backprop ninja" lecture (``cmp``):
  is my hand-derived gradient exactly, or approximately, ``tensor.grad``?
* :func:`numerical_gradient` is CS231n's ``eval_numerical_gradient_array``: the gradient of
  any NumPy function by central differences, to check a derivation before it becomes a
  ``Function``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from numbers import Number
from typing import Any

import numpy

from minigrad import backend
from minigrad.tensor import Tensor

__all__ = ["assert_close", "compare", "numerical_gradient"]

# {NumPy dtype kind and size: (rtol, atol)}, as torch.testing's defaults; integers and bools compare exactly.
_DEFAULT_TOLERANCES = {
    numpy.dtype(numpy.float16): (1e-3, 1e-5),
    numpy.dtype(numpy.float32): (1.3e-6, 1e-5),
    numpy.dtype(numpy.float64): (1e-7, 1e-7),
    numpy.dtype(numpy.complex64): (1.3e-6, 1e-5),
    numpy.dtype(numpy.complex128): (1e-7, 1e-7),
}


class _Mismatch(Exception):  # noqa: N818 (internal: never escapes assert_close)
    """A failed comparison: the exception type to raise and its message (before ``msg`` and the item path)."""

    def __init__(self, error: type[Exception], message: str, path: tuple = ()):
        super().__init__(message)
        self.error, self.message, self.path = error, message, path


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close: ``torch.testing.assert_close``.

    Tensors (minigrad's, or two NumPy arrays) must have the same shape and, unless told
    otherwise, dtype and device; then every element must satisfy
    ``|actual - expected| <= atol + rtol * |expected|`` (NaN equal to NaN only with
    ``equal_nan``). Without ``rtol``/``atol`` the defaults depend on the dtype (float32:
    1.3e-6 and 1e-5; float64: 1e-7 and 1e-7; integers and bools: exact). Numbers compare
    the same way; sequences and mappings compare item by item. ``msg`` replaces the
    message, or, if callable, receives it and returns the new one.
    """
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}.")
    options = {"allow_subclasses": allow_subclasses, "rtol": rtol, "atol": atol, "equal_nan": equal_nan,
               "check_device": check_device, "check_dtype": check_dtype, "check_stride": check_stride}
    try:
        _compare(actual, expected, (), options)
    except _Mismatch as mismatch:
        if isinstance(msg, str):
            raise mismatch.error(msg) from None
        message = mismatch.message
        if mismatch.path:
            message += f"\n\nThe failure occurred for item {''.join(str([key]) for key in mismatch.path)}"
        raise mismatch.error(msg(message) if callable(msg) else message) from None


def _is_tensor_like(value: Any) -> bool:
    return isinstance(value, (Tensor, numpy.ndarray)) or backend.device_of(value).type == "cuda"


def _compare(actual: Any, expected: Any, path: tuple, options: dict) -> None:
    if actual is None or expected is None:
        if actual is not expected:
            raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}", path)
        return
    if isinstance(actual, bool) and isinstance(expected, bool):
        if actual is not expected:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}", path)
        return
    if _is_tensor_like(actual) and _is_tensor_like(expected):
        _compare_tensors(actual, expected, path, options)
        return
    if isinstance(actual, Number) and isinstance(expected, Number) and not _is_tensor_like(actual) \
            and not _is_tensor_like(expected):
        _compare_numbers(actual, expected, path, options)
        return
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            missing = sorted(set(expected) - set(actual), key=str)
            additional = sorted(set(actual) - set(expected), key=str)
            message = (f"The keys of the mappings do not match:\n"
                       f"Missing keys in the actual mapping: {missing}\n"
                       f"Additional keys in the actual mapping: {additional}")
            raise _Mismatch(AssertionError, message, path)
        for key in expected:
            _compare(actual[key], expected[key], path + (key,), options)
        return
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError,
                            f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path)
        for index, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, path + (index,), options)
        return
    raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                    f"{type(expected)}.", path)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


def _compare_numbers(actual: Any, expected: Any, path: tuple, options: dict) -> None:
    """Two ``numbers.Number`` values (an ABC that type checkers give no arithmetic, hence ``Any``)."""
    rtol, atol = options["rtol"], options["atol"]
    if rtol is None:
        rtol, atol = (0.0, 0.0) if isinstance(actual, int) and isinstance(expected, int) else (1e-7, 1e-7)
    if actual == expected or (options["equal_nan"] and actual != actual and expected != expected):
        return
    abs_diff = abs(actual - expected)
    if abs_diff <= atol + rtol * abs(expected):
        return
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    raise _Mismatch(AssertionError, _mismatch_message("Scalars", f"Expected {expected} but got {actual}.",
                                                      abs_diff, None, atol, rel_diff, None, rtol), path)


def _compare_tensors(actual: Any, expected: Any, path: tuple, options: dict) -> None:
    if options["allow_subclasses"]:
        same_kind = isinstance(actual, Tensor) == isinstance(expected, Tensor)
    else:
        same_kind = type(actual) is type(expected)
    if not same_kind:
        raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                        f"{type(expected)}.", path)
    a, e = _array(actual), _array(expected)
    if a.shape != e.shape:
        _attribute_mismatch("shape", _shape_repr(actual), _shape_repr(expected), path)
    if options["check_stride"] and _strides(a) != _strides(e):
        _attribute_mismatch("stride()", _strides(a), _strides(e), path)
    if options["check_device"] and _device(actual) != _device(expected):
        _attribute_mismatch("device", _device(actual), _device(expected), path)
    if options["check_dtype"] and a.dtype != e.dtype:
        _attribute_mismatch("dtype", _dtype_repr(actual), _dtype_repr(expected), path)
    a, e = backend.to_host(a), backend.to_host(e)
    if a.dtype != e.dtype:
        common = numpy.promote_types(a.dtype, e.dtype)
        a, e = a.astype(common), e.astype(common)
    rtol, atol = options["rtol"], options["atol"]
    if rtol is None:
        rtol, atol = _DEFAULT_TOLERANCES.get(a.dtype, (0.0, 0.0))
    matches = _isclose(a, e, rtol, atol, options["equal_nan"])
    if matches.all():
        return
    if a.ndim == 0:
        _compare_numbers(a.item(), e.item(), path, {**options, "rtol": rtol, "atol": atol})
        return
    raise _Mismatch(AssertionError, tensor_mismatch_message(a, e, matches, rtol, atol), path)


def _isclose(a: numpy.ndarray, e: numpy.ndarray, rtol: float, atol: float, equal_nan: bool) -> numpy.ndarray:
    if a.dtype.kind in "biu":
        return a == e
    with numpy.errstate(invalid="ignore", over="ignore"):
        # equal infinities match (their difference is nan); numpy.isclose does the same
        return numpy.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)


def tensor_mismatch_message(a: numpy.ndarray, e: numpy.ndarray, matches: numpy.ndarray, rtol: float,
                            atol: float, identifier: str = "Tensor-likes") -> str:
    """PyTorch's report of two arrays that differ: how many elements, the greatest differences and where."""
    total = matches.size
    mismatched = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    if a.dtype.kind in "biu":  # as PyTorch: integers (and bools) are compared as int64
        a, e = a.astype(numpy.int64), e.astype(numpy.int64)
    with numpy.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_diff = numpy.abs(a - e).reshape(-1)
        abs_diff[matches.reshape(-1)] = 0
        divisor = numpy.abs(e.reshape(-1))
        if a.dtype.kind in "biu":   # PyTorch's integer division gives the default float dtype, float32
            abs_diff_float, divisor = abs_diff.astype(numpy.float32), divisor.astype(numpy.float32)
        else:
            abs_diff_float = abs_diff
        rel_diff = abs_diff_float / divisor
        rel_diff[matches.reshape(-1)] = 0
    abs_index, rel_index = _argmax_nan_first(abs_diff), _argmax_nan_first(rel_diff)
    return _mismatch_message(identifier, extra, abs_diff[abs_index].item(), _unravel(abs_index, a.shape),
                             atol, rel_diff[rel_index].item(), _unravel(rel_index, a.shape), rtol)


def _argmax_nan_first(values: numpy.ndarray) -> int:
    """The flat index of the greatest value, a NaN counting as greatest (as torch.max)."""
    return int(numpy.argmax(values)) if values.dtype.kind in "biu" else int(numpy.nanargmax(
        numpy.where(numpy.isnan(values), numpy.inf, values))) if values.size else 0


def _unravel(flat_index: int, shape: tuple) -> tuple:
    return tuple(int(i) for i in numpy.unravel_index(flat_index, shape)) if shape else ()


def _mismatch_message(identifier: str, extra: str, abs_diff: Any, abs_index: tuple | None, atol: float,
                      rel_diff: Any, rel_index: tuple | None, rtol: float) -> str:
    equality = rtol == 0 and atol == 0

    def line(kind: str, diff: Any, index: tuple | None, tol: float) -> str:
        text = f"{kind.title()} difference: {diff}" if index is None else \
            f"Greatest {kind} difference: {diff} at index {index}"
        return text if equality else f"{text} (up to {tol} allowed)"

    return (f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra}\n"
            f"{line('absolute', abs_diff, abs_index, atol)}\n{line('relative', rel_diff, rel_index, rtol)}")


def _attribute_mismatch(name: str, actual: Any, expected: Any, path: tuple) -> None:
    message = f"The values for attribute '{name}' do not match: {actual} != {expected}."
    raise _Mismatch(AssertionError, message, path)


def _array(value: Any) -> Any:
    return value._array if isinstance(value, Tensor) else value


def _strides(array: Any) -> tuple:
    return tuple(s // array.itemsize for s in array.strides) if array.itemsize else tuple(array.strides)


def _device(value: Any) -> Any:
    return value.device if isinstance(value, Tensor) else backend.device_of(value)


def _shape_repr(value: Any) -> str:
    return repr(value.shape) if isinstance(value, Tensor) else repr(tuple(value.shape))


def _dtype_repr(value: Any) -> str:
    return repr(value.dtype)


def compare(name: str, manual: Any, tensor: Tensor, *, rtol: float = 1e-5, atol: float = 1e-8) -> bool:
    """Print how a hand-derived gradient ``manual`` compares with ``tensor.grad``; True if close.

    One line per call, as in Karpathy's "backprop ninja" lecture::

        logits          | exact: False | approximate: True  | maxdiff: 4.6566e-10

    ``exact`` means bit for bit, ``approximate`` within ``rtol``/``atol`` (``allclose``).
    ``tensor`` is a leaf, or an intermediate on which ``retain_grad()`` was called before
    ``backward()``; ``manual`` is a Tensor or an array of the same shape.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"compare(): expected the Tensor whose .grad to compare with, but got "
                        f"{type(tensor).__name__}")
    if tensor.grad_fn is not None and not tensor.retains_grad:
        raise RuntimeError(f"compare('{name}'): the tensor is not a leaf, so it keeps no .grad: call "
                           f".retain_grad() on it before .backward()")
    if tensor.grad is None:
        raise RuntimeError(f"compare('{name}'): the tensor has no .grad yet (was .backward() called, and "
                           f"does the loss depend on it?)")
    reference = backend.to_host(tensor.grad._array)
    mine = backend.to_host(_array(manual)) if _is_tensor_like(manual) else numpy.asarray(manual)
    if mine.shape != reference.shape:
        raise ValueError(f"compare('{name}'): your gradient has shape {tuple(mine.shape)} but the tensor "
                         f"(and its .grad) has shape {tuple(reference.shape)}")
    exact = bool(numpy.array_equal(mine, reference))
    approximate = bool(numpy.allclose(mine, reference, rtol=rtol, atol=atol))
    max_diff = float(numpy.max(numpy.abs(mine - reference))) if mine.size else 0.0
    print(f"{name:15s} | exact: {exact!s:5s} | approximate: {approximate!s:5s} | maxdiff: {max_diff:.4g}")
    return approximate


def numerical_gradient(f: Callable[[numpy.ndarray], Any], x: numpy.ndarray, grad_output: Any = None, *,
                       eps: float = 1e-6) -> numpy.ndarray:
    """The gradient of Σ f(x)·grad_output with respect to ``x``, by central differences.

    ``f`` takes the NumPy array ``x`` and returns an array (or a number when
    ``grad_output`` is None, which then counts as 1). For each element x_i, in place:

        ∂/∂x_i ≈ Σ (f(x + ε e_i) − f(x − ε e_i)) · grad_output / (2ε)

    so the result is what a backward receiving ``grad_output`` must return. Use float64:
    in float32 the differences lose most of their digits. ``x`` is restored afterwards.
    """
    x = numpy.asarray(x)
    if x.dtype.kind != "f":
        raise TypeError(f"numerical_gradient(): x must be a floating-point array, but got dtype {x.dtype}")
    upstream = 1.0 if grad_output is None else numpy.asarray(grad_output)
    gradient = numpy.zeros_like(x)
    # One element at a time is the definition of a numerical gradient: this is a check, not a hot path.
    with numpy.nditer(x, flags=["multi_index"], op_flags=["readwrite"]) as elements:
        for _ in elements:
            index = elements.multi_index
            original = x[index].copy()
            x[index] = original + eps
            above = numpy.asarray(f(x))
            x[index] = original - eps
            below = numpy.asarray(f(x))
            x[index] = original
            if isinstance(upstream, numpy.ndarray) and above.shape != upstream.shape:  # grad_output given
                raise ValueError(f"numerical_gradient(): f(x) has shape {above.shape} but grad_output has "
                                 f"shape {upstream.shape}")
            gradient[index] = numpy.sum((above - below) * upstream) / (2 * eps)
    return gradient
