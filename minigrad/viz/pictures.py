"""Pictures of tensors: a heat map, a grid of images (filters, feature maps), im2col.

Values that have both signs (weights, gradients) are drawn with a diverging map
centred on zero (red positive, blue negative), so a zero is always white; values of
one sign use ``viridis``. Every function returns the matplotlib Figure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

from minigrad.nn.functional import unfold
from minigrad.nn.modules.utils import _pair
from minigrad.tensor import Tensor
from minigrad.viz._mpl import host_array, new_axes, pyplot

__all__ = ["show_tensor", "show_grid", "im2col_matrix", "show_im2col"]


def _colour_scale(values: numpy.ndarray, cmap: str | None) -> dict:
    """``imshow`` colour arguments: symmetric around 0 for signed data."""
    finite = values[numpy.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if low < 0 < high:
        bound = max(-low, high)
        return dict(cmap=cmap or "RdBu_r", vmin=-bound, vmax=bound)
    return dict(cmap=cmap or "viridis", vmin=low, vmax=high if high > low else low + 1)


def _write_values(ax: Any, values: numpy.ndarray, fontsize: float = 8) -> None:
    for (row, col), value in numpy.ndenumerate(values):
        ax.text(col, row, f"{value:.3g}", ha="center", va="center", fontsize=fontsize,
                bbox=dict(boxstyle="round,pad=0.1", facecolor="white", alpha=0.6, linewidth=0))


def show_tensor(t: Any, ax: Any = None, title: str | None = None, annotate: bool | None = None,
                cmap: str | None = None) -> Any:
    """A heat map of a 0-, 1- or 2-D tensor (leading dimensions of size 1 are dropped).

    ``annotate`` writes each value in its cell (default: when there are at most 100).
    """
    values = host_array(t).astype(numpy.float64)
    while values.ndim > 2 and values.shape[0] == 1:
        values = values[0]
    if values.ndim > 2:
        raise ValueError(f"show_tensor draws 1-D or 2-D tensors, got shape {list(values.shape)}; "
                         "use show_grid for a stack of images")
    values = values.reshape(1, -1) if values.ndim < 2 else values
    figure, ax = new_axes(ax, (min(2 + 0.45 * values.shape[1], 12), min(1.2 + 0.45 * values.shape[0], 10)))
    image = ax.imshow(values, interpolation="nearest", **_colour_scale(values, cmap))
    figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    if annotate or (annotate is None and values.size <= 100):
        _write_values(ax, values)
    ax.set_xticks(range(values.shape[1]) if values.shape[1] <= 16 else [])
    ax.set_yticks(range(values.shape[0]) if values.shape[0] <= 16 else [])
    if title:
        ax.set_title(title)
    return figure


def _as_images(values: numpy.ndarray) -> tuple:
    """``(images (K, H, W), rows, cols, captions)`` for a 2-D, 3-D or 4-D array."""
    if values.ndim == 2:
        return values[None], 1, 1, [""]
    if values.ndim == 3:
        count = values.shape[0]
        cols = math.ceil(math.sqrt(count))
        return values, math.ceil(count / cols), cols, [str(k) for k in range(count)]
    if values.ndim == 4:
        outer, inner = values.shape[:2]
        if inner == 1 or outer == 1:  # one input channel (or one filter): a square-ish grid
            return _as_images(values.reshape(outer * inner, *values.shape[2:]))
        captions = [f"out {o}, in {i}" for o in range(outer) for i in range(inner)]
        return values.reshape(outer * inner, *values.shape[2:]), outer, inner, captions
    raise ValueError(f"show_grid draws 2-D, 3-D or 4-D tensors, got shape {list(values.shape)}")


def show_grid(t: Any, title: str | None = None, cmap: str | None = None, max_images: int = 64,
              shared_scale: bool = True, size: float = 1.2, captions: Sequence | None = None) -> Any:
    """A grid of small images: filters (Cout, Cin, kh, kw), feature maps (C, H, W), gradients.

    A 4-D tensor is drawn with one row per output channel and one column per input
    channel (a plain grid when either is 1); a 3-D one as a square-ish grid. With
    ``shared_scale`` every image uses the same colour scale, so they can be compared.
    At most ``max_images`` are drawn.

    ``captions`` gives each image its caption (say ``[f"label {y}" for y in labels]``),
    one per image in the order drawn; by default the images are numbered.
    """
    values = host_array(t).astype(numpy.float64)
    images, rows, cols, captions_by_index = _as_images(values)
    if captions is None:
        captions = captions_by_index
    else:
        captions = [str(c) for c in captions]
        if len(captions) != len(images):
            raise ValueError(f"show_grid got {len(captions)} captions for {len(images)} images "
                             f"(tensor of shape {list(values.shape)})")
    if len(images) > max_images:
        images, captions = images[:max_images], captions[:max_images]
        rows = math.ceil(max_images / cols)
    figure, axes = pyplot().subplots(rows, cols, squeeze=False,
                                     figsize=(cols * size + 0.8, rows * size + 0.4))
    colours = _colour_scale(images, cmap) if shared_scale else {}
    image = None
    for k, ax in enumerate(axes.flat):
        ax.set_axis_off()
        if k < len(images):
            image = ax.imshow(images[k], interpolation="nearest",
                              **(colours or _colour_scale(images[k], cmap)))
            if captions[k]:
                ax.set_title(captions[k], fontsize=7, pad=2)
    if shared_scale and image is not None:
        figure.colorbar(image, ax=axes.ravel().tolist(), fraction=0.03, pad=0.02)
    shown = f" (first {len(images)})" if len(images) < len(_as_images(values)[0]) else ""
    figure.suptitle(f"{title or 'shape'} {list(values.shape)}{shown}", fontsize=9)
    return figure


def im2col_matrix(x: Any, kernel_size: Any, stride: Any = 1, padding: Any = 0, dilation: Any = 1) -> tuple:
    """The im2col matrix of one image and where each of its entries came from.

    ``x``: (H, W), (C, H, W) or (1, C, H, W). Returns ``(columns, sources)``, both
    (C·kh·kw, L): ``columns`` is ``F.unfold``'s matrix, ``sources[r, l]`` the flat index
    into x (C, H, W) of the value at that place, or -1 where the window covers padding.
    """

    values = host_array(x).astype(numpy.float64)
    if values.ndim == 2:
        values = values[None]
    if values.ndim == 4:
        if values.shape[0] != 1:
            raise ValueError(f"show_im2col unfolds one image, got a batch of shape {list(values.shape)}")
        values = values[0]
    if values.ndim != 3:
        raise ValueError(f"expected an image (H, W), (C, H, W) or (1, C, H, W), "
                         f"got shape {list(values.shape)}")
    settings = dict(kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    columns = unfold(Tensor(values[None]), **settings).array[0]
    # Unfolding the numbers 1, 2, 3, ... shows where each entry came from (padding stays 0).
    positions = numpy.arange(1, values.size + 1, dtype=numpy.float64).reshape(1, *values.shape)
    sources = unfold(Tensor(positions), **settings).array[0].astype(numpy.int64) - 1
    return columns, sources


_GREYS = (14, 15)
"""tab20's two greys: a pixel drawn in them would look like padding."""


