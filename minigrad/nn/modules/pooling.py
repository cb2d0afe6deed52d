"""``nn.MaxPool1d``/``2d`` and ``nn.AvgPool1d``/``2d``: pooling over windows of (N, C, L) or
(N, C, H, W), as PyTorch's.

The sizes are stored as given (an int stays an int, as in PyTorch's repr), except AvgPool1d's,
which PyTorch stores as 1-tuples; ``stride`` defaults to ``kernel_size`` (non-overlapping windows).
"""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from typing import Any

from minigrad.nn import functional as F
from minigrad.nn.modules.module import Module
from minigrad.nn.modules.utils import _single
from minigrad.tensor import Tensor

__all__ = ["MaxPool1d", "AvgPool1d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d"]


class _MaxPoolNd(Module):
    """What MaxPool1d and MaxPool2d share: the arguments as given, the repr; a subclass names its pool."""

    _pool: Any = None

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Any:
        return type(self)._pool(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """y = the maximum of each (dilated) window of k along L; L_out = ⌊(L + 2p − d(k − 1) − 1) / s⌋ + 1.

    Args:
        kernel_size: the window's length.
        stride: the window's step: an int; None (the default) means ``kernel_size``.
        padding: implicit padding on every side (−∞ for max, 0 for average), at most half the kernel.
        dilation: the spacing between the window's taps (1: a dense window).
        return_indices: also return the flat index of each maximum within its input plane.
        ceil_mode: compute the output size with ⌈⌉ instead of ⌊⌋, so a last partial window counts.
    """

    _pool = staticmethod(F.max_pool1d)


class AvgPool1d(Module):
    """y = the mean of each window of k along L (padding counted unless ``count_include_pad=False``).

    Args:
        kernel_size: the window's length.
        stride: the window's step: an int; None (the default) means ``kernel_size``.
        padding: implicit padding on every side (−∞ for max, 0 for average), at most half the kernel.
        ceil_mode: compute the output size with ⌈⌉ instead of ⌊⌋, so a last partial window counts.
        count_include_pad: count the padding zeros in each window's divisor.
    """

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool2d(_MaxPoolNd):
    """y = the maximum of each (dilated) kh×kw window; H_out = ⌊(H + 2p − d(k − 1) − 1) / s⌋ + 1.

    Args:
        kernel_size: the window's size: an int or a pair (kh, kw).
        stride: the window's step: an int or a pair; None (the default) means ``kernel_size``.
        padding: implicit padding on every side (−∞ for max, 0 for average), at most half the kernel.
        dilation: the spacing between the window's taps (1: a dense window).
        return_indices: also return the flat index of each maximum within its input plane.
        ceil_mode: compute the output size with ⌈⌉ instead of ⌊⌋, so a last partial window counts.
    """

    _pool = staticmethod(F.max_pool2d)


class AvgPool2d(Module):
    """y = the mean of each kh×kw window (padding counted unless ``count_include_pad=False``).

    Args:
        kernel_size: the window's size: an int or a pair (kh, kw).
        stride: the window's step: an int or a pair; None (the default) means ``kernel_size``.
        padding: implicit padding on every side (−∞ for max, 0 for average), at most half the kernel.
        ceil_mode: compute the output size with ⌈⌉ instead of ⌊⌋, so a last partial window counts.
        count_include_pad: count the padding zeros in each window's divisor.
        divisor_override: divide every window's sum by this instead of its size.
    """

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """y = the mean of each adaptive window, for a fixed output size (1: global average pooling).

    Args:
        output_size: the output's (H_out, W_out), or one int for both; None keeps that dimension's input size.
    """

    def __init__(self, output_size: Any):
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(Module):
    """y = the maximum of each adaptive window, for a fixed output size.

    Args:
        output_size: the output's (H_out, W_out), or one int for both; None keeps that dimension's input size.
        return_indices: also return the flat index of each maximum within its input plane.
    """

    def __init__(self, output_size: Any, return_indices: bool = False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
