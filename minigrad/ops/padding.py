"""Padding (``F.pad``): constant, reflect, replicate, circular. A constant pad's backward cuts the
padding away; the others copy input positions, so their backward adds the gradient back onto them."""

from __future__ import annotations

from typing import Any

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._checks import padding as checks
from minigrad.tensor import Tensor


class ConstantPad(Function):
    """y = a with ``value`` added around it (cropped where a width is negative);   da = dy padded by the
    opposite widths (the padding is cut away, zeros fill what was cropped)."""

    node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, a, widths, value):
        xp = get_array_module(a)
        cropped = a.array[tuple(slice(max(-before, 0), n - max(-after, 0))
                                for (before, after), n in zip(widths, a.array.shape))]
        positive = [(max(before, 0), max(after, 0)) for before, after in widths]
        ctx.crop = widths
        if not widths:  # a 0-d tensor: nothing to pad
            return Tensor(cropped.copy())
        return Tensor(xp.pad(cropped, positive, mode="constant", constant_values=value))

    @staticmethod
    def backward(ctx, grad):
        # the opposite widths: cut the padding away, pad zeros where negative widths cropped
        return ConstantPad.apply(grad, tuple((-before, -after) for before, after in ctx.crop), 0), None, None


class GatherPad(Function):
    """y = a[..., i(j)]: every output position j of a padded axis copies input position i(j);
    da = dy scattered back onto i(j), where several j share one i their gradients add up."""

    @staticmethod
    def forward(ctx, a, key):
        ctx.key, ctx.input_shape = key, a.array.shape
        return Tensor(a.array[key])

    @staticmethod
    def backward(ctx, grad):
        from minigrad.ops.indexing import GetItemBackward  # noqa: PLC0415 (indexing is a sibling op module)

        return GetItemBackward.apply(grad, ctx.input_shape, ctx.key, False, ctx.name()), None


class ReflectionPad(GatherPad):
    """Mirror at the edge, the edge itself not repeated:  [a b c d], pad 2 -> c b [a b c d] c b."""


class ReplicationPad(GatherPad):
    """Repeat the edge value:  [a b c d], pad 2 -> a a [a b c d] d d."""


class CircularPad(GatherPad):
    """Wrap around (periodic):  [a b c d], pad 2 -> c d [a b c d] a b."""


PAD_FUNCTIONS = {"reflect": ReflectionPad, "replicate": ReplicationPad, "circular": CircularPad}


def source_positions(xp: Any, size: int, before: int, after: int, mode: str) -> Any:
    """i(j) for j = 0 .. size + before + after − 1: the input position output position j copies."""
    j = xp.arange(size + before + after) - before          # j's position relative to the input
    if mode == "reflect":                                  # −1 -> 1,  size -> size − 2
        return (size - 1) - xp.abs((size - 1) - xp.abs(j))
    if mode == "replicate":                                # clamp to the edge
        return xp.clip(j, 0, size - 1)
    # circular, as PyTorch: crop first (negative widths), then wrap around what is left
    start, kept = max(-before, 0), size - max(-before, 0) - max(-after, 0)
    wrapped = start + (j - start) % max(kept, 1)
    return xp.clip(wrapped, 0, max(size - 1, 0))  # the clip matters only for empty inputs


def pad(a: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """``F.pad``: ``pad`` lists (before, after) widths starting from the LAST dimension; negative widths crop.

    ``mode``: 'constant' (``value``, any number of dimensions), or 'reflect', 'replicate', 'circular'
    (the last 1, 2 or 3 dimensions of a batched or unbatched input, as in PyTorch).
    """
    widths = checks.pad_widths(a, pad, mode, ("constant", *PAD_FUNCTIONS))
    if mode != "constant":
        checks.check_gather_pad(a, widths, pad, mode, value)
        xp = get_array_module(a)
        lead = a.ndim - len(pad) // 2
        maps = [source_positions(xp, a.shape[axis], *widths[axis], mode) for axis in range(lead, a.ndim)]
        # one index array per padded axis, shaped to broadcast into an open grid (like numpy.ix_)
        grid = tuple(m.reshape((-1,) + (1,) * (len(maps) - 1 - k)) for k, m in enumerate(maps))
        return PAD_FUNCTIONS[mode].apply(a, (slice(None),) * lead + grid)
    checks.check_constant_pad(a, widths, pad)
    return ConstantPad.apply(a, tuple(widths), 0 if value is None else value)
