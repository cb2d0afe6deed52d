"""AdaptiveAvg/MaxPool2d, LayerNorm, GELU, SiLU, ELU, Softplus, Dropout2d, Unflatten and the L1, smooth L1
and Huber losses against PyTorch: values, input and parameter gradients, reprs, state_dict keys, errors."""

import math
import warnings

import numpy
import pytest
from _torch import raises_like_torch, require_torch
from core.helpers import check_against_torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck
from minigrad.ops.elementwise import erf_array, erfc_array

from .helpers import check_layer

DTYPES = ["float64", "float32"]


def _input(shape, seed=0):
    return numpy.random.default_rng(seed).standard_normal(shape) * 2


LAYERS = [
    pytest.param(lambda lib: lib.nn.AdaptiveAvgPool2d(1), (2, 3, 7, 5), id="adaptive-avg-global"),
    pytest.param(lambda lib: lib.nn.AdaptiveAvgPool2d((3, 2)), (2, 3, 7, 5), id="adaptive-avg-3x2"),
    pytest.param(lambda lib: lib.nn.AdaptiveAvgPool2d((None, 4)), (1, 2, 5, 9), id="adaptive-avg-none"),
    pytest.param(lambda lib: lib.nn.AdaptiveAvgPool2d(6), (3, 4, 5), id="adaptive-avg-upsample-3d"),
    pytest.param(lambda lib: lib.nn.AdaptiveMaxPool2d((3, 2)), (2, 3, 7, 5), id="adaptive-max-3x2"),
    pytest.param(lambda lib: lib.nn.AdaptiveMaxPool2d(1), (1, 2, 4, 6), id="adaptive-max-global"),
    pytest.param(lambda lib: lib.nn.AdaptiveMaxPool2d((5, 7)), (3, 4, 5), id="adaptive-max-upsample-3d"),
    pytest.param(lambda lib: lib.nn.LayerNorm(5), (4, 5), id="layernorm"),
    pytest.param(lambda lib: lib.nn.LayerNorm([3, 5]), (2, 4, 3, 5), id="layernorm-2d"),
    pytest.param(lambda lib: lib.nn.LayerNorm(5, bias=False), (1, 5), id="layernorm-no-bias-batch-1"),
    pytest.param(lambda lib: lib.nn.LayerNorm(7, elementwise_affine=False), (3, 7), id="layernorm-no-affine"),
    pytest.param(lambda lib: lib.nn.GELU(), (3, 7), id="gelu"),
    pytest.param(lambda lib: lib.nn.GELU("tanh"), (3, 7), id="gelu-tanh"),
    pytest.param(lambda lib: lib.nn.SiLU(), (3, 7), id="silu"),
    pytest.param(lambda lib: lib.nn.ELU(), (3, 7), id="elu"),
    pytest.param(lambda lib: lib.nn.ELU(alpha=0.3), (3, 7), id="elu-alpha"),
    pytest.param(lambda lib: lib.nn.Softplus(), (3, 7), id="softplus"),
    pytest.param(lambda lib: lib.nn.Softplus(beta=3, threshold=2), (3, 7), id="softplus-beta-threshold"),
    pytest.param(lambda lib: lib.nn.Unflatten(1, (2, 3)), (4, 6), id="unflatten"),
    pytest.param(lambda lib: lib.nn.Unflatten(-1, (-1, 2)), (2, 3, 6), id="unflatten-infer"),
    pytest.param(lambda lib: lib.nn.Sequential(lib.nn.Conv2d(2, 4, 3), lib.nn.GELU(),
                                               lib.nn.AdaptiveAvgPool2d(1), lib.nn.Flatten(),
                                               lib.nn.LayerNorm(4), lib.nn.Linear(4, 3)),
                 (2, 2, 6, 5), id="small-resnet-head"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make, shape", LAYERS)
def test_layer_matches_torch(make, shape, dtype):
    check_layer(make, _input(shape), dtype)


def test_layernorm_trained_weights_match_torch():
    """Non-trivial γ and β (loaded from PyTorch) reach the output and both gradients."""
    torch = require_torch()
    def make(lib):
        layer = lib.nn.LayerNorm([3, 4])
        if lib is torch:
            with torch.no_grad():
                layer.weight.normal_()
                layer.bias.normal_()
        return layer
    torch.manual_seed(0)
    check_layer(make, _input((2, 3, 4)), "float64")


def test_activations_at_edges_match_torch():
    torch = require_torch()
    a = numpy.array([-40.0, -20.0, -1.0, -0.0, 0.0, 1e-8, 0.5, 3.0, 19.9, 20.0, 20.1, 40.0])
    for name, kwargs in [("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}),
                         ("elu", {}), ("elu", {"alpha": 2.0}), ("softplus", {}),
                         ("softplus", {"beta": 2, "threshold": 5})]:
        x, t = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        y, yt = getattr(F, name)(x, **kwargs), getattr(torch.nn.functional, name)(t, **kwargs)
        numpy.testing.assert_allclose(y.array, yt.detach().numpy(), rtol=1e-12, atol=1e-15, err_msg=name)
        y.sum().backward()
        yt.sum().backward()
        numpy.testing.assert_allclose(x.grad.array, t.grad.numpy(), rtol=1e-12, atol=1e-15, err_msg=name)


def test_erf_is_accurate_to_float64_rounding():
    grid = numpy.concatenate([numpy.linspace(-8, 8, 40001), numpy.geomspace(1e-300, 1e-2, 500),
                              -numpy.geomspace(1e-300, 1e-2, 500), [0.5, -0.5, 4.0, -4.0, 0.46875]])
    ours, exact = erf_array(numpy, grid), numpy.array([math.erf(v) for v in grid])
    assert numpy.max(numpy.abs(ours - exact) / numpy.abs(exact).clip(1e-300)) < 1e-15
    wide = numpy.linspace(-6, 26, 32001)
    ours, exact = erfc_array(numpy, wide), numpy.array([math.erfc(v) for v in wide])
    assert numpy.max(numpy.abs(ours - exact) / exact) < 5e-15
    numpy.testing.assert_array_equal(erf_array(numpy, numpy.array([numpy.inf, -numpy.inf])), [1.0, -1.0])


@pytest.mark.parametrize("name, kwargs", [("l1_loss", {}), ("smooth_l1_loss", {}),
                                          ("smooth_l1_loss", {"beta": 0.3}),
                                          ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {}),
                                          ("huber_loss", {"delta": 2.5})])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_torch(name, kwargs, reduction):
    check_against_torch(lambda m, x, y: getattr(m.nn.functional, name)(x, y, reduction=reduction, **kwargs),
                        [_input((3, 5), 1), _input((3, 5), 2)], "float64", seed=3)


def test_loss_modules_match_torch():
    torch = require_torch()
    a, b = _input((4, 3), 4), _input((4, 3), 5)
    for make in [lambda lib: lib.nn.L1Loss(), lambda lib: lib.nn.SmoothL1Loss(beta=0.5, reduction="sum"),
                 lambda lib: lib.nn.HuberLoss(delta=0.7)]:
        ours, theirs = make(mg)(mg.tensor(a), mg.tensor(b)), make(torch)(torch.tensor(a), torch.tensor(b))
        numpy.testing.assert_allclose(ours.array, theirs.numpy(), rtol=1e-12)
        assert repr(make(mg)) == repr(make(torch))


@pytest.mark.parametrize("fn", [
    lambda x: F.adaptive_avg_pool2d(x, (2, 3)), lambda x: F.adaptive_max_pool2d(x, (2, 3)),
    lambda x: F.gelu(x), lambda x: F.gelu(x, approximate="tanh"), lambda x: F.silu(x),
    lambda x: F.elu(x, 0.7),
    lambda x: F.softplus(x, 2.0, 3.0), lambda x: F.layer_norm(x, (3, 5)),
    lambda x: F.smooth_l1_loss(x, mg.zeros(1, 2, 3, 5, dtype=mg.float64), beta=0.5),
    lambda x: F.huber_loss(x, mg.zeros(1, 2, 3, 5, dtype=mg.float64), delta=0.5)])
def test_gradcheck(fn):
    x = mg.tensor(_input((1, 2, 3, 5), 7), requires_grad=True)
    assert gradcheck(fn, (x,))


def test_layer_norm_gradcheck_weight_and_bias():
    x = mg.tensor(_input((3, 4), 8), requires_grad=True)
    w, b = (mg.tensor(_input((4,), s), requires_grad=True) for s in (9, 10))
    assert gradcheck(lambda x, w, b: F.layer_norm(x, [4], w, b), (x, w, b))


def test_adaptive_max_pool2d_indices_match_torch():
    torch = require_torch()
    a = _input((2, 3, 7, 5), 11)
    out, idx = F.adaptive_max_pool2d(mg.tensor(a), (3, 4), return_indices=True)
    ref, ref_idx = torch.nn.functional.adaptive_max_pool2d(torch.tensor(a), (3, 4), return_indices=True)
    numpy.testing.assert_array_equal(out.array, ref.numpy())
    numpy.testing.assert_array_equal(idx.array, ref_idx.numpy())


def test_reprs_and_state_dicts_match_torch():
    torch = require_torch()
    makers = [lambda lib: lib.nn.LayerNorm(5), lambda lib: lib.nn.LayerNorm([2, 3], eps=1e-3, bias=False),
              lambda lib: lib.nn.LayerNorm(4, elementwise_affine=False), lambda lib: lib.nn.GELU(),
              lambda lib: lib.nn.GELU(approximate="tanh"), lambda lib: lib.nn.SiLU(),
              lambda lib: lib.nn.SiLU(inplace=True), lambda lib: lib.nn.ELU(),
              lambda lib: lib.nn.ELU(0.5, True),
              lambda lib: lib.nn.Softplus(), lambda lib: lib.nn.Softplus(2, 10),
              lambda lib: lib.nn.Dropout2d(), lambda lib: lib.nn.Dropout2d(0.2, True),
              lambda lib: lib.nn.Unflatten(1, (2, 3)), lambda lib: lib.nn.AdaptiveAvgPool2d((None, 3)),
              lambda lib: lib.nn.AdaptiveAvgPool2d(1), lambda lib: lib.nn.AdaptiveMaxPool2d(2),
              lambda lib: lib.nn.L1Loss(), lambda lib: lib.nn.SmoothL1Loss(), lambda lib: lib.nn.HuberLoss()]
    for make in makers:
        ours, theirs = make(mg), make(torch)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        for key, value in theirs.state_dict().items():
            numpy.testing.assert_array_equal(ours.state_dict()[key].array, value.numpy())


def test_dropout2d_zeros_whole_channels():
    mg.manual_seed(0)
    x = mg.ones(8, 16, 3, 4, requires_grad=True)
    y = nn.Dropout2d(0.5)(x)
    per_channel = y.array.reshape(8, 16, -1)
    assert set(numpy.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(axis=-1) == per_channel.max(axis=-1)).all()      # one draw per channel
    assert 0 < (per_channel[..., 0] == 0).sum() < 8 * 16
    y.sum().backward()
    numpy.testing.assert_array_equal(x.grad.array, y.array)
    layer = nn.Dropout2d(0.5).eval()
    assert layer(x) is x
    x1 = mg.ones(1, 3, 2, 2)
    assert nn.Dropout2d(0.0)(x1) is x1


def test_dropout2d_warns_for_other_sizes_like_torch():
    torch = require_torch()
    for shape in [(2, 3, 4), (2, 3)]:
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter("always")
            F.dropout2d(mg.ones(*shape))
        with warnings.catch_warnings(record=True) as theirs:
            warnings.simplefilter("always")
            torch.nn.functional.dropout2d(torch.ones(*shape))
        assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]


@pytest.mark.parametrize("call, error, fragments", [
    (lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.ones(3, 4), 2), RuntimeError, ["[3, 4]"]),
    (lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.ones(1, 3, 4, 4), (1, 2, 3)), RuntimeError, []),
    (lambda lib: lib.nn.functional.adaptive_max_pool2d(lib.ones(1, 3, 4, 4), -1), RuntimeError, ["-1"]),
    (lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3), [4]), RuntimeError, ["[2, 3]", "[4]"]),
    (lambda lib: lib.nn.LayerNorm(3)(lib.ones(2, 4)), RuntimeError, ["[2, 4]"]),
    (lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3), [3], lib.ones(4)), RuntimeError, ["[4]"]),
    (lambda lib: lib.nn.functional.gelu(lib.ones(2), approximate="foo"), RuntimeError, ["none or tanh"]),
    (lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(2), lib.ones(2), beta=-1.0), RuntimeError, ["-1"]),
    (lambda lib: lib.nn.functional.huber_loss(lib.ones(2), lib.ones(2), delta=0.0), RuntimeError, ["delta"]),
    (lambda lib: lib.nn.functional.l1_loss(lib.ones(2), lib.ones(2), reduction="avg"), ValueError, ["avg"]),
    (lambda lib: lib.nn.Unflatten(1, (2, 2))(lib.ones(2, 5)), RuntimeError, ["[2, 2]", "(5)"]),
    (lambda lib: lib.nn.Unflatten(1, 5), TypeError, ["int"]),
    (lambda lib: lib.nn.functional.dropout2d(lib.ones(2, 3, 4, 4), 1.5), ValueError, ["1.5"]),
    (lambda lib: lib.nn.Dropout2d(-0.1), ValueError, ["-0.1"]),
])
def test_errors_match_torch(call, error, fragments):
    raises_like_torch(call, error, *fragments)


