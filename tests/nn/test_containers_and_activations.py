"""``nn.ModuleDict``, ``nn.ParameterList``, ``nn.ParameterDict``, ``nn.Identity``, ``nn.LeakyReLU`` and
``F.leaky_relu`` against PyTorch: dict/list behaviour, registration (parameters, state_dict keys,
``to``), repr, values and gradients, and the exception types PyTorch raises."""

from __future__ import annotations

from collections import OrderedDict

import numpy
import pytest
from _torch import raises_like_torch, require_torch
from core.helpers import check_against_torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

from .helpers import check_layer, host


def _param(lib, *shape, dtype=None):
    return lib.nn.Parameter(lib.zeros(*shape, dtype=dtype))


def _repr_as_minigrad(module) -> str:
    """PyTorch's repr with its module name swapped for ours (``torch.float32`` -> ``minigrad.float32``)."""
    return repr(module).replace("torch.", "minigrad.")


# --- ModuleDict ------------------------------------------------------------------------------------

def _module_dict_calls(lib):
    """A run of ModuleDict operations; returns what each one showed (keys, lengths, names)."""
    nn_ = lib.nn
    seen = []
    blocks = nn_.ModuleDict({"enc": nn_.Linear(3, 2), "act": nn_.ReLU()})
    blocks["dec"] = nn_.Linear(2, 3)
    blocks.update([("norm", nn_.BatchNorm1d(3)), ["act", nn_.Tanh()]])      # overwrites keep their place
    blocks.update(OrderedDict([("z", nn_.Sigmoid()), ("b", nn_.Identity())]))
    seen.append(list(blocks))
    seen.append([type(m).__name__ for m in blocks.values()])
    seen.append([(k, type(m).__name__) for k, m in blocks.items()])
    seen.append(("act" in blocks, "nope" in blocks, len(blocks)))
    seen.append(type(blocks.pop("z")).__name__)
    del blocks["b"]
    seen.append(list(blocks.keys()))
    seen.append([name for name, _ in blocks.named_parameters()])
    seen.append(list(blocks.state_dict()))
    seen.append(list(nn_.ModuleDict(blocks)))                               # from another ModuleDict
    seen.append(blocks.enc is blocks["enc"])
    blocks.clear()
    seen.append((len(blocks), list(blocks.parameters())))
    return seen


def test_module_dict_behaves_as_torchs():
    torch = require_torch()
    assert _module_dict_calls(mg) == _module_dict_calls(torch)


def test_module_dict_children_are_seen_by_repr_state_dict_and_to():
    torch = require_torch()

    def make(lib):
        return lib.nn.ModuleDict({"conv": lib.nn.Conv2d(1, 2, 3), "head": lib.nn.ModuleDict(
            {"fc": lib.nn.Linear(4, 2), "act": lib.nn.LeakyReLU(0.2)})})

    ours, theirs = make(mg), make(torch)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.to(mg.float64)
    assert {str(p.dtype) for p in ours.parameters()} == {"minigrad.float64"}
    assert ours["head"]["fc"].weight.dtype == mg.float64


@pytest.mark.parametrize("call, error", [
    pytest.param(lambda lib: lib.nn.ModuleDict(5), TypeError, id="not-iterable"),
    pytest.param(lambda lib: lib.nn.ModuleDict([lib.nn.ReLU()]), TypeError, id="element-not-a-pair"),
    pytest.param(lambda lib: lib.nn.ModuleDict([("a", lib.nn.ReLU(), 1)]), ValueError, id="triple"),
    pytest.param(lambda lib: lib.nn.ModuleDict(["abc"]), ValueError, id="string-element"),
    pytest.param(lambda lib: lib.nn.ModuleDict({"a": 3}), TypeError, id="not-a-module"),
    pytest.param(lambda lib: lib.nn.ModuleDict({1: lib.nn.ReLU()}), TypeError, id="int-key"),
    pytest.param(lambda lib: lib.nn.ModuleDict({"a.b": lib.nn.ReLU()}), KeyError, id="dotted-key"),
    pytest.param(lambda lib: lib.nn.ModuleDict({"": lib.nn.ReLU()}), KeyError, id="empty-key"),
    pytest.param(lambda lib: lib.nn.ModuleDict({"training": lib.nn.ReLU()}), KeyError, id="attribute-key"),
    pytest.param(lambda lib: lib.nn.ModuleDict()["missing"], KeyError, id="missing-key"),
    pytest.param(lambda lib: lib.nn.ModuleDict().pop("missing"), KeyError, id="pop-missing"),
    pytest.param(lambda lib: lib.nn.ModuleDict().__delitem__("missing"), KeyError, id="del-missing"),
    pytest.param(lambda lib: lib.nn.ModuleDict({"a": lib.nn.ReLU()})(lib.ones(1)), NotImplementedError,
                 id="no-forward"),
])
def test_module_dict_errors_are_torchs(call, error):
    raises_like_torch(call, error)


