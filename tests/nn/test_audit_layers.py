"""Regression tests from an audit of the layers and the Module API against PyTorch.

Each test pins one behaviour minigrad lacked or got wrong: Conv2d's non-zero padding modes,
Sequential's ``*``/``pop``/``insert`` bounds, ModuleList's ``pop``, ``Module.get_parameter``
and ``get_buffer``, and clip_grad_norm_'s 0- and −inf-norms with its two halves
``get_total_norm`` and ``clip_grads_with_norm_``.
"""

import warnings

import numpy
import pytest
from _torch import require_torch

import minigrad as mg
import minigrad.nn as nn
from minigrad.nn.utils import clip_grad_norm_, clip_grads_with_norm_, get_total_norm

from .helpers import check_layer, host

MODES = ["reflect", "replicate", "circular"]


# --- Conv2d(padding_mode=...) ----------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("options, shape", [
    ({"kernel_size": 3, "padding": 1}, (2, 4, 7, 8)),
    ({"kernel_size": (3, 2), "padding": (2, 3), "stride": 2, "dilation": (1, 2), "groups": 2}, (2, 4, 7, 8)),
    ({"kernel_size": 4, "padding": "same"}, (2, 4, 6, 5)),       # even kernel: pads 1 before, 2 after
    ({"kernel_size": (4, 3), "padding": "same", "dilation": 2}, (1, 4, 8, 9)),
    ({"kernel_size": 3, "padding": "valid"}, (2, 4, 5, 5)),
    ({"kernel_size": 3, "padding": 2}, (4, 5, 6)),                        # unbatched (C, H, W)
])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_conv2d_padding_modes_match_torch(mode, options, shape, dtype):
    x = numpy.random.default_rng(0).standard_normal(shape)
    def describe(layer):
        return [repr(layer), list(layer._reversed_padding_repeated_twice)]

    ours, theirs = check_layer(lambda lib: lib.nn.Conv2d(4, 6, padding_mode=mode, **options), x, dtype,
                               describe=describe)
    assert describe(ours) == theirs["described"]


@pytest.mark.parametrize("mode, padded, input_grad", [
    ("reflect", [2, 1, 2, 3, 2], [1, 3, 1]),      # mirror at the edge element, not repeating it
    ("replicate", [1, 1, 2, 3, 3], [2, 1, 2]),
    ("circular", [3, 1, 2, 3, 1], [2, 1, 2]),
])
def test_conv2d_padding_mode_by_hand(mode, padded, input_grad):
    """A 1×1 identity kernel shows the padded row itself; the gradient counts each element's copies."""
    layer = nn.Conv2d(1, 1, 1, padding=(0, 1), padding_mode=mode, bias=False)
    nn.init.ones_(layer.weight)
    x = mg.tensor([[[[1.0, 2.0, 3.0]]]], requires_grad=True)
    out = layer(x)
    out.sum().backward()
    assert out.tolist() == [[[padded]]]
    assert x.grad.tolist() == [[[input_grad]]]


@pytest.mark.parametrize("mode, padding, shape, error, pattern", [
    ("reflect", 7, (2, 4, 7, 8), RuntimeError, r"padding \(7, 7\) at dimension 2 of input \[2, 4, 7, 8\]"),
    ("reflect", 8, (2, 4, 7, 8), RuntimeError, r"padding \(8, 8\) at dimension 3 of input \[2, 4, 7, 8\]"),
    ("circular", 8, (2, 4, 7, 8), RuntimeError, "wrapping around more than once"),
    ("replicate", 1, (4, 5), NotImplementedError, "Padding size 4 is not supported for 2D input tensor"),
])
def test_conv2d_padding_mode_errors_match_torch(mode, padding, shape, error, pattern):
    torch = require_torch()
    with pytest.raises(error, match=pattern):
        nn.Conv2d(4, 6, 3, padding=padding, padding_mode=mode)(mg.ones(*shape))
    with pytest.raises(error, match=pattern.split(":")[0]):
        torch.nn.Conv2d(4, 6, 3, padding=padding, padding_mode=mode)(torch.ones(*shape))


