"""nn.Module's API: registration, traversal order, state_dict/load_state_dict, train/eval, to(), repr."""

import copy
from collections import OrderedDict

import numpy
import pytest
from _reference import reference
from _torch import require_torch

import minigrad as mg
import minigrad.nn as nn

from .helpers import host, load_torch_weights


def _net(lib):
    """A model with every kind of registration: nested Sequential, BatchNorm buffers, a bias-less Linear."""
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.features = lib.nn.Sequential(lib.nn.Conv2d(1, 4, 3, padding=1), lib.nn.BatchNorm2d(4),
                                              lib.nn.ReLU(), lib.nn.MaxPool2d(2))
            self.heads = lib.nn.ModuleList([lib.nn.Linear(16, 5), lib.nn.Linear(5, 3, bias=False)])
            self.scale = lib.nn.Parameter(lib.ones(1))
            self.register_buffer("step", lib.zeros(1))
            self.register_buffer("scratch", lib.zeros(2), persistent=False)

        def forward(self, x):
            x = self.features(x).flatten(1)
            return self.heads[1](self.heads[0](x)) * self.scale

    return Net()


# --- registration -------------------------------------------------------------------------------

def test_attribute_assignment_registers_parameters_modules_and_buffers():
    net = _net(mg)
    assert isinstance(net.scale, nn.Parameter) and net._parameters["scale"] is net.scale
    assert net._modules["features"] is net.features
    assert net._buffers["step"] is net.step
    net.plain = mg.zeros(3)  # a plain Tensor attribute is not a parameter
    assert "plain" not in dict(net.named_parameters()) and "plain" not in dict(net.named_buffers())
    net.step = mg.ones(1)  # assigning to a buffer name keeps it a buffer
    assert host(net._buffers["step"]).tolist() == [1.0]


def test_parameter_is_a_leaf_tensor_that_requires_grad_and_prints_as_torch():
    torch = require_torch()
    p = nn.Parameter(mg.tensor([1.0, 2.0]))
    assert isinstance(p, mg.Tensor) and p.requires_grad and p.is_leaf
    assert not nn.Parameter(mg.tensor([1.0]), requires_grad=False).requires_grad
    assert repr(p) == repr(torch.nn.Parameter(torch.tensor([1.0, 2.0])))
    assert "Parameter containing:\ntensor(" in repr(p)
    assert isinstance(copy.deepcopy(p), nn.Parameter)


def test_register_parameter_none_declares_an_absent_parameter():
    layer = nn.Linear(3, 2, bias=False)
    assert layer.bias is None and "bias" in layer._parameters
    assert [name for name, _ in layer.named_parameters()] == ["weight"]
    assert list(layer.state_dict()) == ["weight"]


@pytest.mark.parametrize("action, error, words", [
    (lambda m: m.register_parameter("a.b", None), KeyError, "contain"),
    (lambda m: m.register_parameter("", None), KeyError, "empty"),
    (lambda m: m.register_parameter("weight", mg.zeros(2)), TypeError, "Parameter or None"),
    (lambda m: m.register_buffer("training", mg.zeros(1)), KeyError, "already exists"),
    (lambda m: m.register_buffer("buf", 3.0), TypeError, "'float'"),
    (lambda m: setattr(m, "weight", mg.zeros(2, 3)), TypeError, "as parameter 'weight'"),
    (lambda m: m.add_module("child", object()), TypeError, "is not a Module subclass"),
    (lambda m: m.register_parameter("p", nn.Parameter(mg.ones(2)) * 2), TypeError, "Parameter or None"),
])
def test_registration_errors_name_the_problem(action, error, words):
    with pytest.raises(error, match=words):
        action(nn.Linear(3, 2))