def test_module_dict_update_errors_name_the_element():
    with pytest.raises(ValueError, match=r"element #1 has length 3; 2 is required"):
        nn.ModuleDict([("a", nn.ReLU()), ("b", nn.ReLU(), 0)])
    with pytest.raises(TypeError, match="but got int"):
        nn.ModuleDict().update(5)


# --- ParameterList ---------------------------------------------------------------------------------

def _parameter_list_calls(lib):
    seen = []
    params = lib.nn.ParameterList([_param(lib, 3, 4), lib.ones(2, dtype=lib.float64)])
    seen.append([type(p).__name__ for p in params])          # a plain Tensor became a Parameter
    seen.append(params[1].requires_grad)
    params.append(_param(lib, 5))
    params.extend([_param(lib, 1), _param(lib, 2, 1)])
    params += [_param(lib, 6)]
    seen.append((len(params), [tuple(p.shape) for p in params]))
    seen.append([tuple(p.shape) for p in params[1:5:2]])
    seen.append(type(params[::-1]).__name__)
    seen.append(tuple(params[-1].shape))
    params[0] = lib.zeros(7)
    seen.append((type(params[0]).__name__, tuple(params[0].shape)))
    seen.append([name for name, _ in params.named_parameters()])
    seen.append(list(params.state_dict()))
    params.append(lib.nn.Linear(2, 2))                       # a module becomes a child
    params.append("note")                                     # anything else is kept as it is
    seen.append(list(params.state_dict()))
    seen.append([name for name, _ in params.named_children()])
    seen.append(params[-1])
    return seen


def test_parameter_list_behaves_as_torchs():
    torch = require_torch()
    assert _parameter_list_calls(mg) == _parameter_list_calls(torch)


@pytest.mark.parametrize("make", [
    pytest.param(lambda lib: lib.nn.ParameterList(), id="empty"),
    pytest.param(lambda lib: lib.nn.ParameterList([_param(lib, 3)]), id="one"),
    pytest.param(lambda lib: lib.nn.ParameterList([_param(lib, 3, 4), lib.ones(2, dtype=lib.float64), 5,
                                                   lib.nn.Linear(2, 2), None]), id="mixed"),
    pytest.param(lambda lib: lib.nn.ParameterDict(), id="dict-empty"),
    pytest.param(lambda lib: lib.nn.ParameterDict({"w": _param(lib, 2, 3)}), id="dict-one"),
    pytest.param(lambda lib: lib.nn.ParameterDict({"b": _param(lib, 3, 4), "c": 5, "m": lib.nn.ReLU(),
                                                   "a": lib.ones(2, dtype=lib.float64)}), id="dict-mixed"),
])
def test_parameter_containers_print_as_torchs(make):
    torch = require_torch()
    assert repr(make(mg)) == _repr_as_minigrad(make(torch))


def test_parameter_list_repr_layout():
    params = nn.ParameterList([mg.zeros(3, 4), mg.zeros(2, dtype=mg.float64)])
    assert repr(params) == ("ParameterList(\n"
                            "    (0): Parameter containing: [minigrad.float32 of size 3x4]\n"
                            "    (1): Parameter containing: [minigrad.float64 of size 2]\n"
                            ")")


def test_parameter_containers_repr_name_a_gpu_device(cuda):
    params = nn.ParameterList([mg.zeros(3)]).to(cuda)
    assert repr(params) == "ParameterList(  (0): Parameter containing: [minigrad.float32 of size 3 (cuda:0)])"
    assert "(cuda:0)]" in repr(nn.ParameterDict({"w": mg.zeros(3)}).to(cuda))


