"""Counting values into bins: ``torch.histc`` and ``torch.histogram`` (no gradient).

Both find every element's bin at once and count with one ``bincount``; elements outside
the range (and NaNs) are given weight 0 rather than removed, so the shapes never depend
on the data. A value equal to the upper edge belongs to the last bin, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from minigrad import backend
from minigrad._arguments import bool_argument, int_argument
from minigrad.ops._util import not_implemented_for
from minigrad.return_types import histogram as histogram_result
from minigrad.tensor import Tensor

__all__ = ["histc", "histogram"]


def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:  # noqa: A002
    """Counts of ``input``'s elements in ``bins`` equal-width bins over ``[min, max]``.

    Element ``x`` goes to bin ``floor((x - min) * bins / (max - min))`` (``x == max`` to the last);
    elements outside ``[min, max]`` are ignored. ``min == max`` (the default 0, 0) takes the
    data's smallest and largest values, widened by 1 on each side when those are equal too.
    The counts have ``input``'s dtype.
    """
    bins = _bin_count(int_argument(bins, "histc", "bins"))
    if not input.dtype.is_floating_point:
        raise not_implemented_for("histogram_cpu", input)
    low, high = _number(min, "min"), _number(max, "max")
    if low > high:
        raise RuntimeError(f"torch.histc: max must be larger than min (got min={low}, max={high})")
    if low == high and input.numel() > 0:
        low, high = _data_range(input)
    if low == high:
        low, high = low - 1, high + 1
    if not (numpy.isfinite(low) and numpy.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low:g}, {high:g}] is not finite")
    xp = backend.get_array_module(input.array)
    values = input.array.reshape(-1)
    scalar = values.dtype.type
    low, high = scalar(low), scalar(high)
    with numpy.errstate(invalid="ignore", over="ignore"):  # NaN inputs are dropped by ``inside`` below
        # PyTorch's arithmetic, in the input's dtype: bin = (x - min) * bins / (max - min)
        position = ((values - low) * scalar(bins) / (high - low))
        inside = (values >= low) & (values <= high) & xp.isfinite(position)
        index = xp.where(inside, position, 0).astype(xp.int64)
    index = xp.minimum(index, bins - 1)
    counts = xp.bincount(index, weights=inside.astype(xp.float64), minlength=bins)
    return Tensor(counts.astype(values.dtype))


def histogram(input: Tensor, bins: int | Tensor = 100, *, range: Sequence | None = None,  # noqa: A002
              weight: Tensor | None = None, density: bool = False) -> Any:
    """``(hist, bin_edges)``: counts (or weights' sums) of ``input``'s elements per bin.

    ``bins`` is a number of equal-width bins over ``range`` (default: the data's smallest and
    largest values), or a 1-D tensor of increasing edges. Bin ``i`` holds
    ``edges[i] <= x < edges[i + 1]``, the last one also ``x == edges[-1]``; other values are
    ignored. ``density=True`` divides by ``sum(hist) * bin width``, so the histogram integrates
    to 1.
    """
    density = bool_argument(density, "histogram", "density")
    if not input.dtype.is_floating_point:
        raise not_implemented_for("histogramdd", input)
    xp = backend.get_array_module(input.array)
    values = input.array.reshape(-1)
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError("histogram(): 'range' is only accepted when 'bins' is an int, not a Tensor")
        edges = _edges_from_tensor(input, bins)
    elif isinstance(bins, bool) or not isinstance(bins, (int, numpy.integer)):
        raise TypeError(f"histogram(): argument 'bins' must be int or Tensor, not {type(bins).__name__}")
    else:
        edges = _even_edges(input, _bin_count(int(bins)), range)
    weights = _weights(input, weight)
    count = edges.shape[0] - 1
    with numpy.errstate(invalid="ignore"):
        inside = (values >= edges[0]) & (values <= edges[-1])
    index = xp.minimum(xp.searchsorted(edges, values, side="right") - 1, count - 1)
    index = xp.where(inside, index, 0)
    weights = xp.where(inside, weights.astype(xp.float64), 0.0)
    hist = xp.bincount(index, weights=weights, minlength=count).astype(values.dtype)
    if density:
        with numpy.errstate(invalid="ignore", divide="ignore"):  # no counts: NaN, as PyTorch's
            hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return histogram_result(Tensor(hist), Tensor(edges))


def _bin_count(bins: int) -> int:
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    return bins


def _number(value: Any, name: str) -> float:
    """``min=``/``max=`` of histc: a real number (a one-element tensor too)."""
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float, numpy.integer, numpy.floating)):
        raise TypeError(f"histc(): argument '{name}' must be Number, not {type(value).__name__}")
    return float(value)


def _data_range(data: Tensor) -> tuple:
    """The smallest and largest element (NaN when there is one, as PyTorch's min/max)."""
    xp = backend.get_array_module(data.array)
    values = data.array.reshape(-1)
    low, high = backend.to_host(xp.stack([values.min(), values.max()])).tolist()
    return low, high


def _even_edges(data: Tensor, bins: int, value_range: Sequence | None) -> Any:
    """``bins + 1`` equal steps over ``value_range`` (default: the data's), in the data's dtype."""
    if value_range is None:
        low, high = _data_range(data) if data.numel() > 0 else (0.0, 1.0)
    else:
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            given = len(value_range) if isinstance(value_range, (tuple, list)) else type(value_range).__name__
            raise RuntimeError(f"torch.histogramdd: for a 1-dimensional histogram range should have 2 "
                               f"elements, but got {given}")
        low, high = (float(v) for v in value_range)
    if low > high:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} "
                           f"for dimension 0")
    if not (numpy.isfinite(low) and numpy.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{low:g}, {high:g}] is not finite")
    if low == high:
        low, high = low - 0.5, high + 0.5
    xp = backend.get_array_module(data.array)
    scalar = data.array.dtype.type
    # PyTorch's linspace, in the input's dtype: the first half counts up from ``low``, the second
    # down from ``high``, so both ends are exact. (As Python floats the three numbers keep their
    # value and, being weakly typed, the arrays' dtype.)
    low, high = scalar(low), scalar(high)
    step = float((high - low) / scalar(bins))
    low, high = float(low), float(high)
    steps = xp.arange(bins + 1, dtype=data.array.dtype)
    return xp.where(steps < (bins + 1) // 2, steps * step + low, high - (bins - steps) * step)


def _edges_from_tensor(data: Tensor, bins: Tensor) -> Any:
    if bins.ndim != 1:
        raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {bins.ndim} "
                           f"dimensions in the bins tensor for dimension 0")
    _bin_count(bins.shape[0] - 1)
    if bins.dtype is not data.dtype:
        raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                           f"but got input with dtype {data.dtype.name} and bins for dimension 0 with dtype "
                           f"{bins.dtype.name}")
    if bins.device != data.device:
        raise RuntimeError(f"torch.histogram(): bins on {bins.device} but input on {data.device}")
    return bins.array.copy()


def _weights(data: Tensor, weight: Tensor | None) -> Any:
    xp = backend.get_array_module(data.array)
    if weight is None:
        return xp.ones(data.numel(), dtype=data.array.dtype)
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
    return weight.array.reshape(-1)
