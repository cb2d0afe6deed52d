"""nn.Conv2d and the pooling layers as modules: argument validation, the algorithm a call uses,
nn.grad, and return_indices (the arithmetic itself is tested in tests/conv/)."""

import numpy
import pytest
from _torch import require_torch

import minigrad as mg
import minigrad.nn as nn
from minigrad.nn.modules.utils import _pair, _quadruple, _single

from .helpers import host

CONV_ARGS = {"in_channels": 4, "out_channels": 4, "kernel_size": 3}


@pytest.mark.parametrize("kwargs, pattern", [
    ({"in_channels": 3, "groups": 2}, "in_channels must be divisible by groups"),
    ({"out_channels": 3, "groups": 2}, "out_channels must be divisible by groups"),
    ({"groups": 0}, "groups must be a positive integer"),
    ({"stride": 2, "padding": "same"}, "padding='same' is not supported for strided convolutions"),
    ({"padding": "full"}, "Invalid padding string 'full'"),
    ({"padding_mode": "mirror"}, "padding_mode must be one of"),
])
def test_conv2d_constructor_raises_value_error_as_torch(kwargs, pattern):
    torch = require_torch()
    with pytest.raises(ValueError, match=pattern):
        nn.Conv2d(**{**CONV_ARGS, **kwargs})
    with pytest.raises(ValueError, match=pattern):
        torch.nn.Conv2d(**{**CONV_ARGS, **kwargs})


def test_conv2d_unknown_algorithm():
    with pytest.raises(ValueError, match="unknown convolution algorithm 'fft'"):
        nn.Conv2d(**CONV_ARGS, algorithm="fft")


def test_conv2d_stores_pairs_and_weight_shape():
    layer = nn.Conv2d(4, 6, (3, 2), stride=2, padding=1, groups=2)
    assert layer.kernel_size == (3, 2) and layer.stride == (2, 2) and layer.padding == (1, 1)
    assert layer.dilation == (1, 1)
    assert tuple(layer.weight.shape) == (6, 2, 3, 2) and tuple(layer.bias.shape) == (6,)


def test_conv2d_forward_errors_name_the_channels():
    with pytest.raises(RuntimeError, match=r"expected input\[1, 3, 5, 5\] to have 2 channels, but got 3"):
        nn.Conv2d(2, 3, 3)(mg.randn(1, 3, 5, 5))


def test_the_algorithm_is_chosen_when_the_forward_runs():
    x = mg.randn(1, 2, 5, 5, requires_grad=True)
    layer = nn.Conv2d(2, 3, 3)                      # built outside any scope
    assert layer(x).grad_fn.algorithm == "im2col"
    with nn.conv_algorithm("rot180"):
        y = layer(x)
    assert y.grad_fn.algorithm == "rot180"
    y.sum().backward()                             # after the scope: the backward keeps rot180
    assert y.grad_fn.algorithm == "rot180"
    with nn.conv_algorithm("rot180"):
        assert nn.Conv2d(2, 3, 3, algorithm="naive")(x).grad_fn.algorithm == "naive"
    assert "algorithm='naive'" in repr(nn.Conv2d(2, 3, 3, algorithm="naive"))
    with pytest.raises(ValueError):
        with nn.conv_algorithm("winograd"):
            pass


@pytest.mark.parametrize("algorithm", ["im2col", "im2col_tuned", "rot180", "naive"])
def test_every_algorithm_gives_the_layers_gradients(algorithm):
    mg.manual_seed(0)
    layer = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2, algorithm=algorithm).double()
    reference = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2).double()
    reference.load_state_dict(layer.state_dict())
    x = numpy.random.default_rng(0).standard_normal((2, 4, 7, 7))
    for conv in (layer, reference):
        conv(mg.tensor(x)).sum().backward()
    numpy.testing.assert_allclose(host(layer.weight.grad), host(reference.weight.grad), rtol=1e-10)
    numpy.testing.assert_allclose(host(layer.bias.grad), host(reference.bias.grad), rtol=1e-10)


def test_nn_grad_matches_torch_nn_grad():
    torch = require_torch()
    rng = numpy.random.default_rng(2)
    x, w = rng.standard_normal((2, 4, 6, 5)), rng.standard_normal((6, 2, 3, 3))
    delta = rng.standard_normal((2, 6, 3, 3))
    settings = {"stride": 2, "padding": 1, "groups": 2}
    ours = nn.grad.conv2d_input(x.shape, mg.tensor(w), mg.tensor(delta), **settings)
    theirs = torch.nn.grad.conv2d_input(x.shape, torch.tensor(w), torch.tensor(delta), **settings)
    numpy.testing.assert_allclose(host(ours), host(theirs), rtol=1e-10)
    ours = nn.grad.conv2d_weight(mg.tensor(x), w.shape, mg.tensor(delta), **settings, algorithm="naive")
    theirs = torch.nn.grad.conv2d_weight(torch.tensor(x), w.shape, torch.tensor(delta), **settings)
    numpy.testing.assert_allclose(host(ours), host(theirs), rtol=1e-10)


def test_max_pool_return_indices_match_torch():
    torch = require_torch()
    x = numpy.random.default_rng(3).standard_normal((2, 3, 6, 5))
    values, indices = nn.MaxPool2d(2, return_indices=True)(mg.tensor(x))
    their_values, their_indices = torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(x))
    numpy.testing.assert_array_equal(host(values), host(their_values))
    numpy.testing.assert_array_equal(host(indices), host(their_indices))


def test_ntuple_helpers_as_torch():
    assert _pair(3) == (3, 3) and _pair((1, 2)) == (1, 2) and _single(4) == (4,) and _quadruple(0) == (0,) * 4