@pytest.mark.parametrize("call, error", [
    pytest.param(lambda lib: lib.nn.ParameterList([_param(lib, 1)])[1], IndexError, id="index-past-end"),
    pytest.param(lambda lib: lib.nn.ParameterList([_param(lib, 1)])[-2], IndexError, id="negative-index"),
    pytest.param(lambda lib: lib.nn.ParameterList().__setitem__(0, _param(lib, 1)), IndexError,
                 id="set-past-end"),
    pytest.param(lambda lib: lib.nn.ParameterList([_param(lib, 1)])["0"], TypeError, id="string-index"),
    pytest.param(lambda lib: lib.nn.ParameterList([_param(lib, 1)])[0.0], TypeError, id="float-index"),
    pytest.param(lambda lib: lib.nn.ParameterList(3), TypeError, id="not-iterable"),
    pytest.param(lambda lib: lib.nn.ParameterList().extend(lib.zeros(3)), TypeError, id="extend-tensor"),
    pytest.param(lambda lib: lib.nn.ParameterList([lib.tensor([1, 2])]), RuntimeError, id="integer-tensor"),
    pytest.param(lambda lib: lib.nn.ParameterList([_param(lib, 1)]).__setitem__(0, 7), TypeError,
                 id="int-over-parameter"),
    pytest.param(lambda lib: lib.nn.ParameterList([_param(lib, 1)])(lib.ones(1)), RuntimeError, id="call"),
])
def test_parameter_list_errors_are_torchs(call, error):
    raises_like_torch(call, error)


def test_parameter_list_has_no_item_deletion_like_torch():
    def delete(lib):
        params = lib.nn.ParameterList([_param(lib, 1)])
        del params[0]

    raises_like_torch(delete, AttributeError)


def test_parameter_list_index_error_names_index_and_length():
    with pytest.raises(IndexError, match="index 3 is out of range for a ParameterList of length 2"):
        nn.ParameterList([mg.zeros(1), mg.zeros(1)])[3]


def test_parameter_list_refused_value_leaves_it_unchanged():
    params = nn.ParameterList([mg.zeros(1)])
    with pytest.raises(RuntimeError, match="floating point"):
        params.append(mg.tensor([1, 2]))
    assert len(params) == 1 and len(list(params)) == 1


# --- ParameterDict ---------------------------------------------------------------------------------

def _parameter_dict_calls(lib):
    seen = []
    params = lib.nn.ParameterDict({"b": _param(lib, 3), "a": lib.ones(2), "c": 5})  # a plain dict: sorted
    seen.append(list(params))
    seen.append([type(v).__name__ for v in params.values()])
    seen.append([k for k, _ in params.items()])
    seen.append(list(lib.nn.ParameterDict(OrderedDict([("z", _param(lib, 1)), ("y", _param(lib, 1))]))))
    seen.append(list(lib.nn.ParameterDict([("z", _param(lib, 1)), ("y", _param(lib, 1))])))
    params.update({"q": _param(lib, 1), "p": _param(lib, 1)})
    seen.append(list(params))
    seen.append(("a" in params, "nope" in params, len(params), list(reversed(params))))
    seen.append((params.get("c"), params.get("nope", "default")))
    seen.append(tuple(params.setdefault("d", lib.zeros(4)).shape))
    seen.append((type(params["d"]).__name__, params.setdefault("c", 9)))
    seen.append(tuple(params.pop("d").shape))
    seen.append(params.popitem()[0])
    del params["p"]
    seen.append([name for name, _ in params.named_parameters()])
    seen.append(list(params.state_dict()))
    copy = params.copy()
    seen.append((list(copy), copy["a"] is params["a"]))
    merged = params | lib.nn.ParameterDict({"e": _param(lib, 1)})
    seen.append((list(merged), list(params)))
    params |= lib.nn.ParameterDict({"f": _param(lib, 1)})
    seen.append(list(params))
    seen.append(list(params.fromkeys(["x", "y"])))
    params["a"] = None                                      # an absent parameter: out of state_dict
    seen.append((list(params.state_dict()), params["a"]))
    params.clear()
    seen.append((len(params), list(params.parameters())))
    return seen


def test_parameter_dict_behaves_as_torchs():
    torch = require_torch()
    assert _parameter_dict_calls(mg) == _parameter_dict_calls(torch)