def test_assigning_before_init_raises_attribute_error():
    class Broken(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(mg.ones(1))

    with pytest.raises(AttributeError, match=r"before Module.__init__\(\) call"):
        Broken()


def test_getattr_delattr_and_dir():
    net = _net(mg)
    assert "features" in dir(net) and "scale" in dir(net) and "step" in dir(net)
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nothing'"):
        _ = net.nothing
    del net.scale
    assert "scale" not in dict(net.named_parameters())
    del net.heads
    assert "heads" not in dict(net.named_children())


def test_forward_must_be_defined():
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(mg.zeros(1))


# --- traversal and state_dict agree with PyTorch -------------------------------------------------

def test_names_and_order_of_parameters_buffers_modules_and_state_dict_match_torch():
    torch = require_torch()
    ours, theirs = _net(mg), _net(torch)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert "scratch" not in ours.state_dict() and "features.1.num_batches_tracked" in ours.state_dict()
    assert len(list(ours.parameters())) == len(list(theirs.parameters()))
    assert [type(m).__name__ for m in ours.modules()] == [type(m).__name__ for m in theirs.modules()]


def test_shared_parameters_and_modules_are_listed_once():
    shared = nn.Linear(2, 2)
    model = nn.Sequential(shared, nn.ReLU(), shared)
    assert len(list(model.parameters())) == 2
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias"]
    assert len(list(model.modules())) == 3
    assert list(model.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]  # as PyTorch


def test_reassigning_a_parameter_or_module_keeps_its_place_in_the_order_like_torch():
    """``b.weight = a.weight`` (weight tying) or a replaced layer must not move to the end of state_dict."""
    torch = require_torch()
    keys = {}
    for lib in (mg, torch):
        model = lib.nn.Module()
        model.a, model.b, model.c = lib.nn.Linear(2, 2), lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)
        model.b.weight = model.a.weight
        model.a = lib.nn.Linear(2, 2)
        keys[lib] = (list(model.state_dict()), [n for n, _ in model.named_parameters()],
                     [n for n, _ in model.named_children()])
    assert keys[mg] == keys[torch]
    assert keys[mg][0] == ["a.weight", "a.bias", "b.weight", "b.bias", "c.weight", "c.bias"]


def test_state_dict_holds_detached_tensors_that_share_memory():
    layer = nn.Linear(3, 2)
    state = layer.state_dict()
    assert isinstance(state, OrderedDict)
    assert not state["weight"].requires_grad and not isinstance(state["weight"], nn.Parameter)
    with mg.no_grad():
        layer.weight.fill_(7.0)
    assert host(state["weight"]).max() == 7.0
    assert layer.state_dict(keep_vars=True)["weight"] is layer.weight


def test_load_state_dict_from_torch_then_same_outputs():
    torch = require_torch()
    ours, theirs = _net(mg).eval(), _net(torch).eval()
    load_torch_weights(ours, theirs)
    x = numpy.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(numpy.float32)
    expected = host(theirs(torch.tensor(x)))
    numpy.testing.assert_allclose(host(ours(mg.tensor(x))), expected, rtol=1e-5, atol=1e-6)


def test_load_state_dict_copies_in_place_and_keeps_parameter_identity():
    source, target = nn.Linear(3, 2), nn.Linear(3, 2)
    weight = target.weight
    target.load_state_dict(source.state_dict())
    assert target.weight is weight
    numpy.testing.assert_array_equal(host(target.weight), host(source.weight))
    assert host(target.weight) is not host(source.weight)


def test_load_state_dict_errors_use_torchs_wording():
    torch = require_torch()
    ours, theirs = nn.Linear(2, 3), torch.nn.Linear(2, 3)
    bad_ours = {"weight": mg.zeros(3, 3), "foo": mg.zeros(1)}
    bad_theirs = {"weight": torch.zeros(3, 3), "foo": torch.zeros(1)}
    with pytest.raises(RuntimeError) as ours_error:
        ours.load_state_dict(bad_ours)
    with pytest.raises(RuntimeError) as theirs_error:
        theirs.load_state_dict(bad_theirs)
    assert str(ours_error.value) == str(theirs_error.value).replace("torch.Size", "minigrad.Size")
    assert 'Missing key(s) in state_dict: "bias"' in str(ours_error.value)
    assert 'Unexpected key(s) in state_dict: "foo"' in str(ours_error.value)
    assert "size mismatch for weight: copying a param with shape minigrad.Size([3, 3])" in \
        str(ours_error.value)


def test_load_state_dict_nested_unexpected_and_missing_keys():
    net = _net(mg)
    state = net.state_dict()
    del state["heads.0.bias"]
    state["heads.0.extra"] = mg.zeros(1)
    state["nowhere.weight"] = mg.zeros(1)
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "heads.0.bias"'):
        net.load_state_dict(state)
    result = net.load_state_dict(state, strict=False)
    assert result.missing_keys == ["heads.0.bias"]
    assert sorted(result.unexpected_keys) == ["heads.0.extra", "nowhere.weight"]
    assert repr(net.load_state_dict(net.state_dict())) == "<All keys matched successfully>"