@pytest.mark.parametrize("name", ["l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_weighted_losses_match_torch(name, reduction):
    """l1_loss's weighted mean is Σ w·loss / Σ w, huber_loss's the plain mean of w·loss (as PyTorch)."""
    torch = require_torch()
    a, b, w = _input((3, 4), 12), _input((3, 4), 13), numpy.abs(_input((3, 4), 14))
    x, xt = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    out = getattr(F, name)(x, mg.tensor(b), reduction=reduction, weight=mg.tensor(w))
    ref = getattr(torch.nn.functional, name)(xt, torch.tensor(b), reduction=reduction, weight=torch.tensor(w))
    numpy.testing.assert_allclose(out.array, ref.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    ref.sum().backward()
    numpy.testing.assert_allclose(x.grad.array, xt.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_loss_broadcast_target_warns_and_sums_gradient_back():
    torch = require_torch()
    a, b = _input((2, 3), 15), _input((3,), 16)
    x, y = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    xt, yt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    with pytest.warns(UserWarning, match="different to the input size"):
        out = F.smooth_l1_loss(x, y, beta=0.5)
    with pytest.warns(UserWarning):
        ref = torch.nn.functional.smooth_l1_loss(xt, yt, beta=0.5)
    out.backward()
    ref.backward()
    numpy.testing.assert_allclose(out.item(), ref.item(), rtol=1e-12)
    numpy.testing.assert_allclose(y.grad.array, yt.grad.numpy(), rtol=1e-12)


def test_integer_l1_loss_sum_and_none_match_torch():
    torch = require_torch()
    for reduction in ["sum", "none"]:
        ours = F.l1_loss(mg.tensor([1, 5, -2]), mg.tensor([2, 2, 2]), reduction=reduction)
        theirs = torch.nn.functional.l1_loss(torch.tensor([1, 5, -2]), torch.tensor([2, 2, 2]),
                                             reduction=reduction)
        assert ours.dtype == mg.int64
        numpy.testing.assert_array_equal(ours.array, theirs.numpy())


@pytest.mark.parametrize("call, fragment", [
    (lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.ones(1, 2, 4, 4, dtype=lib.int64), 2), "Long"),
    (lambda lib: lib.nn.functional.adaptive_max_pool2d(lib.ones(1, 2, 4, 4, dtype=lib.int64), 2), "Long"),
    (lambda lib: lib.nn.functional.gelu(lib.ones(3, dtype=lib.int64)), "GeluKernelImpl"),
    (lambda lib: lib.nn.functional.silu(lib.ones(3, dtype=lib.int64)), "silu_cpu"),
    (lambda lib: lib.nn.functional.elu(lib.ones(3, dtype=lib.int64)), "elu_cpu"),
    (lambda lib: lib.nn.functional.softplus(lib.ones(3, dtype=lib.int64)), "softplus_cpu"),
    (lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3, dtype=lib.int64), [3]), "LayerNormKernelImpl"),
    (lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(3, dtype=lib.int64), lib.ones(3, dtype=lib.int64)),
     "smooth_l1_cpu"),
    (lambda lib: lib.nn.functional.huber_loss(lib.ones(3, dtype=lib.int64), lib.ones(3, dtype=lib.int64)),
     "huber_cpu"),
])
def test_integer_inputs_raise_like_torch(call, fragment):
    raises_like_torch(call, NotImplementedError, fragment)


