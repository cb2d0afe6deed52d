"""Reuse of the convolution's biggest arrays, which ``malloc`` would hand back to the kernel.

minigrad keeps freed blocks of up to 32 MiB in the process (``minigrad/_memory.py``).
Bigger ones go back to the kernel when freed, and the next one is mapped afresh and
zeroed page by page as it is first written: for the 38 MB column matrix of a
32×32×32×32 input with a 3×3 kernel, about 3 ms a call, as long as the matrix product.
So the convolution takes its column matrices from here and gives them back when it is
done with them; the next call of the same shape gets the same memory.

``take`` is always safe (an array nobody gave back is simply new); ``give_back`` is
only for an array its caller owns and will not read again.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module

__all__ = ["take", "give_back"]

SMALLEST_KEPT = 32 * 1024 * 1024   # smaller arrays are kept by malloc itself
MOST_KEPT = 4                     # arrays held at once, the oldest dropped first ...
MOST_BYTES = 512 * 1024 * 1024    # ... and at most this much memory held in all

_kept: list = []


def take(xp: Any, shape: tuple, dtype: Any) -> Any:
    """An array of ``shape`` and ``dtype`` with arbitrary contents: one given back earlier, or new."""
    for i, array in enumerate(_kept):
        if array.shape == shape and array.dtype == dtype and get_array_module(array) is xp:
            return _kept.pop(i)
    return xp.empty(shape, dtype=dtype)


def give_back(array: Any) -> None:
    """Keep ``array`` for the next :func:`take` of its shape if it is big (its contents are forfeit)."""
    if array is None or not SMALLEST_KEPT <= array.nbytes <= MOST_BYTES or array.base is not None:
        return
    _kept.append(array)
    while len(_kept) > MOST_KEPT or sum(kept.nbytes for kept in _kept) > MOST_BYTES:
        _kept.pop(0)