def test_load_state_dict_shape_mismatch_raises_even_when_not_strict():
    with pytest.raises(RuntimeError, match=r"size mismatch for weight"):
        nn.Linear(2, 3).load_state_dict({"weight": mg.zeros(4, 2), "bias": mg.zeros(3)}, strict=False)
    with pytest.raises(TypeError, match="dict-like"):
        nn.Linear(2, 3).load_state_dict([1, 2])


def test_load_state_dict_with_assign_replaces_the_tensors():
    layer = nn.Linear(2, 3)
    new_weight = mg.ones(3, 2)
    layer.load_state_dict({"weight": new_weight, "bias": mg.zeros(3)}, assign=True)
    assert isinstance(layer.weight, nn.Parameter) and layer.weight.requires_grad
    assert layer.weight.array is new_weight.array


# --- modes, gradients, conversion ----------------------------------------------------------------

def test_train_and_eval_reach_every_submodule_and_change_dropout_and_batchnorm():
    net = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), nn.BatchNorm1d(4))
    assert net.training and all(m.training for m in net.modules())
    assert net.eval() is net and not any(m.training for m in net.modules())
    x = mg.randn(8, 4)
    with mg.no_grad():
        numpy.testing.assert_array_equal(host(net(x)), host(net(x)))  # eval: deterministic
        net.train()
        assert not numpy.array_equal(host(net(x)), host(net(x)))      # train: a new dropout mask each time
    with pytest.raises(ValueError, match="boolean"):
        net.train("yes")


def test_zero_grad_sets_to_none_or_zero():
    layer = nn.Linear(3, 2)
    layer(mg.randn(4, 3)).sum().backward()
    layer.zero_grad(set_to_none=False)
    assert host(layer.weight.grad).tolist() == [[0.0] * 3] * 2
    layer.zero_grad()
    assert layer.weight.grad is None and layer.bias.grad is None


def test_to_double_float_convert_in_place_keeping_parameter_objects_and_integer_buffers():
    net = _net(mg)
    weight = net.heads[0].weight
    net.heads[0](mg.randn(2, 16)).sum().backward()
    assert net.double() is net
    assert net.heads[0].weight is weight and weight.dtype == mg.float64 and weight.grad.dtype == mg.float64
    assert net.features[1].running_mean.dtype == mg.float64
    assert net.features[1].num_batches_tracked.dtype == mg.int64
    net.to(mg.float32)
    assert weight.dtype == mg.float32 and net.step.dtype == mg.float32
    net.to("cpu", dtype=mg.float64)
    assert weight.dtype == mg.float64
    net.to(mg.zeros(1, dtype=mg.float32))
    assert weight.dtype == mg.float32
    assert net.float() is net and net.cpu() is net
    with pytest.raises(TypeError, match="floating point"):
        net.to(mg.int64)


def test_apply_visits_children_first_then_self_and_requires_grad_():
    seen = []
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU()))
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_forward_hooks_see_and_may_replace_inputs_and_outputs():
    layer = nn.Linear(2, 2)
    calls = []
    pre = layer.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    post = layer.register_forward_hook(lambda m, args, out: calls.append(out.shape) or out + 1)
    out = layer(mg.ones(3, 2))
    numpy.testing.assert_allclose(host(out), numpy.broadcast_to(host(layer.bias) + 1, (3, 2)), rtol=1e-6)
    assert calls == [mg.Size([3, 2])]
    pre.remove()
    post.remove()
    assert not numpy.allclose(host(layer(mg.ones(3, 2))), host(out))


def test_deepcopy_gives_an_independent_model():
    net = _net(mg)
    clone = copy.deepcopy(net)
    with mg.no_grad():
        clone.heads[0].weight.fill_(0.0)
    assert not numpy.all(host(net.heads[0].weight) == 0)
    assert isinstance(clone.heads[0].weight, nn.Parameter)


# --- containers ------------------------------------------------------------------------------------

