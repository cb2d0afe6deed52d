"""Tensor pictures, the im2col picture and training curves."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.viz import im2col_matrix, plot_curves, show_grid, show_im2col, show_tensor

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

# im2col of x = [[1 2 3] [4 5 6] [7 8 9]] with a 2x2 kernel, written out by hand:
# the windows (top-left at (0,0), (0,1), (1,0), (1,1)) are the columns, the kernel offsets
# (0,0), (0,1), (1,0), (1,1) the rows.
UNFOLD_3X3_K2 = np.array([[1, 2, 4, 5],
                          [2, 3, 5, 6],
                          [4, 5, 7, 8],
                          [5, 6, 8, 9]], dtype=float)

# x = [[1 2] [3 4]] padded by 1 to 4x4, 2x2 kernel, stride 2: four windows, each holding one pixel.
UNFOLD_2X2_PAD1_STRIDE2 = np.array([[0, 0, 0, 4],
                                    [0, 0, 3, 0],
                                    [0, 2, 0, 0],
                                    [1, 0, 0, 0]], dtype=float)

# two channels [[1 2] [3 4]] and [[5 6] [7 8]], kernel (1, 2): one window per row.
UNFOLD_2CH_K1X2 = np.array([[1, 3], [2, 4], [5, 7], [6, 8]], dtype=float)


@pytest.mark.parametrize("x, settings, expected", [
    (np.arange(1, 10).reshape(3, 3), dict(kernel_size=2), UNFOLD_3X3_K2),
    (np.arange(1, 5).reshape(1, 1, 2, 2), dict(kernel_size=2, stride=2, padding=1), UNFOLD_2X2_PAD1_STRIDE2),
    (np.arange(1, 9).reshape(2, 2, 2), dict(kernel_size=(1, 2)), UNFOLD_2CH_K1X2),
], ids=["3x3-k2", "pad1-stride2", "2-channels"])
def test_im2col_matrix_is_the_known_unfolding(x, settings, expected):
    columns, sources = im2col_matrix(mg.tensor(x.astype(np.float32)), **settings)
    np.testing.assert_array_equal(columns, expected)
    # x holds 1, 2, 3, ... so each entry's source index is its value - 1 (and -1 for padding)
    np.testing.assert_array_equal(sources, np.where(expected > 0, expected - 1, -1))


def test_show_im2col_draws_the_matrix_in_the_colours_of_the_input_pixels():
    x = np.array([[0.5, -1.0], [2.0, 3.0]])
    figure = show_im2col(mg.tensor(x), kernel_size=2, stride=2, padding=1)
    input_ax, matrix_ax = figure.axes
    written = np.array([float(t.get_text()) for t in matrix_ax.texts]).reshape(4, 4)
    expected = np.array([[0, 0, 0, 3.0], [0, 0, 2.0, 0], [0, -1.0, 0, 0], [0.5, 0, 0, 0]])
    np.testing.assert_array_equal(written, expected)
    pixels = input_ax.images[0].get_array()             # (4, 4, RGBA): the padded input
    cells = matrix_ax.images[0].get_array()             # (4, 4, RGBA): the matrix
    np.testing.assert_array_equal(cells[3, 0], pixels[1, 1])   # x[0, 0] = 0.5
    np.testing.assert_array_equal(cells[2, 1], pixels[1, 2])   # x[0, 1] = -1
    np.testing.assert_array_equal(cells[1, 2], pixels[2, 1])   # x[1, 0] = 2
    np.testing.assert_array_equal(cells[0, 3], pixels[2, 2])   # x[1, 1] = 3
    np.testing.assert_array_equal(cells[0, 0], pixels[0, 0])   # padding is padding's grey
    assert len({tuple(pixels[r, c]) for r, c in [(1, 1), (1, 2), (2, 1), (2, 2), (0, 0)]}) == 5


def test_show_im2col_refuses_a_batch():
    with pytest.raises(ValueError, match="one image"):
        show_im2col(mg.zeros(2, 1, 3, 3), 2)


def test_show_tensor_draws_the_values():
    values = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]])
    figure = show_tensor(mg.tensor(values), title="δ")
    ax = figure.axes[0]
    image = ax.images[0]
    np.testing.assert_array_equal(image.get_array(), values)
    assert image.get_clim() == (-3.0, 3.0)                      # signed: symmetric around zero
    assert len(ax.texts) == values.size and ax.get_title() == "δ"
    assert show_tensor(mg.tensor([1.0, 2.0])).axes[0].images[0].get_array().shape == (1, 2)
    with pytest.raises(ValueError, match="show_grid"):
        show_tensor(mg.zeros(2, 3, 4))


def test_show_grid_of_filters_has_one_image_per_output_and_input_channel():
    rng = np.random.default_rng(0)
    weights = rng.normal(size=(3, 2, 3, 3))
    figure = show_grid(mg.tensor(weights), title="conv1.weight")
    images = [ax.images[0].get_array() for ax in figure.axes if ax.images]
    assert len(images) == 6
    for k, image in enumerate(images):
        np.testing.assert_array_equal(image, weights[k // 2, k % 2])


def test_show_grid_of_feature_maps_and_the_image_limit():
    maps = np.arange(5 * 4 * 4, dtype=float).reshape(5, 4, 4)
    figure = show_grid(maps)
    images = [ax for ax in figure.axes if ax.images]
    assert len(images) == 5
    assert len(figure.axes) == 2 * 3 + 1                        # 2 rows of 3, and the colour bar
    figure = show_grid(np.zeros((100, 2, 2)), max_images=10)
    assert len([ax for ax in figure.axes if ax.images]) == 10
    assert "first 10" in figure._suptitle.get_text()
    with pytest.raises(ValueError):
        show_grid(np.zeros(4))


def test_plot_curves_groups_metrics_by_kind():
    history = {"train_loss": [2.0, 1.0, 0.5], "val_loss": [2.2, 1.4, 1.1], "val_acc": [0.3, 0.6, 0.7]}
    figure = plot_curves(history, title="run 1")
    loss_ax, acc_ax = figure.axes
    assert [line.get_label() for line in loss_ax.lines] == ["train_loss", "val_loss"]
    assert [line.get_label() for line in acc_ax.lines] == ["val_acc"]
    np.testing.assert_array_equal(loss_ax.lines[1].get_ydata(), [2.2, 1.4, 1.1])
    np.testing.assert_array_equal(loss_ax.lines[1].get_xdata(), [1, 2, 3])
    assert loss_ax.get_ylabel() == "loss" and acc_ax.get_ylabel() == "acc"
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots()
    assert plot_curves(history, ax=ax) is figure and len(ax.lines) == 3
    with pytest.raises(ValueError):
        plot_curves({})


def chroma(rgba: np.ndarray) -> np.ndarray:
    """How far each colour is from a grey: max - min of its RGB channels."""
    return rgba[..., :3].max(axis=-1) - rgba[..., :3].min(axis=-1)


@pytest.mark.parametrize("height, width", [(4, 4), (3, 6), (5, 5)], ids=["16px", "18px", "25px"])
def test_show_im2col_colours_no_input_pixel_grey(height, width):
    # A 4x4 image used tab20's greys (14 and 15) for two pixels, so they looked like padding.
    x = np.arange(height * width, dtype=float).reshape(height, width)
    figure = show_im2col(mg.tensor(x), kernel_size=3, padding=1)
    pixels = figure.axes[0].images[0].get_array()[1:-1, 1:-1]    # inside the padding
    padding = figure.axes[0].images[0].get_array()[0, 0]
    assert chroma(padding) == 0
    assert chroma(pixels).min() > 0.05, chroma(pixels).round(3)
    assert len({tuple(p) for p in pixels.reshape(-1, 4)}) == height * width   # all distinct


def test_show_grid_captions_name_each_image():
    images = np.zeros((3, 2, 2))
    figure = show_grid(images, captions=[f"label {y}" for y in (7, 2, 1)])
    titles = [ax.get_title() for ax in figure.axes if ax.images]
    assert titles == ["label 7", "label 2", "label 1"]
    assert [ax.get_title() for ax in show_grid(images).axes if ax.images] == ["0", "1", "2"]
    with pytest.raises(ValueError, match="2 captions for 3 images"):
        show_grid(images, captions=["a", "b"])
