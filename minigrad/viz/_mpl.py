"""matplotlib, imported only when a picture is drawn (``import minigrad`` never needs it)."""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend
from minigrad.tensor import Tensor


def pyplot() -> Any:
    """``matplotlib.pyplot``, or an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt  # noqa: PLC0415 (optional dependency)
    except ImportError as error:
        raise ImportError("minigrad.viz draws with matplotlib: pip install matplotlib "
                          "(or minigrad's 'plot' extra)") from error
    return plt


def new_axes(ax: Any, figsize: tuple) -> tuple:
    """``(figure, axes)``: the given axes and its figure, or a new figure of ``figsize`` inches."""
    if ax is not None:
        return ax.figure, ax
    return pyplot().subplots(figsize=figsize)


def host_array(value: Any) -> numpy.ndarray:
    """The values of a Tensor, a NumPy/CuPy array or a nested list as a NumPy array, for drawing."""
    array = value.array if isinstance(value, Tensor) else value
    if isinstance(array, (list, tuple, int, float)):
        return numpy.asarray(array)
    return backend.to_host(array)
