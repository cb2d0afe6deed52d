"""``nn.Conv1d`` and ``nn.Conv2d``: learnable 1-D and 2-D convolutions (cross-correlations), as PyTorch's.

The module holds the weight (C_out, C_in/groups, kh, kw) — (C_out, C_in/groups, k) for
Conv1d — and bias (C_out), and its forward is one call to ``F.conv2d`` (``F.conv1d``, a
conv2d of height 1); how the convolution and its backward are computed ('im2col',
'im2col_tuned', 'rot180' or 'naive') is chosen by ``algorithm=`` or by the enclosing
``with nn.conv_algorithm(...)`` when the forward runs.

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
from minigrad.nn.modules.utils import _pair, _reverse_repeat_tuple, _single
from minigrad.nn.parameter import Parameter
from minigrad.ops.conv.algorithms import check_algorithm
from minigrad.tensor import Tensor

__all__ = ["Conv1d", "Conv2d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """What Conv1d and Conv2d share: arguments, parameters, initialisation, padding modes, repr.

    A subclass names its tuple maker (``_single`` or ``_pair``) and its functional convolution.
    """

    _ntuple: Any = None
    _convolution: Any = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None, *,
                 algorithm: str | None = None):
        super().__init__()
        ntuple = type(self)._ntuple
        stride = ntuple(stride)
        padding = _check_arguments(in_channels, out_channels, stride, padding, groups, padding_mode,
                                   algorithm, ntuple)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = ntuple(kernel_size), stride, padding
        self.dilation, self.groups, self.padding_mode = ntuple(dilation), groups, padding_mode
        self.transposed, self.output_padding = False, (0,) * len(self.kernel_size)
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
        """W ~ U(−1/√fan_in, 1/√fan_in) (Kaiming-uniform, a = √5), b likewise; fan_in = C_in/groups·Πk."""
        init.reset_layer_parameters_(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        convolution = type(self)._convolution
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return convolution(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups,
                               algorithm=self.algorithm)
        return convolution(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                           self.groups, algorithm=self.algorithm)

    def extra_repr(self) -> str:
        return _conv_repr(self)


class Conv2d(_ConvNd):
    """y[n, o] = b[o] + Σ_c W[o, c] ⋆ x[n, c]: input (N, C_in, H, W) -> (N, C_out, H_out, W_out).

    H_out = ⌊(H + 2·padding − dilation·(kh − 1) − 1) / stride⌋ + 1 (likewise W_out).
    ``kernel_size``, ``stride``, ``padding``, ``dilation``: an int or a pair; ``padding`` may
    also be ``'valid'`` (none) or ``'same'`` (output as large as the input, stride 1).

    Args:
        in_channels: C_in, the channels of the input.
        out_channels: C_out, the channels of the output (the number of filters).
        kernel_size: the filter's size: an int or a tuple (one entry per spatial dimension).
        stride: the step between windows: an int or a tuple (default 1).
        padding: zeros (or ``padding_mode``'s values) added on every side: an int, a tuple, ``'valid'`` (none)
            or ``'same'`` (output as large as the input; stride 1 only).
        dilation: the spacing between the filter's taps (default 1: a dense filter).
        groups: split the channels into this many independent convolutions; C_in and C_out must be multiples
            of it (``groups=C_in``: a depthwise convolution).
        bias: whether to learn a bias per output channel.
        padding_mode: ``'zeros'`` (the default), ``'reflect'``, ``'replicate'`` or ``'circular'``.
        device: the device the parameters are created on (default: the CPU).
        dtype: their dtype (default: ``torch.get_default_dtype()``, float32).
        algorithm: minigrad only: how this layer's convolution and backward are computed, ``'im2col'``,
            ``'im2col_tuned'``, ``'rot180'`` or ``'naive'``; None (the default) follows
            ``nn.conv_algorithm(...)`` blocks, else ``'im2col'``.
    """

    _ntuple = staticmethod(_pair)
    _convolution = staticmethod(F.conv2d)


def _check_arguments(in_channels: int, out_channels: int, stride: tuple, padding: Any, groups: int,
                     padding_mode: str, algorithm: str | None, ntuple: Any) -> Any:
    """PyTorch's constructor checks (ValueError); returns ``padding`` as a tuple unless a string."""
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
    else:
        padding = ntuple(padding)
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got "
                         f"padding_mode='{padding_mode}'")
    if algorithm is not None:
        check_algorithm(algorithm)   # ValueError for an unknown name
    return padding


