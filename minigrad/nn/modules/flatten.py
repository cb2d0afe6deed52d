"""``nn.Flatten``: merge dimensions ``start_dim`` .. ``end_dim`` into one (by default all but the batch)."""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from minigrad.nn.modules.module import Module
from minigrad.tensor import Tensor

__all__ = ["Flatten"]


class Flatten(Module):
    """(N, C, H, W) -> (N, C·H·W) with the defaults ``start_dim=1, end_dim=-1``."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
