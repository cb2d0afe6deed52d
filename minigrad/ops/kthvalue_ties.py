"""Which of several equal values ``kthvalue`` picks: PyTorch's CPU choice, replayed.

A line whose k-th smallest value occurs once has one answer, and ``kthvalue`` takes it from one
stable argsort of all lines (``statistics.py``). Where the k-th value occurs more than once, the
index is whatever PyTorch's CPU kernel leaves: it runs a quickselect (Sedgewick's partitioning, the
pivot a median of three, NaN counted as the largest value) on a copy of the line and its indices,
and reads position k − 1. Three equal values around k give one of them, not always the first.

This module replays that quickselect on the host, for the tied lines only. It is bookkeeping, not
part of the maths: the gradient goes to whichever index is returned.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from minigrad import backend


def kthvalue_index(xp: Any, array: Any, axis: int, k: int) -> Any:
    """The index of each line's k-th smallest value along ``axis`` (kept, of size 1), PyTorch's among
    equal values."""
    n = array.shape[axis]
    order = xp.argsort(array, axis=axis, kind="stable")
    picked = order[(slice(None),) * axis + (slice(k - 1, k),)]
    kth = xp.take_along_axis(array, picked, axis=axis)
    equal = array == kth
    if array.dtype.kind == "f":
        equal |= xp.isnan(array) & xp.isnan(kth)
    tied = xp.moveaxis(equal, axis, -1).reshape(-1, n).sum(axis=-1) > 1
    if not bool(tied.any()):
        return picked
    lines = backend.to_host(xp.moveaxis(array, axis, -1).reshape(-1, n))
    result = backend.to_host(xp.moveaxis(picked, axis, -1).reshape(-1)).copy()
    for row in numpy.flatnonzero(backend.to_host(tied)):
        result[row] = torch_cpu_kthvalue(lines[row].tolist(), k)
    moved_shape = xp.moveaxis(picked, axis, -1).shape
    device_result = backend.from_host(result, backend.device_of(array)).reshape(moved_shape)
    return xp.moveaxis(device_result, -1, axis)


def torch_cpu_kthvalue(values: list, k: int) -> int:
    """The index PyTorch's CPU ``kthvalue`` returns for one line: its quickselect, step by step."""
    arr, index = list(values), list(range(len(values)))

    def greater(x: float, y: float) -> bool:  # NaN counts as the largest value
        return (math.isnan(x) and not math.isnan(y)) or x > y

    def swap(i: int, j: int) -> None:
        arr[i], arr[j] = arr[j], arr[i]
        index[i], index[j] = index[j], index[i]

    target, low, high = k - 1, 0, len(arr) - 1
    while high > low:
        if high == low + 1:  # two elements: order them
            if greater(arr[low], arr[high]):
                swap(low, high)
            break
        swap((low + high) >> 1, low + 1)  # the pivot: the median of arr[low], arr[low + 1], arr[high]
        if greater(arr[low + 1], arr[high]):
            swap(low + 1, high)
        if greater(arr[low], arr[high]):
            swap(low, high)
        if greater(arr[low + 1], arr[low]):
            swap(low + 1, low)
        i, j, pivot = low + 1, high, arr[low]
        while True:  # Sedgewick's partition: i runs up, j runs down, out-of-place pairs swap
            i += 1
            while greater(pivot, arr[i]):
                i += 1
            j -= 1
            while greater(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= target:
            low = i
        if j >= target:
            high = j - 1
    return index[target]
