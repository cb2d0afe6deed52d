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
from minigrad.compat.return_types import histogram as histogram_result
from minigrad.ops._checks import histogram as checks
from minigrad.tensor import Tensor

__all__ = ["histc", "histogram"]


def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:  # noqa: A002
    """Counts of ``input``'s elements in ``bins`` equal-width bins over ``[min, max]``.

    Element ``x`` goes to bin ``floor((x - min) * bins / (max - min))`` (``x == max`` to the last);
    elements outside ``[min, max]`` are ignored. ``min == max`` (the default 0, 0) takes the
    data's smallest and largest values, widened by 1 on each side when those are equal too.
    The counts have ``input``'s dtype.
    """
    bins = checks.bin_count(int_argument(bins, "histc", "bins"))
    checks.check_floating(input, "histogram_cpu")
    low, high = checks.histc_range(min, max)
    if low == high and input.numel() > 0:
        low, high = _data_range(input)
    if low == high:
        low, high = low - 1, high + 1
    checks.check_histc_finite(low, high)
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
    checks.check_floating(input, "histogramdd")
    xp = backend.get_array_module(input.array)
    values = input.array.reshape(-1)
    if isinstance(bins, Tensor):
        checks.check_bin_edges(input, bins, range)
        edges = bins.array.copy()
    else:
        edges = _even_edges(input, checks.bins_argument(bins), range)
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
        low, high = checks.range_argument(value_range)
    checks.check_histogram_range(low, high)
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


def _weights(data: Tensor, weight: Tensor | None) -> Any:
    xp = backend.get_array_module(data.array)
    if weight is None:
        return xp.ones(data.numel(), dtype=data.array.dtype)
    checks.check_weight(data, weight)
    return weight.array.reshape(-1)
