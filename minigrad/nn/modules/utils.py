"""``_single``, ``_pair``, ``_triple``, ``_quadruple``: an int or an iterable as an n-tuple, as in PyTorch.

``_pair(3) == (3, 3)`` and ``_pair((1, 2)) == (1, 2)``: layers store their sizes this way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat
from typing import Any

__all__ = ["_ntuple", "_single", "_pair", "_triple", "_quadruple", "_reverse_repeat_tuple"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    def parse(x: Any) -> tuple:
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: tuple, n: int) -> tuple:
    """``(a, b)`` -> ``(b, b, a, a)`` for n = 2: per-dimension padding in ``F.pad``'s last-dim-first order."""
    return tuple(x for x in reversed(t) for _ in range(n))