def _pixel_colours(count: int) -> numpy.ndarray:
    """``count`` distinct RGBA colours, one per input pixel, plus light grey for padding (last).

    No pixel colour is a grey (tab20 without its greys, or turbo's hues for more pixels), so
    only padding is grey.
    """
    from matplotlib import colormaps  # noqa: PLC0415 (optional dependency)

    hues = [k for k in range(20) if k not in _GREYS]
    palette = colormaps["tab20"](numpy.array(hues)[numpy.arange(count) % len(hues)]) \
        if count <= len(hues) else colormaps["turbo"](numpy.linspace(0.05, 0.95, count))
    palette[:, :3] = 0.45 * palette[:, :3] + 0.55  # pastel, so the written values stay readable
    return numpy.vstack([palette, [0.88, 0.88, 0.88, 1.0]])


def _draw_input(ax: Any, channel: numpy.ndarray, first_index: int, pads: tuple, colours: numpy.ndarray,
                title: str) -> None:
    """One (padded) input channel: each pixel in its own colour, padding grey, values written."""
    height, width = channel.shape
    index = numpy.full((height + 2 * pads[0], width + 2 * pads[1]), -1)
    padded = numpy.zeros(index.shape)
    inside = (slice(pads[0], pads[0] + height), slice(pads[1], pads[1] + width))
    index[inside] = numpy.arange(first_index, first_index + channel.size).reshape(height, width)
    padded[inside] = channel
    ax.imshow(colours[index], interpolation="nearest")
    _write_values(ax, padded, fontsize=7)
    ax.set_title(title, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])


