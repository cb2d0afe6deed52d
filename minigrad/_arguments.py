"""Checks that PyTorch's argument parser makes before an operation runs.

PyTorch refuses an argument of the wrong Python type with a TypeError that names the
function, the argument and the type it got (``unsqueeze(): argument 'dim' must be int, not
float``). Operations that take such arguments check them here, in one way.

:func:`sizes_argument` reads the settings of convolution, pooling and fold (an int or a pair,
:func:`pair_argument`; for conv1d an int or a 1-sequence); the wording of PyTorch's errors
differs between those ops, so each passes its own.
``nn.modules.utils._pair`` is another thing: PyTorch's unchecked helper for layers.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

__all__ = ["bool_argument", "int_argument", "integer_size", "sizes_argument", "pair_argument"]


def int_argument(value: Any, function: str, name: str, position: int | None = None) -> int:
    """``value`` as an int (Python's or NumPy's); a float, a bool, a string ... is PyTorch's TypeError."""
    if isinstance(value, (bool, numpy.bool_)) or not hasattr(value, "__index__"):
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{function}(): argument '{name}'{where} must be int, not {type(value).__name__}")
    return operator.index(value)


def bool_argument(value: Any, function: str, name: str, position: int | None = None) -> bool:
    """``value`` as a bool (Python's or NumPy's); 0, 1, None, a string ... is PyTorch's TypeError."""
    if not isinstance(value, (bool, numpy.bool_)):
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{function}(): argument '{name}'{where} must be bool, not {type(value).__name__}")
    return bool(value)


def integer_size(value: Any, name: str, function: str, expected: str = "tuple of ints") -> int:
    """A size given as an int (NumPy ints too); floats and bools are a TypeError, as in PyTorch."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{function}(): argument '{name}' must be {expected}, but got {value!r} of type "
                        f"{type(value).__name__}")
    return operator.index(value)


def sizes_argument(value: Any, count: int, name: str, function: str, wrong_length: str, *,
                   expected: str = "tuple of ints", one_is_all: bool = True) -> tuple[int, ...]:
    """An int, or a tuple/list of ``count`` ints (or of one, when ``one_is_all``), as ``count`` ints.

    A non-int element is :func:`integer_size`'s TypeError (``function`` and ``expected`` word it);
    another length is a RuntimeError whose message is ``wrong_length`` formatted with ``name``,
    ``function``, ``count``, ``length`` and ``values`` (the ints given, as a list).
    """
    is_sequence = isinstance(value, (tuple, list))
    values = [integer_size(v, name, function, expected) for v in (value if is_sequence else (value,))]
    if len(values) == 1 and (one_is_all or not is_sequence):
        return (values[0],) * count
    if len(values) != count:
        raise RuntimeError(wrong_length.format(name=name, function=function, count=count, length=len(values),
                                               values=values))
    return tuple(values)


def pair_argument(value: Any, name: str, function: str, wrong_length: str, *,
                  expected: str = "tuple of ints", one_is_both: bool = True) -> tuple[int, int]:
    """:func:`sizes_argument` for the 2-D settings: (along height, along width)."""
    height, width = sizes_argument(value, 2, name, function, wrong_length, expected=expected,
                                   one_is_all=one_is_both)
    return height, width
