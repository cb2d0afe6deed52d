"""im2col / col2im: PyTorch's unfold / fold layout, and col2im is exactly im2col's adjoint."""

import numpy
import pytest
from _torch import require_torch
from hypothesis import given, settings
from hypothesis import strategies as st

from minigrad.ops.conv.im2col import batch_last, col2im, im2col


@st.composite
def unfold_settings(draw):
    """A random valid (input shape, kernel, stride, padding, dilation)."""
    kernel = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    padding = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
    dilation = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    # The input must hold at least one dilated window after padding.
    smallest = [max(1, dilation[a] * (kernel[a] - 1) + 1 - 2 * padding[a]) for a in (0, 1)]
    size = tuple(draw(st.integers(smallest[a], smallest[a] + 6)) for a in (0, 1))
    shape = (draw(st.integers(1, 3)), draw(st.integers(1, 4))) + size
    return shape, kernel, stride, padding, dilation


def _out_size(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


@settings(max_examples=80, deadline=None, derandomize=True)
@given(unfold_settings(), st.integers(0, 2**31))
def test_col2im_is_the_adjoint_of_im2col(setting, seed):
    """<im2col(x), y> = <x, col2im(y)> for random x and y: col2im is im2col's transpose."""
    shape, kernel, stride, padding, dilation = setting
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(shape)
    rows = shape[1] * kernel[0] * kernel[1]
    cols = shape[0] * _out_size(shape[2], kernel[0], stride[0], padding[0], dilation[0]) \
        * _out_size(shape[3], kernel[1], stride[1], padding[1], dilation[1])
    y = rng.standard_normal((rows, cols))
    left = numpy.vdot(im2col(x, kernel, stride, padding, dilation), y)
    right = numpy.vdot(x, col2im(y, shape, kernel, stride, padding, dilation))
    assert left == pytest.approx(right, rel=1e-12, abs=1e-12)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(unfold_settings(), st.integers(0, 2**31))
def test_im2col_and_col2im_match_torch_unfold_and_fold(setting, seed):
    torch = require_torch()
    shape, kernel, stride, padding, dilation = setting
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(shape)
    expected = torch.nn.functional.unfold(torch.tensor(x), kernel, dilation, padding, stride).numpy()
    cols = im2col(x, kernel, stride, padding, dilation)
    # minigrad's layout is (C·kh·kw, L·N), batch innermost; PyTorch's is (N, C·kh·kw, L).
    n, rows = shape[0], expected.shape[1]
    numpy.testing.assert_array_equal(cols.reshape(rows, -1, n).transpose(2, 0, 1), expected)

    blocks = rng.standard_normal(expected.shape)
    folded = torch.nn.functional.fold(torch.tensor(blocks), shape[2:], kernel, dilation, padding,
                                      stride).numpy()
    ours = col2im(blocks.transpose(1, 2, 0).reshape(rows, -1), shape, kernel, stride, padding, dilation)
    numpy.testing.assert_allclose(ours, folded, rtol=1e-12, atol=1e-12)


def test_im2col_columns_are_receptive_fields():
    """A hand-checked example: 1 image, 1 channel, 3x3 input, 2x2 kernel, stride 1."""
    x = numpy.arange(9.0).reshape(1, 1, 3, 3)
    cols = im2col(x, (2, 2), (1, 1), (0, 0), (1, 1))
    expected = numpy.array([[0, 1, 3, 4],      # tap (0, 0) of each of the 4 windows
                            [1, 2, 4, 5],      # tap (0, 1)
                            [3, 4, 6, 7],      # tap (1, 0)
                            [4, 5, 7, 8]])     # tap (1, 1)
    numpy.testing.assert_array_equal(cols, expected)


def test_col2im_counts_overlaps_and_leaves_unreached_pixels_at_zero():
    """Folding all-ones columns counts how many windows cover each pixel."""
    shape = (1, 1, 5, 5)  # kernel 2, stride 2: row/column 4 is never reached
    cols = numpy.ones((4, 4))
    counts = col2im(cols, shape, (2, 2), (2, 2), (0, 0), (1, 1))[0, 0]
    expected = numpy.ones((5, 5))
    expected[4, :] = expected[:, 4] = 0
    numpy.testing.assert_array_equal(counts, expected)
    overlapping = col2im(numpy.ones((4, 4)), (1, 1, 3, 3), (2, 2), (1, 1), (0, 0), (1, 1))[0, 0]
    numpy.testing.assert_array_equal(overlapping, [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_dtype_is_kept(dtype):
    x = numpy.ones((2, 3, 5, 5), dtype=dtype)
    cols = im2col(x, (3, 3), (1, 1), (1, 1), (1, 1))
    assert cols.dtype == dtype
    assert col2im(cols, x.shape, (3, 3), (1, 1), (1, 1), (1, 1)).dtype == dtype


def _layouts(x):
    """The same (N, C, H, W) values in the memory orders minigrad's layers hand on."""
    yield "nchw", x
    yield "cnhw", numpy.ascontiguousarray(x.transpose(1, 0, 2, 3)).transpose(1, 0, 2, 3)
    yield "chwn", numpy.ascontiguousarray(x.transpose(1, 2, 3, 0)).transpose(3, 0, 1, 2)
    yield "cropped", numpy.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)))[:, :, 1:-1, 2:-2]


@pytest.mark.parametrize("shape", [(32, 4, 8, 8), (3, 2, 5, 7), (1, 1, 1, 1), (0, 2, 3, 3)])
def test_batch_last_moves_the_batch_innermost_from_any_layout(shape):
    x = numpy.random.default_rng(0).standard_normal(shape).astype(numpy.float32)
    expected = x.transpose(1, 2, 3, 0)
    for name, array in _layouts(x):
        moved = batch_last(array)
        assert moved.flags.c_contiguous, name
        numpy.testing.assert_array_equal(moved, expected, err_msg=name)
        padded = im2col(array, (1, 1), (1, 1), (1, 0), (1, 1))   # the padded path moves it too
        numpy.testing.assert_array_equal(padded, im2col(x, (1, 1), (1, 1), (1, 0), (1, 1)), err_msg=name)