def test_integer_l1_loss_mean_raises_like_torch():
    def call(lib):
        return lib.nn.functional.l1_loss(lib.ones(3, dtype=lib.int64), lib.ones(3, dtype=lib.int64))
    raises_like_torch(call, RuntimeError, "Long")


def test_weight_of_another_shape_raises_like_torch():
    for name in ["l1_loss", "huber_loss"]:
        raises_like_torch(lambda lib, name=name: getattr(lib.nn.functional, name)(
            lib.ones(2, 3), lib.ones(2, 3), weight=lib.ones(3)), ValueError, "[3]")


def test_layers_on_the_strict_cupy_standin_match_cpu(cuda):
    """Every new layer and loss, forward and backward, on the stand-in device: CuPy-only code paths."""
    model = nn.Sequential(nn.Conv2d(2, 4, 3), nn.GELU(), nn.AdaptiveMaxPool2d((3, 2)), nn.SiLU(),
                          nn.AdaptiveAvgPool2d((2, 3)), nn.ELU(), nn.Dropout2d(0.3), nn.Softplus(beta=2),
                          nn.Flatten(), nn.Unflatten(1, (4, 6)), nn.LayerNorm(6), nn.Flatten(),
                          nn.GELU("tanh"))
    x = _input((2, 2, 7, 6), 17).astype("float32")
    results = []
    for device in ["cpu", cuda]:
        model.to(device)
        mg.manual_seed(0)
        out = model(mg.tensor(x, device=device))
        assert str(out.device) == str(mg.device(device))
        target = mg.zeros(out.shape, device=device)
        loss = (F.l1_loss(out, target) + F.smooth_l1_loss(out, target, beta=0.5)
                + F.huber_loss(out, target, delta=0.3, weight=mg.ones(out.shape, device=device)))
        model.zero_grad()
        loss.backward()
        results.append([mg.backend.to_host(loss.array)] + [mg.backend.to_host(p.grad.array)
                                                           for p in model.parameters()])
    for ours, theirs in zip(*results):
        numpy.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [lambda lib: lib.nn.SiLU(inplace=True),
                                  lambda lib: lib.nn.ELU(0.5, inplace=True),
                                  lambda lib: lib.nn.Dropout2d(0.0, inplace=True)])
def test_inplace_activations_on_a_non_leaf_match_torch(make):
    torch = require_torch()
    a = _input((2, 3, 2, 2), 18)
    x, xt = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    h, ht = x * 2, xt * 2
    out, ref = make(mg)(h), make(torch)(ht)
    assert out is h
    numpy.testing.assert_allclose(h.array, ht.detach().numpy(), rtol=1e-12)
    (out * out).sum().backward()
    (ref * ref).sum().backward()
    numpy.testing.assert_allclose(x.grad.array, xt.grad.numpy(), rtol=1e-12)