@pytest.mark.parametrize("mode", MODES)
def test_conv2d_padding_modes_on_the_cuda_standin_equal_the_cpu(mode, cuda):
    x = numpy.random.default_rng(1).standard_normal((2, 2, 5, 6)).astype(numpy.float32)
    mg.manual_seed(0)
    layer = nn.Conv2d(2, 3, 3, padding=2, padding_mode=mode)
    results = []
    for device in ("cpu", cuda):
        layer.to(device)
        layer.zero_grad()
        inp = mg.tensor(x, device=device, requires_grad=True)
        out = layer(inp)
        (out * out).sum().backward()
        results.append([host(out), host(inp.grad), host(layer.weight.grad)])
    for on_cpu, on_gpu in zip(*results):
        numpy.testing.assert_allclose(on_gpu, on_cpu, rtol=1e-5, atol=1e-6)


# --- Sequential and ModuleList ---------------------------------------------------------------

def _layers(lib):
    return [lib.nn.ReLU(), lib.nn.Tanh(), lib.nn.Sigmoid()]


@pytest.mark.parametrize("operation", [
    lambda s: s * 2,
    lambda s: 3 * s,
    lambda s: s.__imul__(2),
    lambda s: [s.pop(1), s],
    lambda s: [s.pop(-1), s],
    lambda s: [s.pop(slice(0, 2)), s],
    lambda s: s.insert(3, type(s[0])()),
    lambda s: s.insert(-3, type(s[0])()),
])
def test_sequential_operations_match_torch(operation):
    torch = require_torch()
    ours = operation(nn.Sequential(*_layers(mg)))
    theirs = operation(torch.nn.Sequential(*_layers(torch)))
    assert repr(ours) == repr(theirs)


def test_sequential_times_repeats_the_same_modules():
    a, b = nn.Linear(2, 2), nn.ReLU()
    repeated = nn.Sequential(a, b) * 2
    assert list(repeated) == [a, b, a, b]
    assert len(list(repeated.parameters())) == 2  # shared, not copied


@pytest.mark.parametrize("operation, error, pattern", [
    (lambda s: s * 0, ValueError, "Non-positive multiplication factor 0"),
    (lambda s: s * 1.5, TypeError, "unsupported operand type"),
    (lambda s: s.__imul__(-1), ValueError, "Non-positive multiplication factor -1"),
    (lambda s: s.insert(4, s[0]), IndexError, "Index out of range: 4"),
    (lambda s: s.insert(-4, s[0]), IndexError, "Index out of range: -4"),
    (lambda s: s.pop(3), IndexError, "index 3 is out of range"),
    (lambda s: s["0"], TypeError, "'str' object cannot be interpreted as an integer"),
])
def test_sequential_misuse_raises_like_torch(operation, error, pattern):
    torch = require_torch()
    with pytest.raises(error, match=pattern):
        operation(nn.Sequential(*_layers(mg)))
    with pytest.raises(error, match=pattern):
        operation(torch.nn.Sequential(*_layers(torch)))


@pytest.mark.parametrize("key", [0, -1, slice(1, None)])
def test_module_list_pop_matches_torch(key):
    torch = require_torch()
    ours, theirs = nn.ModuleList(_layers(mg)), torch.nn.ModuleList(_layers(torch))
    assert repr(ours.pop(key)) == repr(theirs.pop(key))
    assert repr(ours) == repr(theirs)


# --- Module.get_parameter / get_buffer / get_submodule ---------------------------------------

def _net(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.BatchNorm2d(2))


