"""Sorting along one dimension: ``sort``, ``argsort`` and ``topk``.

Each orders every line along ``dim`` with one stable argsort (no loop over lines). The values
are the input picked at the sorted positions, so their gradient goes back to those positions:
``da = zeros`` with ``dvalues`` put at ``indices`` (each position is picked at most once): a
``scatter``, whose own backward gathers again.
"""

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad._arguments import bool_argument, int_argument
from minigrad.compat import return_types
from minigrad.ops.extremes import SelectAlong
from minigrad.ops.topk_ties import topk_order
from minigrad.tensor import Tensor, _normalize_dim


def _order(xp: Any, array: Any, axis: int, descending: bool) -> Any:
    """The stable order of ``array`` along ``axis`` (NaN counts as the largest value, as in PyTorch).

    Descending and stable: sort the reversed line ascending, then reverse the result, so equal
    values keep their original order."""
    if not descending:
        return xp.argsort(array, axis=axis, kind="stable")
    n = array.shape[axis]
    backwards = xp.argsort(xp.flip(array, axis), axis=axis, kind="stable")
    return (n - 1) - xp.flip(backwards, axis)


def _pick_order(descending: bool, k: int | None = None, sorted_: bool = True) -> Any:
    """``SelectAlong``'s pick for ``sort`` (each line's stable order) or ``topk`` (its first ``k``, ties
    broken as PyTorch's CPU kernel breaks them)."""
    def pick(xp: Any, array: Any, axis: int) -> Any:
        order = _order(xp, array, axis, descending)
        return order if k is None else topk_order(xp, array, order, axis, k, descending, sorted_)
    return pick


def _dim(a: Tensor, dim: Any, function: str) -> int:
    return _normalize_dim(int_argument(dim, function, "dim"), a.ndim)


def _check_stable(stable: Any, function: str) -> None:
    if stable is not None:
        bool_argument(stable, function, "stable")


def sort(a: Tensor, dim: int = -1, descending: bool = False, *, stable: bool | None = None) -> Any:
    """Named tuple (values, indices): each line along ``dim`` in order, and where each value came from.

    Always stable here (equal values keep their order), which ``stable=False`` permits. As in PyTorch,
    ``stable`` is keyword-only, and a call that gives it records the other overload (``SortBackward1``)."""
    _check_stable(stable, "sort")
    axis = _dim(a, dim, "sort")
    node_name = "SortBackward0" if stable is None else "SortBackward1"
    values, indices = SelectAlong.apply(a, axis, True, _pick_order(bool(descending)), node_name)
    return return_types.sort(values, indices)


def argsort(a: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """The indices that sort each line along ``dim`` (``sort(...).indices``)."""
    _check_stable(stable, "argsort")
    return sort(a, dim, descending).indices


def topk(a: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    """Named tuple (values, indices) of the ``k`` largest (or smallest) entries of each line along ``dim``,
    in order (``sorted=False`` allows any order). Among equal values the indices are PyTorch's on the
    CPU (``topk_ties.py``): four equal values and k = 2 give [2, 3]."""
    k = int_argument(k, "topk", "k", position=1)
    if a.dtype is _dtypes.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    axis = _dim(a, dim, "topk")
    size = a.shape[axis] if a.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"selected index k out of range (k={k}, dimension {axis} of size {size})")
    pick = _pick_order(bool(largest), k, bool(sorted))
    values, indices = SelectAlong.apply(a, axis, True, pick, "TopkBackward0")
    return return_types.topk(values, indices)
