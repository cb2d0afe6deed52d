"""``nn.Dropout``: during training, zero each element with probability p and scale the rest by 1/(1 − p).

In evaluation mode (``model.eval()``) it is the identity, so the expected activation
is the same in both modes. Masks come from minigrad's seeded generator.
"""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from minigrad.nn import functional as F
from minigrad.nn.modules.module import Module
from minigrad.tensor import Tensor

__all__ = ["Dropout", "Dropout2d"]


class Dropout(Module):
    """y = x ⊙ m / (1 − p), m ~ Bernoulli(1 − p), while ``training``; y = x otherwise.

    Args:
        p: the probability of zeroing each element.
        inplace: overwrite the input with the result instead of allocating a new tensor.
    """

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2d(Dropout):
    """Zero whole channels while training: y[n, c] = x[n, c] · m[n, c] / (1 − p), m ~ Bernoulli(1 − p).

    Args:
        p: the probability of zeroing each channel.
        inplace: overwrite the input with the result instead of allocating a new tensor.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)
