"""PyTorch's legacy typed constructors, ``torch.FloatTensor`` ... ``torch.BoolTensor``.

Older tutorials still write ``torch.LongTensor([1, 2])`` or ``torch.FloatTensor(3, 4)``, and
check ``isinstance(t, torch.FloatTensor)``. As in modern PyTorch these are not subclasses:
calling one returns an ordinary :class:`~minigrad.Tensor` of its dtype on the CPU, and
``isinstance`` asks for that dtype and device.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend
from minigrad import dtypes as _dtypes
from minigrad.tensor import _LEGACY_TYPE_NAMES, Size, Tensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
           "CharTensor", "ByteTensor", "BoolTensor"]


class _LegacyTensorType(type):
    """The class of ``FloatTensor`` and friends: calling one makes a Tensor of its dtype."""

    dtype: _dtypes.dtype

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and instance.dtype is cls.dtype and instance.device.type == "cpu"

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:
        """``T()`` (empty), ``T(2, 3)`` or ``T(mg.Size([2, 3]))`` (uninitialised), ``T([[1, 2]])``
        (a copy of the data, converted), ``T(tensor)`` (the same data; its dtype must be ``T``'s)."""
        from minigrad import creation  # noqa: PLC0415 (creation imports much of minigrad)

        if device is not None and backend.Device(device).type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                               f"{backend.Device(device).type} was passed")
        if not args:
            return creation.empty(0, dtype=cls.dtype, device="cpu")
        first = args[0]
        if len(args) == 1 and isinstance(first, Tensor):
            if first.dtype is not cls.dtype:
                raise TypeError(f"expected a tensor of dtype {cls.dtype.name} for {cls.__name__}, got one of "
                                f"dtype {first.dtype.name}; convert it with t.type({cls.__name__})")
            return first.view(first.shape)  # the same data (and graph), as PyTorch's alias
        if isinstance(first, Size) or all(isinstance(n, (int, numpy.integer)) and not isinstance(n, bool)
                                          for n in args):
            return creation.empty(*args, dtype=cls.dtype, device="cpu")
        if len(args) > 1:
            raise TypeError(f"{cls.__name__}(): expected sizes (ints) or one sequence of data, got "
                            f"{', '.join(type(a).__name__ for a in args)}")
        if isinstance(first, str):
            raise TypeError("new(): invalid data type 'str'")
        if not isinstance(first, (list, tuple, numpy.ndarray)):
            raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
        return _from_data(cls, first)

    def __repr__(cls) -> str:
        return f"<class 'minigrad.{cls.__name__}'>"


def _from_data(cls: _LegacyTensorType, data: Any) -> Tensor:
    """A copy of ``data`` as ``cls``'s dtype; an integer that does not fit is PyTorch's RuntimeError."""
    from minigrad import creation  # noqa: PLC0415

    if not cls.dtype.is_floating_point and cls.dtype is not _dtypes.bool:
        try:
            values = numpy.asarray(data)
        except ValueError:  # ragged: ``tensor`` names the lengths
            values = numpy.zeros(0)
        if values.size and values.dtype.kind in "iu":
            limits = numpy.iinfo(cls.dtype.numpy)
            as_ints = values.astype(object)
            if as_ints.min() < limits.min or as_ints.max() > limits.max:
                raise RuntimeError(f"value cannot be converted to type {cls.dtype.name} without overflow: "
                                   f"{data!r} is outside [{limits.min}, {limits.max}]")
    return creation.tensor(data, dtype=cls.dtype, device="cpu")


def _legacy_type(dtype_name: str) -> _LegacyTensorType:
    name = _LEGACY_TYPE_NAMES[dtype_name]
    cls = _LegacyTensorType(name, (), {"dtype": _dtypes.as_dtype(dtype_name), "is_cuda": False,
                                       "__doc__": f"Legacy constructor of {dtype_name} CPU tensors."})
    cls.__module__ = "minigrad"
    return cls


FloatTensor = _legacy_type("float32")
DoubleTensor = _legacy_type("float64")
HalfTensor = _legacy_type("float16")
LongTensor = _legacy_type("int64")
IntTensor = _legacy_type("int32")
ShortTensor = _legacy_type("int16")
CharTensor = _legacy_type("int8")
ByteTensor = _legacy_type("uint8")
BoolTensor = _legacy_type("bool")
