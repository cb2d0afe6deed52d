"""Data types and PyTorch's type-promotion rules.

A :class:`dtype` wraps a NumPy dtype under PyTorch's name (``mg.float32`` ...).
:func:`result_type` decides the dtype of an elementwise operation exactly as
``torch.result_type`` does: tensors with dimensions outrank zero-dimensional
tensors, which outrank Python numbers, except that a higher *category*
(bool < integer < floating) from a lower rank still lifts the result.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy

__all__ = ["dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64",
           "uint8", "bool", "get_default_dtype", "set_default_dtype", "result_type", "as_dtype",
           "dtype_argument", "finfo", "iinfo"]

_BOOL, _INT, _FLOAT = 0, 1, 2  # categories, in promotion order
_pybool = builtins.bool  # the builtin, since this module defines its own ``bool``


class dtype:  # noqa: N801 (PyTorch's name)
    """A tensor element type: ``mg.float32``, ``mg.int64``, ``mg.bool`` ..."""

    __slots__ = ("name", "numpy", "category", "itemsize")

    def __init__(self, name: str, numpy_dtype: Any):
        self.name = name
        self.numpy = numpy.dtype(numpy_dtype)
        kind = self.numpy.kind
        self.category = _BOOL if kind == "b" else _FLOAT if kind == "f" else _INT
        self.itemsize = self.numpy.itemsize

    @property
    def is_floating_point(self) -> _pybool:
        return self.category == _FLOAT

    @property
    def is_signed(self) -> _pybool:
        return self.numpy.kind in "if"

    def __repr__(self) -> str:
        return f"minigrad.{self.name}"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (as_dtype, (self.name,))


float16 = dtype("float16", numpy.float16)
float32 = dtype("float32", numpy.float32)
float64 = dtype("float64", numpy.float64)
int8 = dtype("int8", numpy.int8)
int16 = dtype("int16", numpy.int16)
int32 = dtype("int32", numpy.int32)
int64 = dtype("int64", numpy.int64)
uint8 = dtype("uint8", numpy.uint8)
bool = dtype("bool", numpy.bool_)  # noqa: A001 (PyTorch's name)

_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool)
_BY_NUMPY = {d.numpy: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"float": float32, "double": float64, "half": float16, "long": int64,
                 "int": int32, "short": int16})

_default_float = float32


def get_default_dtype() -> dtype:
    return _default_float


def set_default_dtype(d: dtype) -> None:
    """Make ``d`` (float32 or float64) the dtype of Python floats and new float tensors."""
    global _default_float
    d = as_dtype(d)
    if d not in (float16, float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_float = d


def as_dtype(value: Any) -> dtype:
    """A minigrad dtype from a minigrad dtype, a NumPy dtype or type, or a name."""
    if isinstance(value, dtype):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if value is float:
        return _default_float
    if value is int:
        return int64
    if value is _pybool:
        return bool
    try:
        found = _BY_NUMPY.get(numpy.dtype(value))
    except TypeError:
        found = None
    if found is None:
        raise TypeError(f"unsupported dtype {value!r}; minigrad has "
                        + ", ".join(d.name for d in _ALL))
    return found


def dtype_argument(value: Any, function: str) -> dtype:
    """The dtype a user's ``dtype=`` argument names: a minigrad dtype or, as PyTorch also takes,
    Python's ``float`` (float64), ``int`` (int64) or ``bool``. A name or a NumPy type is PyTorch's
    TypeError (``as_dtype`` is the lenient reader for minigrad's own files)."""
    if isinstance(value, dtype):
        return value
    for python_type, meant in ((builtins.float, float64), (builtins.int, int64), (_pybool, bool)):
        if value is python_type:
            return meant
    raise TypeError(f"{function}(): argument 'dtype' must be minigrad.dtype, not {type(value).__name__} "
                    f"({value!r})")


def from_numpy_dtype(np_dtype: numpy.dtype) -> dtype:
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        raise TypeError(f"can't convert NumPy array of type {np_dtype}: minigrad supports "
                        + ", ".join(d.name for d in _ALL))
    return found


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's ``promote_types``: the higher category wins; within one, NumPy's rule."""
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    return _BY_NUMPY[numpy.promote_types(a.numpy, b.numpy)]


def _python_scalar_dtype(value: Any) -> dtype:
    if isinstance(value, _pybool):
        return bool
    if isinstance(value, int):
        return int64
    return _default_float


def _combine_categories(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """PyTorch's combine_categories: keep ``higher`` unless ``lower`` lifts its category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == _FLOAT:
        return higher
    if higher is bool or lower.category == _FLOAT:
        return promote_types(higher, lower)
    return higher


def _promote_optional(so_far: dtype | None, new: dtype) -> dtype:
    return new if so_far is None else promote_types(so_far, new)


def result_type(*operands: Any) -> dtype:
    """The dtype of an elementwise op on ``operands`` (Tensors and Python numbers), as torch's."""
    dim_result = zero_result = scalar_result = None
    for operand in operands:
        operand_dtype = getattr(operand, "dtype", None)
        if isinstance(operand_dtype, dtype):
            if operand.ndim > 0:
                dim_result = _promote_optional(dim_result, operand_dtype)
            else:
                zero_result = _promote_optional(zero_result, operand_dtype)
        else:
            current = _python_scalar_dtype(operand)
            scalar_result = _promote_optional(scalar_result, current)
    result = _combine_categories(dim_result, _combine_categories(zero_result, scalar_result))
    if result is None:
        raise TypeError("result_type() needs at least one operand")
    return result


class finfo:  # noqa: N801 (PyTorch's name)
    """Limits of a floating point dtype, as ``torch.finfo``: ``bits``, ``eps``, ``max``, ``min``,
    ``tiny`` (= ``smallest_normal``), ``resolution``. ``finfo()`` describes the default dtype."""

    def __init__(self, type: dtype | None = None):  # noqa: A002 (PyTorch's name)
        self.dtype = get_default_dtype() if type is None else dtype_argument(type, "finfo")
        if not self.dtype.is_floating_point:
            raise TypeError(f"torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            f"'{self.dtype.name}'")
        info = numpy.finfo(self.dtype.numpy)
        self.bits = info.bits
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision  # as PyTorch: exact in float64, not rounded to the dtype

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution}, min={self.min}, max={self.max}, eps={self.eps}, "
                f"smallest_normal={self.smallest_normal}, tiny={self.tiny}, dtype={self.dtype.name})")


class iinfo:  # noqa: N801 (PyTorch's name)
    """Limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``max``, ``min``."""

    def __init__(self, type: dtype):  # noqa: A002 (PyTorch's name)
        self.dtype = dtype_argument(type, "iinfo")
        if self.dtype.is_floating_point:
            raise TypeError(f"torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            f"'{self.dtype.name}'")
        if self.dtype is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = numpy.iinfo(self.dtype.numpy)
        self.bits: int = info.bits
        self.max: int = int(info.max)
        self.min: int = int(info.min)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype.name})"
