"""contiguous_copy: the same numbers, C-ordered, whatever the source's memory order."""

import numpy as np
import pytest

import minigrad as mg
from minigrad._layout import BLOCK_BYTES, _blocking_axis, contiguous_copy

from .helpers import to_numpy


def _permuted(shape_in_memory, order, seed=0):
    """An array laid out as ``shape_in_memory``, viewed with its axes in ``order``."""
    data = np.random.default_rng(seed).standard_normal(shape_in_memory).astype(np.float32)
    return data.transpose(order)


@pytest.mark.parametrize("memory_shape, order", [
    ((32, 14, 14, 64), (3, 0, 1, 2)),    # (C, H, W, N) memory read as (N, C, H, W): blocked over C
    ((3, 33, 17, 64), (3, 0, 1, 2)),     # odd sizes, blocks that do not divide the channels
    ((64, 18, 18, 32), (3, 0, 1, 2)),    # padded-frame-sized images
    ((8, 64, 64, 16), (0, 3, 1, 2)),     # channels-last memory read as NCHW
    ((40, 40, 40), (2, 1, 0)),
])
def test_permuted_views_copy_to_the_same_values_in_c_order(memory_shape, order):
    view = _permuted(memory_shape, order)
    copied = contiguous_copy(view)
    assert copied.flags.c_contiguous and copied.shape == view.shape and copied.dtype == view.dtype
    np.testing.assert_array_equal(copied, view)
    assert not np.shares_memory(copied, view)


def test_the_big_permuted_case_is_copied_in_blocks_and_small_or_plain_cases_are_not():
    big = _permuted((32, 14, 14, 64), (3, 0, 1, 2))
    assert big.nbytes > 2 * BLOCK_BYTES and _blocking_axis(big) == 1      # the channels
    assert _blocking_axis(np.ascontiguousarray(big)) is None
    assert _blocking_axis(big[:2, :2]) is None                            # too small to be worth it
    assert _blocking_axis(np.ones((600, 600), np.float32).T) is None      # a matrix: no outer axis


def test_strided_slices_and_empty_arrays():
    data = np.arange(4 * 50 * 50 * 40, dtype=np.float64).reshape(4, 50, 50, 40)
    view = data[:, 1:-1:2, 3:, ::3].transpose(3, 1, 2, 0)
    np.testing.assert_array_equal(contiguous_copy(view), view)
    empty = np.zeros((0, 5, 5, 5)).transpose(1, 2, 3, 0)
    assert contiguous_copy(empty).shape == (5, 5, 5, 0)


def test_a_leaf_gradient_from_conv2d_is_c_contiguous_and_right():
    gen = np.random.default_rng(1)
    x = mg.tensor(gen.standard_normal((16, 24, 20, 20)), requires_grad=True)   # on the test's device
    conv = mg.nn.Conv2d(24, 8, 3, padding=1).double()
    conv(x).sum().backward()
    assert x.grad.array.flags.c_contiguous
    # Σ over outputs of a conv: each input pixel's gradient is the sum of the weights that touch it.
    ones = mg.ones(1, 24, 20, 20, dtype=mg.float64, requires_grad=True)
    conv(ones).sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), np.broadcast_to(to_numpy(ones.grad), x.shape), rtol=1e-12)
