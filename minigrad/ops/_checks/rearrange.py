"""Argument checks of the rearranging copies (``ops/rearrange.py``: flip, roll, repeat,
repeat_interleave), with PyTorch's exceptions and messages."""

from __future__ import annotations

from typing import Any

from minigrad._arguments import int_argument
from minigrad.tensor import Tensor, _normalize_dim


def distinct_axes(dims: Any, a: Tensor, function: str) -> tuple:
    """``dims`` (an int or a sequence) as axes of ``a``, none repeated."""
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    axes = tuple(_normalize_dim(int_argument(d, function, "dims"), a.ndim) for d in dims)
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"dim {axes[0] if len(axes) == 2 else list(axes)} appears multiple times in the "
                           f"list of dims")
    return axes


def roll_arguments(a: Tensor, shifts: Any, dims: Any) -> tuple[tuple, tuple | None]:
    """(shifts, axes) of ``roll``, one shift per axis; axes None (one shift) rolls the flattened ``a``."""
    shifts = tuple(shifts) if isinstance(shifts, (list, tuple)) else (shifts,)
    shifts = tuple(int_argument(s, "roll", "shifts") for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return shifts, None
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    return shifts, tuple(_normalize_dim(int_argument(d, "roll", "dims"), a.ndim) for d in dims)


def check_repeat(a: Tensor, reps: tuple) -> None:
    """At least one repeat per dimension of ``a``, none negative."""
    if len(reps) < a.ndim:
        raise RuntimeError(f"Number of dimensions of repeat dims can not be smaller than number of "
                           f"dimensions of tensor (repeats {list(reps)}, tensor of shape {list(a.shape)})")
    if any(r < 0 for r in reps):
        shape = [r * n for r, n in zip(reps, (1,) * (len(reps) - a.ndim) + tuple(a.shape))]
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {shape} "
                           f"(repeats {list(reps)} of a tensor of shape {list(a.shape)})")


def repeats_argument(repeats: Any) -> int:
    """``repeat_interleave``'s ``repeats``: one non-negative int (or a one-element tensor)."""
    if isinstance(repeats, Tensor):
        if repeats.numel() != 1:
            raise NotImplementedError("repeat_interleave with a tensor of per-element repeats is not "
                                      "implemented in minigrad; give an int")
        repeats = repeats.item()
    repeats = int_argument(repeats, "repeat_interleave", "repeats")
    if repeats < 0:
        raise RuntimeError(f"Repeats must be non-negative (got {repeats})")
    return repeats


def check_output_size(output_size: int | None, out: Tensor, axis: int) -> None:
    if output_size is not None and output_size != out.shape[axis]:
        raise RuntimeError(f"repeat_interleave: output_size {output_size} does not match the size "
                           f"{out.shape[axis]} of the result")
