"""Activation layers: ``ReLU``, ``LeakyReLU``, ``Sigmoid``, ``Tanh``, ``Softmax``, ``LogSoftmax``.

Each forward is one call into ``F``; the derivatives live with the operations in
``minigrad/ops/elementwise.py`` and ``minigrad/ops/softmax.py``.
"""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from minigrad.nn import functional as F
from minigrad.nn.modules.module import Module
from minigrad.tensor import Tensor

__all__ = ["ReLU", "LeakyReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax"]


class ReLU(Module):
    """y = max(x, 0);  ``inplace=True`` overwrites the input."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """y = x where x > 0, else negative_slope·x;  ``inplace=True`` overwrites the input."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Sigmoid(Module):
    """y = 1 / (1 + e⁻ˣ)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Tanh(Module):
    """y = tanh x."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class Softmax(Module):
    """yᵢ = e^xᵢ / Σⱼ e^xⱼ along ``dim``."""

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """yᵢ = xᵢ − log Σⱼ e^xⱼ along ``dim``."""

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"
