"""nn.init and the layers' default initialisation: bounds and statistics as PyTorch's, in place, no graph."""

import math

import numpy
import pytest
from _reference import reference
from _torch import require_torch

import minigrad as mg
import minigrad.nn as nn
from minigrad.nn import init

from .helpers import host


@pytest.mark.parametrize("name, param", [("linear", None), ("conv2d", None), ("sigmoid", None),
                                         ("tanh", None), ("relu", None), ("leaky_relu", None),
                                         ("leaky_relu", 0.2), ("selu", None)])
def test_calculate_gain_matches_torch(name, param):
    theirs = reference(lambda torch: torch.nn.init.calculate_gain(name, param))
    assert init.calculate_gain(name, param) == pytest.approx(theirs)


@pytest.mark.parametrize("shape", [(3, 5), (8, 2, 3, 3), (4, 6, 1, 2)])
def test_fan_in_and_fan_out_match_torch(shape):
    torch = require_torch()
    ours = init._calculate_fan_in_and_fan_out(mg.empty(*shape))
    assert ours == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))


@pytest.mark.parametrize("make, fan_in", [(lambda: nn.Linear(50, 40), 50),
                                          (lambda: nn.Conv2d(6, 40, 3, groups=2), 27),
                                          (lambda: nn.Conv2d(3, 64, (5, 3)), 45)])
def test_default_initialisation_is_uniform_within_one_over_sqrt_fan_in(make, fan_in):
    """Kaiming-uniform with a = √5 gives U(−1/√fan_in, 1/√fan_in), and the bias the same bound."""
    mg.manual_seed(0)
    layer = make()
    bound = 1 / math.sqrt(fan_in)
    weight, bias = host(layer.weight), host(layer.bias)
    assert numpy.abs(weight).max() <= bound and numpy.abs(bias).max() <= bound
    assert numpy.abs(weight).max() > 0.95 * bound                       # it fills the interval ...
    assert abs(weight.std() - bound / math.sqrt(3)) < 0.1 * bound       # ... uniformly (std = bound/√3)
    assert layer.weight.is_leaf and layer.weight.requires_grad and layer.weight.grad_fn is None


def test_torch_layers_have_the_same_bounds():
    torch = require_torch()
    bound = 1 / math.sqrt(50)
    theirs = torch.nn.Linear(50, 40)
    assert theirs.weight.abs().max().item() <= bound and theirs.weight.abs().max().item() > 0.95 * bound


@pytest.mark.parametrize("fill, expected_std", [
    (lambda t: init.kaiming_uniform_(t, nonlinearity="relu"), math.sqrt(2 / 200)),
    (lambda t: init.kaiming_normal_(t, mode="fan_out"), math.sqrt(2 / 300)),
    (lambda t: init.xavier_uniform_(t, gain=2.0), 2.0 * math.sqrt(2 / 500)),
    (lambda t: init.xavier_normal_(t), math.sqrt(2 / 500)),
    (lambda t: init.normal_(t, 1.0, 0.5), 0.5),
    (lambda t: init.uniform_(t, -3.0, 3.0), 6 / math.sqrt(12)),
])
def test_random_initialisers_have_the_documented_spread(fill, expected_std):
    mg.manual_seed(1)
    t = mg.empty(300, 200, dtype=mg.float64)
    assert fill(t) is t
    assert abs(host(t).std() - expected_std) < 0.02 * expected_std


def test_constant_zeros_ones_and_generator():
    t = nn.Parameter(mg.empty(2, 3))
    init.constant_(t, 0.25)
    assert host(t).tolist() == [[0.25] * 3] * 2 and t.is_leaf and t.grad_fn is None
    init.zeros_(t)
    assert not host(t).any()
    init.ones_(t)
    assert (host(t) == 1).all()
    a, b = mg.empty(4, 4), mg.empty(4, 4)
    init.kaiming_uniform_(a, generator=mg.Generator().manual_seed(3))
    init.kaiming_uniform_(b, generator=mg.Generator().manual_seed(3))
    numpy.testing.assert_array_equal(host(a), host(b))


def test_errors_and_empty_tensors():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(mg.empty(5))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_normal_(mg.empty(2, 2), mode="fan_avg")
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="negative_slope"):
        init.calculate_gain("leaky_relu", True)
    with pytest.warns(UserWarning, match="no-op"):
        init.kaiming_uniform_(mg.empty(0, 3))


def test_reset_parameters_redraws():
    layer = nn.Linear(4, 4)
    before = host(layer.weight)
    layer.reset_parameters()
    assert not numpy.array_equal(before, host(layer.weight))
