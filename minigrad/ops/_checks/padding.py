"""Argument checks of padding (``ops/padding.py``), with PyTorch's exceptions and messages."""

from __future__ import annotations

from typing import Any

from minigrad.tensor import Tensor


def pad_widths(a: Tensor, pad: Any, mode: str, modes: tuple) -> list[tuple[int, int]]:
    """``F.pad``'s ``pad`` (last dimension first) as one (before, after) pair per dimension of ``a``."""
    if mode not in modes:
        raise NotImplementedError(f"Unrecognised padding mode {mode} (expected 'constant', 'reflect', "
                                  f"'replicate' or 'circular')")
    for width in pad:
        if isinstance(width, float):
            raise TypeError(f"pad(): argument 'pad' must be tuple of ints, but found element of type float "
                            f"({list(pad)})")
    if len(pad) % 2 != 0:
        raise RuntimeError(f"Padding length must be divisible by 2, got {len(pad)} widths {list(pad)}")
    if len(pad) // 2 > a.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension "
                           f"but got padding length {len(pad)} and input of dimension {a.ndim}")
    widths = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        widths[a.ndim - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    return widths


def check_constant_pad(a: Tensor, widths: list, pad: Any) -> None:
    """Negative widths crop, but no padded size may be negative."""
    for (before, after), n in zip(widths, a.shape):
        if n + before + after < 0:
            raise RuntimeError(f"pad: the padded size {n + before + after} of a dimension of size {n} "
                               f"is negative (pad {list(pad)})")


def check_gather_pad(a: Tensor, widths: list, pad: Any, mode: str, value: Any) -> None:
    """PyTorch's rules for reflect / replicate / circular (the last 1, 2 or 3 dimensions)."""
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    axes = len(pad) // 2
    if axes not in (1, 2, 3) or a.ndim not in (axes + 1, axes + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {a.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode != "circular" and 0 in a.shape[-axes - 1:]:
        raise RuntimeError(f"Expected {axes + 1}D or {axes + 2}D (batch mode) tensor with possibly 0 batch "
                           f"size and other non-zero dimensions for input, but got: {list(a.shape)}")
    padded = range(a.ndim - axes, a.ndim)
    sizes = [a.shape[axis] + sum(widths[axis]) for axis in padded]
    if min(sizes) < 0 or (mode != "circular" and max(sizes) < 1):
        raise RuntimeError(f"input of shape {list(a.shape)} is too small for padding {list(pad)}: calculated "
                           f"output sizes {sizes} (negative widths crop; no size may be negative"
                           f"{'' if mode == 'circular' else ', and not all zero'})")
    for axis in reversed(padded):   # PyTorch checks the last dimension first
        (before, after), size = widths[axis], a.shape[axis]
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({before}, {after}) at dimension {axis} of "
                               f"input {list(a.shape)}")
        if mode == "circular" and (before > size or after > size):
            raise RuntimeError(f"Padding value causes wrapping around more than once: padding ({before}, "
                               f"{after}) at dimension {axis} of size {size}")
        kept = size - max(-before, 0) - max(-after, 0)
        if mode == "circular" and max(before, after) > kept and a.numel() and min(sizes) > 0:
            # PyTorch copies uninitialised memory here: the wrap reaches past what the cropping left
            raise RuntimeError(f"circular padding ({before}, {after}) of dimension {axis} (size {size}) "
                               f"wraps around more than the {max(kept, 0)} entries left after cropping")
