"""contiguous_copy: the same numbers, C-ordered, whatever the source's memory order;
filled_like_order: a new array laid out as another is;
short_run_ufuncs: NumPy's ufunc buffer is small inside, and the caller's own outside."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.performance.layout import (
    BLOCK_BYTES,
    UFUNC_BUFFER_ELEMENTS,
    _blocking_axis,
    contiguous_copy,
    filled_like_order,
    short_run_ufuncs,
)

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


def test_short_run_ufuncs_sets_the_buffer_inside_and_restores_the_callers_after():
    before = np.getbufsize()
    with short_run_ufuncs():
        assert np.getbufsize() == UFUNC_BUFFER_ELEMENTS
    assert np.getbufsize() == before
    np.setbufsize(4096)            # a user's own setting survives, also when the block raises
    try:
        with pytest.raises(RuntimeError, match="inside"), short_run_ufuncs():
            raise RuntimeError("raised inside the block")
        assert np.getbufsize() == 4096
    finally:
        np.setbufsize(before)


def test_strided_adds_give_the_same_numbers_with_the_small_buffer():
    rng = np.random.default_rng(0)
    image, rows = rng.standard_normal((6, 9, 12, 5)), rng.standard_normal((6, 7, 9, 5))
    expected = image.copy()
    expected[:, 1:8, 2:11] += rows
    with short_run_ufuncs():
        image[:, 1:8, 2:11] += rows
    np.testing.assert_array_equal(image, expected)


def test_backward_leaves_numpys_buffer_alone_even_inside_hooks(device):
    """Only col2im, inside itself, runs with the small buffer: a user's hook sees the caller's."""
    seen = []
    x = mg.ones(3, requires_grad=True)
    y = x * 2
    y.register_hook(lambda grad: seen.append(np.getbufsize()))
    before = np.getbufsize()
    y.sum().backward()
    assert seen == [before] and np.getbufsize() == before != UFUNC_BUFFER_ELEMENTS


def _axes_by_stride(array):
    return sorted(range(array.ndim), key=lambda axis: -array.strides[axis])


@pytest.mark.parametrize("order", [(3, 0, 1, 2), (0, 1, 2, 3), (0, 3, 1, 2)])
def test_filled_like_order_lays_its_axes_out_as_the_template(order):
    template = _permuted((4, 5, 6, 7), order)                   # memory (4, 5, 6, 7) read in `order`
    shape = (3,) + template.shape[1:3] + (9,)                   # another size along two axes
    filled = filled_like_order(template, shape, 2.5, np.float64)
    assert filled.shape == shape and filled.dtype == np.float64 and (filled == 2.5).all()
    assert _axes_by_stride(filled) == _axes_by_stride(template)
    assert filled.transpose(_axes_by_stride(filled)).flags.c_contiguous   # dense, nothing skipped


def test_average_pooling_keeps_its_input_memory_order_both_ways(device):
    """AvgPool2d on a (C, H, W, N)-ordered activation answers in that order, forward and backward."""
    x = mg.randn(6, 4, 8, 8, requires_grad=True)
    batch_last = (x * 1).permute(1, 2, 3, 0).contiguous().permute(3, 0, 1, 2)   # NCHW view of CHWN memory
    out = mg.nn.functional.avg_pool2d(batch_last, 2)
    strides = out.array.strides
    assert strides[0] < strides[3] < strides[2] < strides[1]   # N innermost, as its input
    out.sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), np.full((6, 4, 8, 8), 0.25), rtol=1e-6)