@pytest.mark.parametrize("call, error", [
    pytest.param(lambda lib: lib.nn.ParameterDict()["missing"], AttributeError, id="missing-key"),
    pytest.param(lambda lib: lib.nn.ParameterDict().pop("missing"), AttributeError, id="pop-missing"),
    pytest.param(lambda lib: lib.nn.ParameterDict().__delitem__("missing"), KeyError, id="del-missing"),
    pytest.param(lambda lib: lib.nn.ParameterDict().popitem(), KeyError, id="popitem-empty"),
    pytest.param(lambda lib: lib.nn.ParameterDict()[0], TypeError, id="int-key"),
    pytest.param(lambda lib: lib.nn.ParameterDict({0: _param(lib, 1)}), TypeError, id="int-key-set"),
    pytest.param(lambda lib: lib.nn.ParameterDict({"a.b": _param(lib, 1)}), KeyError, id="dotted-key"),
    pytest.param(lambda lib: lib.nn.ParameterDict(5), TypeError, id="not-iterable"),
    pytest.param(lambda lib: lib.nn.ParameterDict([5]), TypeError, id="element-not-a-pair"),
    pytest.param(lambda lib: lib.nn.ParameterDict([("a", _param(lib, 1), 2)]), ValueError, id="triple"),
    pytest.param(lambda lib: lib.nn.ParameterDict(lib.nn.ModuleDict({"a": lib.nn.ReLU()})), ValueError,
                 id="from-module-dict"),
    pytest.param(lambda lib: lib.nn.ParameterDict({"w": lib.tensor([1])}), RuntimeError,
                 id="integer-tensor"),
    pytest.param(lambda lib: lib.nn.ParameterDict({"w": _param(lib, 1)})(lib.ones(1)), RuntimeError,
                 id="call"),
])
def test_parameter_dict_errors_are_torchs(call, error):
    raises_like_torch(call, error)


def test_parameter_dict_rejected_key_leaves_it_unchanged():
    params = nn.ParameterDict({"w": mg.zeros(1)})
    with pytest.raises(TypeError, match="not a string"):
        params[0] = mg.zeros(1)
    with pytest.raises(KeyError):
        params["a.b"] = mg.zeros(1)
    assert list(params) == ["w"] and len(params) == 1


# --- the containers inside a model: gradients, state_dict, to() ------------------------------------

def _container_model(lib):
    """Uses every container and LeakyReLU in its forward; ``check_layer`` compares it with PyTorch's."""
    nn_ = lib.nn

    class Net(nn_.Module):
        def __init__(self):
            super().__init__()
            self.scales = nn_.ParameterList([lib.ones(4), lib.full((4,), 0.5)])
            self.shifts = nn_.ParameterDict({"out": lib.zeros(3), "hidden": lib.full((4,), 0.1)})
            self.layers = nn_.ModuleDict({"fc1": nn_.Linear(5, 4), "act": nn_.LeakyReLU(0.2),
                                          "skip": nn_.Identity(7), "fc2": nn_.Linear(4, 3)})

        def forward(self, x):
            h = self.layers["act"](self.layers["fc1"](x) * self.scales[0] + self.shifts["hidden"])
            h = self.layers["skip"](h) * self.scales[-1]
            return self.layers["fc2"](h) + self.shifts["out"]

    lib.manual_seed(0)
    return Net()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_model_built_from_containers_matches_torch(dtype):
    rng = numpy.random.default_rng(3)
    ours, theirs = check_layer(_container_model, rng.standard_normal((6, 5)), dtype,
                               describe=_repr_as_minigrad)
    assert list(ours.state_dict()) == theirs["state_keys"] == [
        "scales.0", "scales.1", "shifts.hidden", "shifts.out", "layers.fc1.weight", "layers.fc1.bias",
        "layers.fc2.weight", "layers.fc2.bias"]
    assert repr(ours) == theirs["described"]


def test_to_and_optimizers_reach_container_parameters():
    model = _container_model(mg)
    parameters = list(model.parameters())
    model.to(mg.float64)
    assert list(model.parameters()) == parameters                 # same objects, new dtype
    assert all(p.dtype == mg.float64 for p in parameters)
    before = model.scales[1].detach().clone()
    optimizer = mg.optim.SGD(model.parameters(), lr=0.5)
    model(mg.ones(2, 5, dtype=mg.float64)).sum().backward()
    optimizer.step()
    assert model.scales[1].grad is not None and not numpy.array_equal(host(model.scales[1]), host(before))


# --- Identity --------------------------------------------------------------------------------------

