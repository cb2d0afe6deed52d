"""Which of several equal values ``topk`` picks: PyTorch's CPU choice, replayed.

A line without ties among its first k + 1 ordered values has one answer, and ``topk`` takes it from
one stable argsort of all lines (``sorting.py``). With ties, or with ``sorted=False`` (the order of
the k is then whatever the selection left), the answer is whatever PyTorch's CPU kernel leaves: it
pairs each value with its index and runs C++'s ``std::nth_element`` to bring the k best to the
front, then ``std::sort`` on the first k − 1 (``sorted=True``); when k·64 ≤ n it runs
``std::partial_sort`` instead. Four equal values and k = 2 give indices [2, 3], not [0, 1].

This module replays those algorithms as GNU's libstdc++ writes them (the C++ library of PyTorch's
Linux builds; other C++ libraries may order ties differently), on the host, for the tied lines only
(every line for ``sorted=False``, which is rare and slower for it).
It is bookkeeping, not part of the maths: the gradient goes to whichever indices are returned.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy

from minigrad import backend

Pair = tuple  # (value, index)
Compare = Callable[[Pair, Pair], bool]


def topk_order(xp: Any, array: Any, order: Any, axis: int, k: int, largest: bool, sorted_: bool) -> Any:
    """The first ``k`` of ``order`` (a stable argsort of ``array`` along ``axis``, best first), with each
    line that has a tie among its first k + 1 values (each line, if not ``sorted_``) replaced by PyTorch's
    CPU pick."""
    n = array.shape[axis]
    head = order[(slice(None),) * axis + (slice(0, min(k + 1, n)),)]
    best = xp.take_along_axis(array, head, axis=axis)
    before, after = xp.moveaxis(best, axis, -1)[..., :-1], xp.moveaxis(best, axis, -1)[..., 1:]
    tied = ((before == after) | ((before != before) & (after != after))).any(axis=-1).reshape(-1)
    if not sorted_:
        tied = xp.ones_like(tied)
    picked = xp.moveaxis(order[(slice(None),) * axis + (slice(0, k),)], axis, -1)
    if k == 0 or not bool(tied.any()):
        return xp.moveaxis(picked, -1, axis)
    lines = backend.to_host(xp.moveaxis(array, axis, -1).reshape(-1, n))
    result = backend.to_host(picked.reshape(-1, k)).copy()
    for row in numpy.flatnonzero(backend.to_host(tied)):
        result[row] = torch_cpu_topk(lines[row].tolist(), k, largest, sorted_)
    device_result = backend.from_host(result, backend.device_of(array)).reshape(picked.shape)
    return xp.moveaxis(device_result, -1, axis)


def torch_cpu_topk(values: list, k: int, largest: bool, sorted_: bool) -> list[int]:
    """The indices PyTorch's CPU ``topk`` returns for one line (nan counts as the largest value)."""
    pairs = [(value, index) for index, value in enumerate(values)]
    if largest:
        def better(x: Pair, y: Pair) -> bool:
            return (math.isnan(x[0]) and not math.isnan(y[0])) or x[0] > y[0]
    else:
        def better(x: Pair, y: Pair) -> bool:
            return (not math.isnan(x[0]) and math.isnan(y[0])) or x[0] < y[0]
    n = len(pairs)
    if k * 64 <= n:
        _partial_sort(pairs, 0, k, n, better)
    else:
        _nth_element(pairs, 0, k - 1, n, better)
        if sorted_:
            _sort(pairs, 0, k - 1, better)
    return [index for _, index in pairs[:k]]


# --- libstdc++'s algorithms (bits/stl_algo.h, bits/stl_heap.h), on q[first:last] --------------------

def _nth_element(q: list, first: int, nth: int, last: int, less: Compare) -> None:
    """Introselect: partition around a median-of-three pivot until at most 3 remain, then insertion sort."""
    if first == last or nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last, less)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, less)


def _sort(q: list, first: int, last: int, less: Compare) -> None:
    """Introsort down to runs of 16, then one insertion sort."""
    if first == last:
        return
    _introsort_loop(q, first, last, 2 * ((last - first).bit_length() - 1), less)
    if last - first > 16:
        _insertion_sort(q, first, first + 16, less)
        for i in range(first + 16, last):
            _linear_insert(q, i, less)
    else:
        _insertion_sort(q, first, last, less)


def _introsort_loop(q: list, first: int, last: int, depth: int, less: Compare) -> None:
    while last - first > 16:
        if depth == 0:
            _partial_sort(q, first, last, last, less)
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, less)
        _introsort_loop(q, cut, last, depth, less)
        last = cut


def _partial_sort(q: list, first: int, middle: int, last: int, less: Compare) -> None:
    _heap_select(q, first, middle, last, less)
    while middle - first > 1:
        middle -= 1
        _pop_heap(q, first, middle, middle, less)


def _insertion_sort(q: list, first: int, last: int, less: Compare) -> None:
    for i in range(first + 1, last):
        if less(q[i], q[first]):
            q[first:i + 1] = [q[i]] + q[first:i]
        else:
            _linear_insert(q, i, less)


def _linear_insert(q: list, i: int, less: Compare) -> None:
    value = q[i]
    while less(value, q[i - 1]):
        q[i] = q[i - 1]
        i -= 1
    q[i] = value


def _partition_pivot(q: list, first: int, last: int, less: Compare) -> int:
    """Move the median of q[first + 1], q[mid], q[last − 1] to q[first]; partition the rest around it."""
    a, b, c = first + 1, first + (last - first) // 2, last - 1
    if less(q[a], q[b]):
        median = b if less(q[b], q[c]) else c if less(q[a], q[c]) else a
    else:
        median = a if less(q[a], q[c]) else c if less(q[b], q[c]) else b
    q[first], q[median] = q[median], q[first]
    low, high = first + 1, last
    while True:
        while less(q[low], q[first]):
            low += 1
        high -= 1
        while less(q[first], q[high]):
            high -= 1
        if low >= high:
            return low
        q[low], q[high] = q[high], q[low]
        low += 1


def _heap_select(q: list, first: int, middle: int, last: int, less: Compare) -> None:
    length = middle - first
    for parent in range((length - 2) // 2, -1, -1) if length >= 2 else ():
        _adjust_heap(q, first, parent, length, q[first + parent], less)
    for i in range(middle, last):
        if less(q[i], q[first]):
            _pop_heap(q, first, middle, i, less)


def _pop_heap(q: list, first: int, last: int, result: int, less: Compare) -> None:
    value, q[result] = q[result], q[first]
    _adjust_heap(q, first, 0, last - first, value, less)


def _adjust_heap(q: list, first: int, hole: int, length: int, value: Pair, less: Compare) -> None:
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(q[first + child], q[first + child - 1]):
            child -= 1
        q[first + hole] = q[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[first + hole] = q[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(q[first + parent], value):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value
