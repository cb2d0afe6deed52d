"""Dropout: identity in eval, survivors scaled by 1/(1 − p), the gradient through the same mask,
masks reproducible from minigrad's seed, and gradcheck with a fixed mask."""

import numpy
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

from .helpers import host


def test_eval_mode_and_training_false_are_the_identity():
    x = mg.randn(4, 5)
    layer = nn.Dropout(0.5).eval()
    numpy.testing.assert_array_equal(host(layer(x)), host(x))
    numpy.testing.assert_array_equal(host(F.dropout(x, 0.9, training=False)), host(x))


@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_training_zeroes_about_p_and_scales_the_rest(p):
    mg.manual_seed(0)
    x = mg.ones(200, 100, dtype=mg.float64)
    out = host(F.dropout(x, p))
    dropped = (out == 0).mean()
    assert abs(dropped - p) < 0.02                       # 20,000 draws: 4 standard deviations at most
    numpy.testing.assert_allclose(out[out != 0], 1 / (1 - p), rtol=1e-12)


def test_gradient_goes_through_the_same_mask_and_scale():
    mg.manual_seed(3)
    x = mg.randn(6, 7, requires_grad=True)
    out = F.dropout(x, 0.4)
    g = numpy.random.default_rng(0).standard_normal((6, 7)).astype(numpy.float32)
    out.backward(mg.tensor(g))
    kept = host(out) != 0
    numpy.testing.assert_allclose(host(x.grad), numpy.where(kept, g / 0.6, 0.0), rtol=1e-6)


def test_seed_reproduces_the_mask_and_p_extremes():
    x = mg.randn(5, 5)
    mg.manual_seed(11)
    first = host(F.dropout(x, 0.5))
    mg.manual_seed(11)
    numpy.testing.assert_array_equal(host(F.dropout(x, 0.5)), first)
    assert not host(F.dropout(x, 1.0)).any()
    numpy.testing.assert_array_equal(host(F.dropout(x, 0.0)), host(x))


def test_gradcheck_with_a_fixed_mask():
    x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)

    def fixed_mask_dropout(t):
        mg.manual_seed(5)  # the same mask on every evaluation, so finite differences see one function
        return F.dropout(t, 0.3)

    assert mg.autograd.gradcheck(fixed_mask_dropout, (x,))


def test_inplace_dropout_on_a_non_leaf_is_recorded():
    x = mg.randn(4, 4, requires_grad=True)
    y = x * 1.0
    mg.manual_seed(2)
    assert F.dropout(y, 0.5, inplace=True) is y
    y.sum().backward()
    numpy.testing.assert_array_equal(host(x.grad) != 0, host(y.detach()) != 0)


def test_invalid_probability_and_repr():
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    with pytest.raises(ValueError, match="between 0 and 1, but got -0.1"):
        F.dropout(mg.ones(2), -0.1)
    assert repr(nn.Dropout(0.1, inplace=True)) == "Dropout(p=0.1, inplace=True)"
