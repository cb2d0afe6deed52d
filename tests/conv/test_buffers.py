"""The im2col algorithm reuses its big column matrices (buffers.py) without changing any number."""

import numpy
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.ops.conv import buffers


@pytest.fixture(autouse=True)
def empty_pool():
    buffers._kept.clear()
    yield
    buffers._kept.clear()


def test_a_big_array_given_back_is_taken_again_and_small_ones_or_views_are_not():
    big = buffers.take(numpy, (9, 1024 * 1024), numpy.float32)           # 36 MiB
    buffers.give_back(big)
    assert buffers.take(numpy, (9, 1024 * 1024), numpy.float32) is big
    assert buffers.take(numpy, (9, 1024 * 1024), numpy.float32) is not big   # taken only once
    assert buffers.take(numpy, (9, 1024 * 1024), numpy.float64) is not big
    small = numpy.empty(1000, numpy.float32)
    buffers.give_back(small)
    buffers.give_back(big[:4])                                              # a view: not ours to give
    buffers.give_back(None)
    assert buffers._kept == []


def test_the_pool_holds_a_bounded_number_of_arrays():
    arrays = [numpy.empty((9, 1024 * 1024), numpy.float32) for _ in range(buffers.MOST_KEPT + 2)]
    for array in arrays:
        buffers.give_back(array)
    assert len(buffers._kept) == buffers.MOST_KEPT
    assert buffers._kept[0] is arrays[2]                                    # the oldest went first


def test_the_pool_holds_a_bounded_amount_of_memory(monkeypatch):
    monkeypatch.setattr(buffers, "MOST_BYTES", 80 * 1024 * 1024)
    arrays = [numpy.empty((9, 1024 * 1024), numpy.float32) for _ in range(3)]   # 36 MiB each
    for array in arrays:
        buffers.give_back(array)
    assert [id(a) for a in buffers._kept] == [id(a) for a in arrays[1:]]     # 72 MiB of 80 kept
    buffers.give_back(numpy.empty((24, 1024 * 1024), numpy.float32))         # 96 MiB: too big to keep
    assert len(buffers._kept) == 2


def _conv_step(seed):
    """Forward and backward of a grouped conv whose columns (288 x 32768 floats) exceed 32 MiB."""
    rng = numpy.random.default_rng(seed)
    x = mg.tensor(rng.standard_normal((32, 32, 32, 32)).astype(numpy.float32), requires_grad=True)
    w = mg.tensor(rng.standard_normal((64, 8, 3, 3)).astype(numpy.float32), requires_grad=True)
    out = F.conv2d(x, w, padding=1, groups=4)
    out.backward(mg.tensor(rng.standard_normal(out.shape).astype(numpy.float32)))
    return out.numpy(force=True).copy(), x.grad.numpy(), w.grad.numpy()


def test_reused_columns_give_exactly_the_numbers_of_fresh_ones(monkeypatch):
    _conv_step(0)                       # leaves its column matrices in the pool
    first = {id(array) for array in buffers._kept}
    assert len(first) == 2              # the forward's columns and grad_input's
    reused = _conv_step(1)              # takes them (with the first call's numbers in them)
    assert {id(array) for array in buffers._kept} == first
    monkeypatch.setattr(buffers, "SMALLEST_KEPT", 2**62)
    buffers._kept.clear()
    fresh = _conv_step(1)
    for got, expected in zip(reused, fresh):
        numpy.testing.assert_array_equal(got, expected)