def _conv_repr(module: Module) -> str:
    """PyTorch's extra_repr of a convolution: what differs from the defaults, sizes as tuples."""
    dimensions = len(module.kernel_size)
    text = f"{module.in_channels}, {module.out_channels}, kernel_size={module.kernel_size}"
    text += f", stride={module.stride}"
    if module.padding != (0,) * dimensions:
        text += f", padding={module.padding}"
    if module.dilation != (1,) * dimensions:
        text += f", dilation={module.dilation}"
    if module.groups != 1:
        text += f", groups={module.groups}"
    if module.bias is None:
        text += ", bias=False"
    if module.padding_mode != "zeros":
        text += f", padding_mode={module.padding_mode}"
    if module.algorithm is not None:
        text += f", algorithm={module.algorithm!r}"
    return text


class Conv1d(_ConvNd):
    """y[n, o] = b[o] + Σ_c W[o, c] ⋆ x[n, c]: input (N, C_in, L) or (C_in, L) -> (N, C_out, L_out).

    L_out = ⌊(L + 2·padding − dilation·(k − 1) − 1) / stride⌋ + 1. Sizes are ints or 1-tuples
    (stored as 1-tuples); ``padding`` may also be ``'valid'`` or ``'same'``. The weight is
    (C_out, C_in/groups, k); ``F.conv1d`` computes it as a conv2d of height 1, so
    ``algorithm=`` and ``nn.conv_algorithm`` choose its algorithm as for Conv2d.

    Args:
        in_channels: C_in, the channels of the input.
        out_channels: C_out, the channels of the output (the number of filters).
        kernel_size: the filter's size: an int or a tuple (one entry per spatial dimension).
        stride: the step between windows: an int or a tuple (default 1).
        padding: zeros (or ``padding_mode``'s values) added on every side: an int, a tuple, ``'valid'`` (none)
            or ``'same'`` (output as large as the input; stride 1 only).
        dilation: the spacing between the filter's taps (default 1: a dense filter).
        groups: split the channels into this many independent convolutions; C_in and C_out must be multiples
            of it (``groups=C_in``: a depthwise convolution).
        bias: whether to learn a bias per output channel.
        padding_mode: ``'zeros'`` (the default), ``'reflect'``, ``'replicate'`` or ``'circular'``.
        device: the device the parameters are created on (default: the CPU).
        dtype: their dtype (default: ``torch.get_default_dtype()``, float32).
        algorithm: minigrad only: how this layer's convolution and backward are computed, ``'im2col'``,
            ``'im2col_tuned'``, ``'rot180'`` or ``'naive'``; None (the default) follows
            ``nn.conv_algorithm(...)`` blocks, else ``'im2col'``.
    """

    _ntuple = staticmethod(_single)
    _convolution = staticmethod(F.conv1d)


def _explicit_padding(padding: Any, kernel_size: tuple, dilation: tuple) -> list | tuple:
    """The padding as ``F.pad`` takes it, last dimension first: ``(left, right)`` for 1-D,
    ``(left, right, top, bottom)`` for 2-D.

    'same' pads d·(k − 1) in total per dimension, the odd one out after (as ``F.conv2d`` does).
    """
    dimensions = len(kernel_size)
    if padding == "valid":
        return [0, 0] * dimensions
    if padding == "same":
        widths = []
        for k, d in zip(reversed(kernel_size), reversed(dilation)):
            total = d * (k - 1)
            widths += [total // 2, total - total // 2]
        return widths
    return _reverse_repeat_tuple(padding, 2)
