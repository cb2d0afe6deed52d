"""The named tuples that ``max(dim)``, ``min(dim)``, ``sort``, ``topk``, ``median``, ``kthvalue``, ``mode``,
``cummax``... return: ``(values, indices)``; and ``histogram``'s and ``aminmax``'s pairs.

They print as PyTorch's ``torch.return_types.max`` do, one field a line.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

__all__ = ["max", "min", "sort", "topk", "histogram", "median", "nanmedian", "kthvalue", "mode", "cummax",
           "cummin", "aminmax"]


def _values_indices(name: str) -> type:
    """A ``(values, indices)`` named tuple class called ``name``."""

    def __repr__(self: Any) -> str:  # noqa: N807
        return f"minigrad.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    cls = type(name, (namedtuple(name, ["values", "indices"]),), {"__slots__": (), "__repr__": __repr__})
    cls.__module__ = __name__
    return cls


max = _values_indices("max")  # noqa: A001 (PyTorch's names)
min = _values_indices("min")  # noqa: A001
sort = _values_indices("sort")
topk = _values_indices("topk")


class histogram(namedtuple("histogram", ["hist", "bin_edges"])):  # noqa: N801 (PyTorch's name)
    """What ``histogram`` returns: ``(hist, bin_edges)``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"minigrad.return_types.histogram(\nhist={self.hist!r},\nbin_edges={self.bin_edges!r})"


# issue 29's order statistics and scans
median = _values_indices("median")
nanmedian = _values_indices("nanmedian")
kthvalue = _values_indices("kthvalue")
mode = _values_indices("mode")
cummax = _values_indices("cummax")
cummin = _values_indices("cummin")


class aminmax(namedtuple("aminmax", ["min", "max"])):  # noqa: N801 (PyTorch's name)
    """What ``aminmax`` returns: ``(min, max)``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"minigrad.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})"