def test_sequential_indexing_slicing_append_and_ordered_dict_names():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    seq = nn.Sequential(a, b)
    assert seq[0] is a and seq[-1] is b and len(seq) == 2 and list(seq) == [a, b]
    seq.append(c)
    assert isinstance(seq[1:], nn.Sequential) and list(seq[1:]) == [b, c]
    del seq[0]
    assert [n for n, _ in seq.named_children()] == ["0", "1"]
    named = nn.Sequential(OrderedDict([("fc", a), ("act", b)]))
    assert named.fc is a and list(named.state_dict()) == ["fc.weight", "fc.bias"]
    with pytest.raises(IndexError):
        _ = seq[5]


def test_sequential_and_module_list_concatenate_with_plus_like_torch():
    torch = require_torch()
    for lib in (mg, torch):
        first, second = lib.nn.Sequential(lib.nn.ReLU()), lib.nn.Sequential(lib.nn.Tanh(), lib.nn.Sigmoid())
        joined = first + second
        assert isinstance(joined, lib.nn.Sequential) and len(first) == 1
        assert [type(m).__name__ for m in joined] == ["ReLU", "Tanh", "Sigmoid"]
        assert [n for n, _ in joined.named_children()] == ["0", "1", "2"]
        first += second
        assert [type(m).__name__ for m in first] == ["ReLU", "Tanh", "Sigmoid"]
        with pytest.raises(ValueError, match="only objects of Sequential class"):
            _ = first + [lib.nn.ReLU()]
        layers = lib.nn.ModuleList([lib.nn.ReLU()]) + lib.nn.ModuleList([lib.nn.Tanh()])
        layers += [lib.nn.Sigmoid()]
        assert isinstance(layers, lib.nn.ModuleList)
        assert [type(m).__name__ for m in layers] == ["ReLU", "Tanh", "Sigmoid"]


def test_module_list_and_module_dict_register_their_elements():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.ReLU())
    layers.insert(0, nn.Tanh())
    assert len(layers) == 5 and isinstance(layers[0], nn.Tanh) and len(list(layers.parameters())) == 6
    del layers[0]
    assert [n for n, _ in layers.named_children()] == ["0", "1", "2", "3"]
    blocks = nn.ModuleDict({"enc": nn.Linear(2, 2), "dec": nn.Linear(2, 2)})
    assert list(blocks.keys()) == ["enc", "dec"] and "enc" in blocks
    assert list(blocks.state_dict()) == ["enc.weight", "enc.bias", "dec.weight", "dec.bias"]


# --- repr ------------------------------------------------------------------------------------------

REPR_MODELS = [
    lambda lib: lib.nn.Linear(4, 2),
    lambda lib: lib.nn.Linear(4, 2, bias=False),
    lambda lib: lib.nn.Conv2d(1, 32, 3, padding=1),
    lambda lib: lib.nn.Conv2d(4, 8, (3, 5), stride=2, dilation=(2, 1), groups=4, bias=False),
    lambda lib: lib.nn.Conv2d(2, 4, 3, padding="same"),
    lambda lib: lib.nn.Sequential(lib.nn.Conv2d(1, 8, 3), lib.nn.BatchNorm2d(8), lib.nn.ReLU(inplace=True),
                                  lib.nn.MaxPool2d(2), lib.nn.AvgPool2d(2, stride=1), lib.nn.Dropout(0.25),
                                  lib.nn.Flatten(), lib.nn.Sequential(lib.nn.Linear(8, 4), lib.nn.Sigmoid()),
                                  lib.nn.Tanh(), lib.nn.Softmax(dim=1), lib.nn.LogSoftmax(dim=1)),
    lambda lib: lib.nn.ModuleList([lib.nn.Linear(2, 2), lib.nn.Linear(2, 2), lib.nn.ReLU(),
                                   lib.nn.Linear(2, 2)]),
    lambda lib: lib.nn.ModuleDict({"a": lib.nn.BatchNorm1d(3, affine=False, momentum=None)}),
    lambda lib: lib.nn.Sequential(lib.nn.CrossEntropyLoss(), lib.nn.NLLLoss(), lib.nn.MSELoss(),
                                  lib.nn.Identity()),
    _net,
]


@pytest.mark.parametrize("make", REPR_MODELS)
def test_repr_equals_torchs(make):
    assert repr(make(mg)) == reference(lambda torch: repr(make(torch)))
