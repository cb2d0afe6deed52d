"""Checks that PyTorch's argument parser makes before an operation runs.

PyTorch refuses an argument of the wrong Python type with a TypeError that names the
function, the argument and the type it got (``unsqueeze(): argument 'dim' must be int, not
float``). Operations that take such arguments check them here, in one way.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

__all__ = ["bool_argument", "int_argument"]


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
