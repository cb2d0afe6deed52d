"""Argument checks of ``histc`` and ``histogram`` (``ops/histogram.py``), with PyTorch's exceptions and
messages."""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from typing import Any

import numpy  # on host numbers only

from minigrad.ops._util import not_implemented_for
from minigrad.tensor import Tensor


def bin_count(bins: int) -> int:
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    return bins


def number_argument(value: Any, name: str) -> float:
    """``min=``/``max=`` of histc: a real number (a one-element tensor too)."""
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float, numpy.integer, numpy.floating)):
        raise TypeError(f"histc(): argument '{name}' must be Number, not {type(value).__name__}")
    return float(value)


def check_floating(input: Tensor, kernel: str) -> None:
    if not input.dtype.is_floating_point:
        raise not_implemented_for(kernel, input)


def histc_range(min: Any, max: Any) -> tuple[float, float]:  # noqa: A002 (PyTorch's names)
    """``histc``'s ``min`` and ``max`` as floats, ``min <= max``."""
    low, high = number_argument(min, "min"), number_argument(max, "max")
    if low > high:
        raise RuntimeError(f"torch.histc: max must be larger than min (got min={low}, max={high})")
    return low, high


def check_histc_finite(low: float, high: float) -> None:
    if not (numpy.isfinite(low) and numpy.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low:g}, {high:g}] is not finite")


def bins_argument(bins: Any) -> int:
    """``histogram``'s number of bins: a positive int."""
    if isinstance(bins, bool) or not isinstance(bins, (int, numpy.integer)):
        raise TypeError(f"histogram(): argument 'bins' must be int or Tensor, not {type(bins).__name__}")
    return bin_count(int(bins))


def range_argument(value_range: Any) -> tuple[float, float]:
    """``histogram``'s ``range``: two numbers."""
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        given = len(value_range) if isinstance(value_range, (tuple, list)) else type(value_range).__name__
        raise RuntimeError(f"torch.histogramdd: for a 1-dimensional histogram range should have 2 "
                           f"elements, but got {given}")
    low, high = (float(v) for v in value_range)
    return low, high


def check_histogram_range(low: float, high: float) -> None:
    """A finite range, ``low <= high`` (given or the data's)."""
    if low > high:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} "
                           f"for dimension 0")
    if not (numpy.isfinite(low) and numpy.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{low:g}, {high:g}] is not finite")


def check_bin_edges(data: Tensor, bins: Tensor, value_range: Any) -> None:
    """``histogram``'s ``bins`` as a tensor of edges: 1-D, at least two, of the data's dtype and device;
    no ``range`` then."""
    if value_range is not None:
        raise TypeError("histogram(): 'range' is only accepted when 'bins' is an int, not a Tensor")
    if bins.ndim != 1:
        raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {bins.ndim} "
                           f"dimensions in the bins tensor for dimension 0")
    bin_count(bins.shape[0] - 1)
    if bins.dtype is not data.dtype:
        raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                           f"but got input with dtype {data.dtype.name} and bins for dimension 0 with dtype "
                           f"{bins.dtype.name}")
    if bins.device != data.device:
        raise RuntimeError(f"torch.histogram(): bins on {bins.device} but input on {data.device}")


def check_weight(data: Tensor, weight: Any) -> None:
    """``histogram``'s ``weight``: a tensor of the data's shape, dtype and device."""
    if not isinstance(weight, Tensor):
        raise TypeError(f"histogram(): argument 'weight' must be Tensor, not {type(weight).__name__}")
    if weight.shape != data.shape:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape "
                           f"as the input tensor, but got input with shape {list(data.shape)} and weight "
                           f"with shape {list(weight.shape)}")
    if weight.dtype is not data.dtype:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                           f"should have the same dtype, but got input({data.dtype.name}), and "
                           f"weight({weight.dtype.name})")
    if weight.device != data.device:
        raise RuntimeError(f"torch.histogram(): weight on {weight.device} but input on {data.device}")