def show_im2col(x: Any, kernel_size: Any, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                highlight: int | None = 0) -> Any:
    """An image beside its im2col matrix, each input pixel and its copies in the same colour.

    Column l of the matrix is the l-th window of the (padded) image laid out as a
    column, so conv2d becomes one matrix product W(Cout, C·kh·kw) @ columns. The
    ``highlight``-th window and its column are outlined.
    """
    from matplotlib.patches import Rectangle  # noqa: PLC0415 (optional dependency)

    columns, sources = im2col_matrix(x, kernel_size, stride, padding, dilation)
    values = host_array(x).astype(numpy.float64)
    image = values.reshape(-1, *values.shape[-2:])  # (C, H, W)
    channels, height, width = image.shape
    colours = _pixel_colours(image.size)
    kernel, stride, padding, dilation = (_pair(v) for v in (kernel_size, stride, padding, dilation))
    padded_width = width + 2 * padding[1]

    figure, axes = pyplot().subplots(
        1, channels + 1, squeeze=False, layout="constrained",
        figsize=((channels * padded_width + columns.shape[1]) * 0.5 + 1.5,
                 max(height + 2 * padding[0], columns.shape[0]) * 0.45 + 1.2),
        gridspec_kw=dict(width_ratios=[padded_width] * channels + [columns.shape[1]]))
    axes = axes[0]
    suffix = " (padded)" if any(padding) else ""
    for c in range(channels):
        title = (f"input, channel {c}" if channels > 1 else "input") + suffix
        _draw_input(axes[c], image[c], c * height * width, padding, colours, title)

    matrix_ax = axes[-1]
    matrix_ax.imshow(colours[sources], interpolation="nearest")
    _write_values(matrix_ax, columns, fontsize=7)
    matrix_ax.set_title(f"im2col: {columns.shape[0]} × {columns.shape[1]} (C·kh·kw × windows)", fontsize=9)
    matrix_ax.set_xlabel("window l")
    matrix_ax.set_xticks(range(columns.shape[1]) if columns.shape[1] <= 40 else [])
    rows = [f"{c},{i},{j}" for c in range(channels) for i in range(kernel[0]) for j in range(kernel[1])]
    matrix_ax.set_yticks(range(columns.shape[0]), rows, fontsize=7)
    matrix_ax.set_ylabel("channel, row, column in the window")
    if highlight is not None and 0 <= highlight < columns.shape[1]:
        matrix_ax.add_patch(Rectangle((highlight - 0.5, -0.5), 1, columns.shape[0], fill=False,
                                      edgecolor="black", linewidth=2))
        windows_per_row = (padded_width - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
        top, left = divmod(highlight, windows_per_row)
        for ax in axes[:channels]:  # the window's cells, padding included, in every channel
            for i in range(kernel[0]):
                for j in range(kernel[1]):
                    row, col = top * stride[0] + i * dilation[0], left * stride[1] + j * dilation[1]
                    ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, edgecolor="black",
                                           linewidth=2))
    return figure