def test_get_parameter_and_get_buffer_return_the_registered_tensors():
    net = _net(mg)
    assert net.get_parameter("0.weight") is net[0].weight
    assert net.get_buffer("1.running_var") is net[1].running_var
    assert net.get_buffer("1.num_batches_tracked") is net[1].num_batches_tracked


@pytest.mark.parametrize("call, pattern", [
    (lambda m: m.get_parameter("0.nope"), "Conv2d has no attribute `nope`"),
    (lambda m: m.get_parameter("1.running_mean"), "`running_mean` is not an nn.Parameter"),
    (lambda m: m.get_parameter("5.weight"), "Sequential has no attribute `5`"),
    (lambda m: m.get_buffer("1.weight"), "`weight` is not a buffer"),
    (lambda m: m.get_buffer("1.nope"), "BatchNorm2d has no attribute `nope`"),
    (lambda m: m.get_submodule("0.weight"), "`weight` is not an nn.Module"),
])
def test_get_parameter_buffer_submodule_errors_match_torch(call, pattern):
    torch = require_torch()
    with pytest.raises(AttributeError, match=pattern):
        call(_net(mg))
    with pytest.raises(AttributeError, match=pattern):
        call(_net(torch))


# --- clip_grad_norm_ and its halves ----------------------------------------------------------

GRADS = [numpy.array([[0.0, 1.5], [-2.0, 3.0]], numpy.float32), numpy.array([0.5, -4.0, 0.0], numpy.float32)]


def _with_grads(lib):
    params = [lib.zeros(g.shape, requires_grad=True) for g in GRADS]
    for p, g in zip(params, GRADS):
        p.grad = lib.tensor(g)
    return params


@pytest.mark.parametrize("norm_type", [0, -float("inf"), -1, 0.5, 1, float("inf")])
def test_clip_grad_norm_unusual_orders_match_torch(norm_type):
    torch = require_torch()
    ours, theirs = _with_grads(mg), _with_grads(torch)
    total_ours = clip_grad_norm_(ours, 0.7, norm_type)
    total_theirs = torch.nn.utils.clip_grad_norm_(theirs, 0.7, norm_type)
    numpy.testing.assert_allclose(host(total_ours), host(total_theirs), rtol=1e-6)
    for p_ours, p_theirs in zip(ours, theirs):
        numpy.testing.assert_allclose(host(p_ours.grad), host(p_theirs.grad), rtol=1e-6, atol=1e-7)


def test_clip_grad_norm_counts_non_zeros_for_order_0():
    # 0-norm: 5 non-zero elements in all; the per-tensor counts are 3 and 2, both non-zero -> total 2.
    params = _with_grads(mg)
    assert float(clip_grad_norm_(params, 1.0, norm_type=0)) == 2.0
    numpy.testing.assert_allclose(host(params[1].grad), GRADS[1] * (1.0 / (2.0 + 1e-6)), rtol=1e-6)


def test_get_total_norm_then_clip_grads_with_norm_equal_torch():
    torch = require_torch()
    ours, theirs = _with_grads(mg), _with_grads(torch)
    total_ours = get_total_norm([p.grad for p in ours], norm_type=3.0)
    total_theirs = torch.nn.utils.get_total_norm([p.grad for p in theirs], norm_type=3.0)
    numpy.testing.assert_allclose(host(total_ours), host(total_theirs), rtol=1e-6)
    clip_grads_with_norm_(ours, 1.0, total_ours)
    torch.nn.utils.clip_grads_with_norm_(theirs, 1.0, total_theirs)
    for p_ours, p_theirs in zip(ours, theirs):
        numpy.testing.assert_allclose(host(p_ours.grad), host(p_theirs.grad), rtol=1e-6)


def test_clip_grad_norm_warns_on_an_empty_generator_as_torch():
    with pytest.warns(UserWarning, match="empty generator"):
        total = clip_grad_norm_((p for p in []), 1.0)
    assert float(total) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clip_grad_norm_([], 1.0)  # an empty list is not a mistake worth a warning
