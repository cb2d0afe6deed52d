"""Activation layers: ``ReLU``, ``LeakyReLU``, ``Sigmoid``, ``Tanh``, ``Softmax``, ``LogSoftmax``,
``Softmin``, ...

Each forward is one call into ``F``; the derivatives live with the operations in
``minigrad/ops/activations.py`` and ``minigrad/ops/softmax.py``.
"""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from minigrad.nn import functional as F
from minigrad.nn.modules.module import Module
from minigrad.tensor import Tensor

__all__ = ["ReLU", "LeakyReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "GELU", "SiLU", "ELU", "Softplus",
           "Softmin"]


class ReLU(Module):
    """y = max(x, 0);  ``inplace=True`` overwrites the input.

    Args:
        inplace: overwrite the input with the result instead of allocating a new tensor.
    """

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """y = x where x > 0, else negative_slope·x;  ``inplace=True`` overwrites the input.

    Args:
        negative_slope: the slope for negative inputs.
        inplace: overwrite the input with the result instead of allocating a new tensor.
    """

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
    """yᵢ = e^xᵢ / Σⱼ e^xⱼ along ``dim``.

    Args:
        dim: the dimension the probabilities sum to 1 along (None: PyTorch's legacy guess, with a warning).
    """

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """yᵢ = xᵢ − log Σⱼ e^xⱼ along ``dim``.

    Args:
        dim: the dimension to normalise along (None: PyTorch's legacy guess, with a warning).
    """

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Module):
    """yᵢ = e^−xᵢ / Σⱼ e^−xⱼ along ``dim`` (the softmax of −x).

    Args:
        dim: the dimension to normalise along (None: PyTorch's legacy guess, with a warning).
    """

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    """y = x·Φ(x), Φ the standard normal CDF; ``approximate='tanh'`` uses its tanh approximation.

    Args:
        approximate: ``'none'`` (the exact erf form) or ``'tanh'``.
    """

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """y = x·σ(x) (the swish);  ``inplace=True`` overwrites the input.

    Args:
        inplace: overwrite the input with the result instead of allocating a new tensor.
    """

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ELU(Module):
    """y = x where x > 0, else α(eˣ − 1);  ``inplace=True`` overwrites the input.

    Args:
        alpha: the value −α that negative inputs approach.
        inplace: overwrite the input with the result instead of allocating a new tensor.
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Softplus(Module):
    """y = log(1 + e^(βx)) / β, and y = x where βx > threshold (for numerical stability).

    Args:
        beta: the sharpness β.
        threshold: above βx > threshold the output is x.
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"
