"""``nn.Flatten``: merge dimensions ``start_dim`` .. ``end_dim`` into one (by default all but the batch)."""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from typing import Any

from minigrad.nn.modules.module import Module
from minigrad.tensor import Tensor

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """(N, C, H, W) -> (N, C·H·W) with the defaults ``start_dim=1, end_dim=-1``.

    Args:
        start_dim: the first dimension flattened.
        end_dim: the last dimension flattened.
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size`` (one entry may be −1): (N, 12) -> (N, 3, 2, 2).

    Args:
        dim: the dimension to split.
        unflattened_size: the sizes it is split into; their product must be its size.
    """

    def __init__(self, dim: int, unflattened_size: Any):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(f"unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for index, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                                f"{type(size).__name__} at pos {index}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        dim = self.dim + input.ndim if self.dim < 0 else self.dim
        if not 0 <= dim < input.ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-input.ndim}, "
                             f"{input.ndim - 1}], but got {self.dim})")
        sizes, length = list(self.unflattened_size), input.shape[dim]
        known = 1
        for size in sizes:
            known *= size if size != -1 else 1
        if sizes.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        if (-1 in sizes and (known == 0 or length % known)) or (-1 not in sizes and known != length):
            raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim "
                               f"{self.dim} ({length}) in the input tensor")
        return input.reshape(tuple(input.shape[:dim]) + tuple(sizes) + tuple(input.shape[dim + 1:]))

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
