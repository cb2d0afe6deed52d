"""``nn.Linear`` (y = x Wᵀ + b) and ``nn.Identity``."""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from typing import Any

from minigrad.creation import empty
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.modules.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor

__all__ = ["Linear", "Identity"]


class Identity(Module):
    """Returns its input unchanged (a placeholder; any constructor arguments are ignored)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """y = x Wᵀ + b: input (*, in_features) -> output (*, out_features).

    ``weight`` is (out_features, in_features) and ``bias`` (out_features), both drawn from
    U(−1/√in_features, 1/√in_features) — PyTorch's default (Kaiming-uniform with a = √5).

    Args:
        in_features: the size of each input's last dimension.
        out_features: the size of each output's last dimension.
        bias: whether to learn the additive bias ``b``.
        device: the device the parameters are created on (default: the CPU).
        dtype: their dtype (default: ``torch.get_default_dtype()``, float32).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty(out_features, in_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """W, b ~ U(−1/√in_features, 1/√in_features), as PyTorch (Kaiming-uniform with a = √5)."""
        init.reset_layer_parameters_(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        has_bias = self.bias is not None
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={has_bias}"
