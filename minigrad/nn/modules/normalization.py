"""``nn.LayerNorm``: normalise each sample over its trailing ``normalized_shape`` dimensions, then scale
and shift (γ = 1, β = 0 initially). No running statistics: training and evaluation compute the same.
The closed-form backward lives in ``minigrad/ops/normalization.py``."""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from typing import Any

from minigrad.creation import empty
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.modules.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor

__all__ = ["LayerNorm"]


class LayerNorm(Module):
    """y = (x − E[x]) / √(Var[x] + ε) · γ + β over the last ``len(normalized_shape)`` dimensions.

    Args:
        normalized_shape: the trailing shape normalised over (an int for the last dimension).
        eps: added to the variance.
        elementwise_affine: learn γ (``weight``, ones at first) and β (``bias``, zeros at first).
        bias: learn β as well (with ``elementwise_affine``).
        device: where the parameters are made.
        dtype: the parameters' dtype.
    """

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """γ = 1, β = 0."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")
