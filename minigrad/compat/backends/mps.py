"""``torch.backends.mps``: Apple's GPU (Metal). minigrad has no Metal backend."""

from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: minigrad cannot place tensors on Apple's GPU (``'mps'``)."""
    return False


def is_built() -> bool:
    """False: minigrad was not built with Metal support (there is none)."""
    return False
