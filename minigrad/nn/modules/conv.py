"""``nn.Conv2d``: a learnable 2-D convolution (cross-correlation), as PyTorch's.

The module holds the weight (C_out, C_in/groups, kh, kw) and bias (C_out) and its
forward is one call to ``F.conv2d``; how the convolution and its backward are
computed ('im2col', 'rot180' or 'naive') is chosen by ``algorithm=`` or by the
enclosing ``with nn.conv_algorithm(...)`` when the forward runs.

``padding_mode`` other than ``'zeros'`` pads the input first (by reflecting it, repeating
its edge or wrapping it around) and then convolves without padding, as PyTorch does.
"""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from typing import Any

from minigrad.creation import empty
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.modules.module import Module
from minigrad.nn.modules.utils import _pair, _reverse_repeat_tuple
from minigrad.nn.parameter import Parameter
from minigrad.ops.conv.algorithms import ALGORITHMS
from minigrad.ops.conv.functional import _same_padding
from minigrad.tensor import Tensor

__all__ = ["Conv2d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class Conv2d(Module):
    """y[n, o] = b[o] + Σ_c W[o, c] ⋆ x[n, c]: input (N, C_in, H, W) -> (N, C_out, H_out, W_out).

    H_out = ⌊(H + 2·padding − dilation·(kh − 1) − 1) / stride⌋ + 1 (likewise W_out).
    ``kernel_size``, ``stride``, ``padding``, ``dilation``: an int or a pair; ``padding`` may
    also be ``'valid'`` (none) or ``'same'`` (output as large as the input, stride 1).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None, *,
                 algorithm: str | None = None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        stride = _pair(stride)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _pair(padding)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        if algorithm is not None and algorithm not in ALGORITHMS:
            raise ValueError(f"unknown convolution algorithm {algorithm!r}; expected one of "
                             f"{', '.join(repr(name) for name in ALGORITHMS)}")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = _pair(kernel_size), stride, padding
        self.dilation, self.groups, self.padding_mode = _pair(dilation), groups, padding_mode
        self.transposed, self.output_padding = False, (0, 0)
        self.algorithm = algorithm
        self._reversed_padding_repeated_twice = _explicit_padding(padding, self.kernel_size, self.dilation)
        self.weight = Parameter(empty(out_channels, in_channels // groups, *self.kernel_size, device=device,
                                      dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """W ~ U(−1/√fan_in, 1/√fan_in) (Kaiming-uniform, a = √5), b likewise; fan_in = C_in/groups·kh·kw."""
        init.reset_layer_parameters_(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return F.conv2d(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups,
                            algorithm=self.algorithm)
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups,
                        algorithm=self.algorithm)

    def extra_repr(self) -> str:
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"
        text += f", stride={self.stride}"
        if self.padding != (0, 0):
            text += f", padding={self.padding}"
        if self.dilation != (1, 1):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        if self.algorithm is not None:
            text += f", algorithm={self.algorithm!r}"
        return text


def _explicit_padding(padding: Any, kernel_size: tuple, dilation: tuple) -> list | tuple:
    """``(left, right, top, bottom)``: the padding as ``F.pad`` takes it (last dimension first).

    'same' pads d·(k − 1) in total per dimension, the odd one out after (as ``F.conv2d`` does).
    """
    if padding == "valid":
        return [0, 0, 0, 0]
    if padding == "same":
        (top, left), (extra_h, extra_w) = _same_padding((0, 0, *kernel_size), (1, 1), dilation)
        return [left, left + extra_w, top, top + extra_h]
    return _reverse_repeat_tuple(padding, 2)