def test_identity_ignores_its_arguments_and_returns_its_input():
    torch = require_torch()
    layer = nn.Identity(54, unused_argument1=0.1, unused_argument2=False)
    x = mg.randn(2, 3)
    assert layer(x) is x
    assert repr(layer) == repr(torch.nn.Identity(54, unused_argument1=0.1)) == "Identity()"
    assert list(layer.parameters()) == [] and list(layer.state_dict()) == []


# --- LeakyReLU -------------------------------------------------------------------------------------

def _with_zeros(shape, seed):
    """Normal values with exact zeros mixed in (the kink, where the gradient is negative_slope)."""
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(shape)
    x.reshape(-1)[::4] = 0.0
    return x


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("slope", [0.01, 0.2, 0.0, -0.5, 2, 1.0])
def test_leaky_relu_values_and_gradients_match_torch(slope, dtype):
    check_against_torch(lambda m, x: m.nn.functional.leaky_relu(x, slope), [_with_zeros((3, 8), seed=1)],
                        dtype, seed=2)


def test_leaky_relu_gradient_at_zero_is_the_negative_slope_as_torchs():
    torch = require_torch()
    for lib, functional in ((mg, F), (torch, torch.nn.functional)):
        x = lib.tensor([-1.0, 0.0, 1.0], dtype=lib.float64, requires_grad=True)
        functional.leaky_relu(x, 0.3).sum().backward()
        assert x.grad.tolist() == [0.3, 0.3, 1.0]


@pytest.mark.parametrize("slope", [0.01, 0.3, -0.7])
def test_leaky_relu_passes_gradcheck(slope):
    x = numpy.random.default_rng(4).standard_normal((4, 5))
    x[numpy.abs(x) < 1e-3] = 0.5                    # away from the kink, where finite differences mislead
    assert mg.autograd.gradcheck(lambda t: F.leaky_relu(t, slope), (mg.tensor(x, requires_grad=True),))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("make", [
    pytest.param(lambda lib: lib.nn.LeakyReLU(), id="default"),
    pytest.param(lambda lib: lib.nn.LeakyReLU(0.2), id="slope"),
    pytest.param(lambda lib: lib.nn.Sequential(lib.nn.Linear(5, 4), lib.nn.LeakyReLU(negative_slope=0.1),
                                               lib.nn.Linear(4, 2)), id="mlp"),
])
def test_leaky_relu_layer_matches_torch(make, dtype):
    check_layer(make, _with_zeros((3, 5), seed=5), dtype)


@pytest.mark.parametrize("make", [
    pytest.param(lambda lib: lib.nn.LeakyReLU(), id="default"),
    pytest.param(lambda lib: lib.nn.LeakyReLU(0.2, True), id="positional"),
    pytest.param(lambda lib: lib.nn.LeakyReLU(inplace=True), id="inplace"),
    pytest.param(lambda lib: lib.nn.LeakyReLU(negative_slope=2), id="int-slope"),
])
def test_leaky_relu_layer_prints_as_torchs(make):
    torch = require_torch()
    assert repr(make(mg)) == repr(make(torch))
    assert list(make(mg).parameters()) == []


def test_leaky_relu_node_names_are_torchs():
    torch = require_torch()
    for lib, functional in ((mg, F), (torch, torch.nn.functional)):
        x = lib.tensor([-1.0, 2.0], requires_grad=True)
        assert functional.leaky_relu(x).grad_fn.name() == "LeakyReluBackward0"
        assert functional.leaky_relu(x * 1, inplace=True).grad_fn.name() == "LeakyReluBackward1"


INPLACE_CALLS = {
    "functional": lambda lib, t: lib.nn.functional.leaky_relu(t, 0.25, inplace=True),
    "functional_": lambda lib, t: lib.nn.functional.leaky_relu_(t, 0.25),
    "module": lambda lib, t: lib.nn.LeakyReLU(0.25, inplace=True)(t),
}


