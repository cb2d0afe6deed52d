"""Copies that rearrange elements: flip, roll, repeat, repeat_interleave. Each backward moves the
gradient back the way the forward moved the numbers (repeats add up)."""

from __future__ import annotations

from typing import Any

from minigrad._arguments import int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import shape as shape_ops
from minigrad.ops._checks import rearrange as checks
from minigrad.ops._checks import shape as shape_checks
from minigrad.ops.reduction import SumDims
from minigrad.ops.shape import View
from minigrad.tensor import Tensor, _normalize_dim


class Flip(Function):
    """y = a reversed along ``axes``;   da = dy reversed along them."""

    @staticmethod
    def forward(ctx, a, axes):
        ctx.axes = axes
        return Tensor(get_array_module(a).flip(a.array, axes).copy() if axes else a.array.copy())

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, ctx.axes), None


def flip(a: Tensor, *dims_args: Any, dims: Any = None) -> Tensor:
    """A copy of ``a`` with the order of elements reversed along ``dims``."""
    if dims is None:
        if not dims_args:
            raise TypeError('flip() missing 1 required positional arguments: "dims"')
        dims = dims_args[0] if len(dims_args) == 1 else dims_args
    axes = checks.distinct_axes(dims, a, "flip")
    return Flip.apply(a, axes if a.ndim else ())


class Roll(Function):
    """y = a shifted cyclically by ``shifts`` along ``axes``;   da = dy shifted back."""

    @staticmethod
    def forward(ctx, a, shifts, axes):
        ctx.shifts, ctx.axes = shifts, axes
        return Tensor(get_array_module(a).roll(a.array, shifts, axes))

    @staticmethod
    def backward(ctx, grad):
        return Roll.apply(grad, tuple(-s for s in ctx.shifts), ctx.axes), None, None


def roll(a: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """``a`` shifted cyclically along ``dims``; without ``dims``, the flattened ``a`` shifted and reshaped."""
    shifts, axes = checks.roll_arguments(a, shifts, dims)
    if axes is None:
        return shape_ops.reshape(roll(shape_ops.flatten(a), shifts, 0), a.shape)
    return Roll.apply(a, shifts, axes)


class Repeat(Function):
    """y = a tiled ``reps`` times along each dimension;   da = the sum of dy's tiles."""

    @staticmethod
    def forward(ctx, a, reps):
        ctx.reps, ctx.input_shape = reps, a.array.shape
        return Tensor(get_array_module(a).tile(a.array, reps) if reps else a.array.copy())

    @staticmethod
    def backward(ctx, grad):
        lead = len(ctx.reps) - len(ctx.input_shape)
        shape = (1,) * lead + ctx.input_shape
        split_shape = tuple(n for r, s in zip(ctx.reps, shape) for n in (r, s))  # (r0, s0, r1, s1, ...)
        if not split_shape:  # a 0-d tensor, no repeats
            return grad, None
        tiles = View.apply(grad, split_shape)
        summed = SumDims.apply(tiles, tuple(range(0, len(split_shape), 2)), False, None)
        if summed.shape != ctx.input_shape:  # more repeats than dims: the leading 1s go
            summed = View.apply(summed, ctx.input_shape)
        return summed, None


def repeat(a: Tensor, *sizes: Any) -> Tensor:
    """``a`` tiled: ``sizes[i]`` copies along dimension i (more sizes than dims add leading dims)."""
    reps = shape_checks.sizes_argument(sizes)
    checks.check_repeat(a, reps)
    return Repeat.apply(a, reps)


class RepeatInterleave(Function):
    """y = each element of a along ``axis`` repeated ``repeats`` times in a row;   da = dy's runs summed."""

    @staticmethod
    def forward(ctx, a, repeats, axis):
        ctx.repeats, ctx.axis, ctx.input_shape = repeats, axis, a.array.shape
        return Tensor(get_array_module(a).repeat(a.array, repeats, axis=axis))

    @staticmethod
    def backward(ctx, grad):
        shape, axis = ctx.input_shape, ctx.axis
        split_shape = shape[:axis] + (shape[axis], ctx.repeats) + shape[axis + 1:]
        runs = View.apply(grad, split_shape)
        return SumDims.apply(runs, (axis + 1,), False, None), None, None


def repeat_interleave(a: Tensor, repeats: Any, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element repeated ``repeats`` (an int) times in a row along ``dim`` (of the flattened ``a`` if
    None): ``[1, 2]`` -> ``[1, 1, 2, 2]``."""
    repeats = checks.repeats_argument(repeats)
    if dim is None:
        a, axis = shape_ops.flatten(a), 0
    else:
        axis = _normalize_dim(int_argument(dim, "repeat_interleave", "dim"), a.ndim)
        if a.ndim == 0:
            a = shape_ops.reshape(a, 1)
    out = RepeatInterleave.apply(a, repeats, axis)
    checks.check_output_size(output_size, out, axis)
    return out