@pytest.mark.parametrize("use", list(INPLACE_CALLS))
def test_leaky_relu_inplace_overwrites_and_backpropagates_as_torch(use):
    torch = require_torch()
    x = _with_zeros((2, 6), seed=6)
    results = []
    for lib in (mg, torch):
        leaf = lib.tensor(x, requires_grad=True)
        h = leaf * 2
        version = h._version
        out = INPLACE_CALLS[use](lib, h)
        assert out is h and h._version == version + 1
        (out * out).sum().backward()
        results.append((host(out), host(leaf.grad)))
    for ours, theirs in zip(*results):
        numpy.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_leaky_relu_inplace_without_grad_changes_a_leaf():
    x = mg.tensor([-2.0, 0.0, 4.0], requires_grad=True)
    with mg.no_grad():
        F.leaky_relu(x, 0.5, inplace=True)
    assert x.tolist() == [-1.0, 0.0, 4.0] and x.grad_fn is None


def test_leaky_relu_keeps_the_dtype_and_special_values_as_torch():
    torch = require_torch()
    values = [float("nan"), -float("inf"), float("inf"), -0.0, -3.0]
    for slope in (0.01, 0.0):
        ours = F.leaky_relu(mg.tensor(values), slope)
        theirs = torch.nn.functional.leaky_relu(torch.tensor(values), slope)
        numpy.testing.assert_array_equal(host(ours), host(theirs))
    for dtype in ("float16", "float32", "float64"):
        assert F.leaky_relu(mg.zeros(2, dtype=getattr(mg, dtype))).dtype == getattr(mg, dtype)
    x = mg.tensor([-1.0, 2.0], requires_grad=True)
    F.leaky_relu(x).sum().backward()
    assert x.grad.dtype == mg.float32
    assert F.leaky_relu(mg.zeros(0, 3)).shape == (0, 3)


def test_leaky_relu_takes_a_zero_dim_tensor_slope_as_torch():
    torch = require_torch()
    ours = F.leaky_relu(mg.tensor([-1.0, 2.0]), mg.tensor(0.5))
    theirs = torch.nn.functional.leaky_relu(torch.tensor([-1.0, 2.0]), torch.tensor(0.5))
    assert ours.tolist() == theirs.tolist() == [-0.5, 2.0]


def test_leaky_relu_on_the_gpu(cuda):
    x = mg.tensor([-1.0, 0.0, 2.0], device=cuda, requires_grad=True)
    out = F.leaky_relu(x, 0.3)
    out.sum().backward()
    assert out.device == cuda and x.grad.device == cuda
    numpy.testing.assert_allclose(host(x.grad), [0.3, 0.3, 1.0])


def _inplace_negative_slope_backward(lib):
    x = lib.tensor([-1.0, 2.0], requires_grad=True)
    lib.nn.functional.leaky_relu(x * 1, -0.5, inplace=True).sum().backward()


@pytest.mark.parametrize("call, error, fragments", [
    pytest.param(lambda lib: lib.nn.functional.leaky_relu(lib.tensor([-1, 2])), NotImplementedError,
                 ("leaky_relu", "Long"), id="integer"),
    pytest.param(lambda lib: lib.nn.functional.leaky_relu(lib.tensor([True])), NotImplementedError,
                 ("Bool",), id="bool"),
    pytest.param(lambda lib: lib.nn.functional.leaky_relu([1.0, -1.0]), TypeError, ("input", "list"),
                 id="list-input"),
    pytest.param(lambda lib: lib.nn.functional.leaky_relu(lib.ones(2), "0.1"), TypeError,
                 ("negative_slope", "str"), id="string-slope"),
    pytest.param(lambda lib: lib.nn.functional.leaky_relu(lib.ones(2), None), TypeError, ("NoneType",),
                 id="none-slope"),
    pytest.param(lambda lib: lib.nn.functional.leaky_relu(lib.ones(2), lib.tensor([0.1])), TypeError,
                 ("negative_slope",), id="vector-slope"),
    pytest.param(lambda lib: lib.nn.functional.leaky_relu(lib.ones(2, requires_grad=True), inplace=True),
                 RuntimeError, ("leaf Variable",), id="inplace-on-leaf"),
    pytest.param(_inplace_negative_slope_backward, RuntimeError, ("negative slope",),
                 id="inplace-negative-slope-backward"),
])
def test_leaky_relu_errors_are_torchs(call, error, fragments):
    raises_like_torch(call, error, *fragments)


def test_leaky_relu_saved_input_changed_in_place_raises():
    def call(lib):
        h = lib.tensor([-1.0, 2.0], requires_grad=True) * 1
        out = lib.nn.functional.leaky_relu(h)
        h.add_(1)
        out.sum().backward()

    raises_like_torch(call, RuntimeError, "modified by an inplace operation")
