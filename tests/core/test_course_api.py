"""PyTorch names that teaching programs use beyond the core: copying tensors and models,
plotting tensors, ``torch.backends``, the default device, ``Variable`` and the legacy typed
constructors. Each compared with PyTorch where PyTorch gives an answer."""

import copy

import numpy
import pytest
from _torch import require_torch

import minigrad as mg
import minigrad.nn as nn

from .helpers import assert_misuse_raises_like_torch, to_numpy

# --- copy.copy and copy.deepcopy --------------------------------------------------------------


def test_copy_of_a_tensor_is_a_new_leaf_on_the_same_data_as_pytorchs():
    torch = require_torch()
    for lib in (mg, torch):
        leaf = lib.ones(3, requires_grad=True)
        leaf.grad = lib.full((3,), 2.0)
        leaf.note = "kept"
        copied = copy.copy(leaf)
        assert copied is not leaf and type(copied) is type(leaf)
        assert copied.requires_grad and copied.is_leaf and copied.grad is None and copied.note == "kept"
        computed = copy.copy(leaf * 2)
        assert computed.requires_grad and computed.grad_fn is None, lib.__name__
        plain = lib.arange(4.0)
        alias = copy.copy(plain)
        with lib.no_grad():
            alias[0] = 9.0
        assert plain[0].item() == 9.0, f"{lib.__name__}: copy.copy does not share the data"


def test_deepcopy_of_a_leaf_copies_data_grad_and_attributes():
    leaf = mg.tensor([1.0, 2.0], requires_grad=True)
    leaf.grad = mg.tensor([0.5, 0.5])
    leaf.tags = ["weights"]
    clone = copy.deepcopy(leaf)
    assert clone.requires_grad and clone.is_leaf and clone.device == leaf.device
    assert clone.array is not leaf.array and clone.grad.array is not leaf.grad.array
    assert to_numpy(clone.grad).tolist() == [0.5, 0.5] and clone.tags == ["weights"]
    assert clone.tags is not leaf.tags
    with mg.no_grad():
        clone.mul_(3.0)
    assert to_numpy(leaf).tolist() == [1.0, 2.0]


def test_deepcopy_of_a_computed_tensor_raises_pytorchs_error():
    assert_misuse_raises_like_torch(lambda m: copy.deepcopy(m.ones(2, requires_grad=True) * 2),
                                    ["Only Tensors created explicitly by the user (graph leaves)"])


def test_deepcopy_keeps_views_sharing_the_copy_of_their_base_as_pytorch():
    torch = require_torch()
    for lib in (mg, torch):
        base = lib.arange(6.0)
        view = base[2:4]
        new_view, new_base = copy.deepcopy([view, base])
        new_view[0] = 100.0
        assert new_base[2].item() == 100.0 and base[2].item() == 2.0, lib.__name__
        alone = copy.deepcopy(view)  # a view copied alone is a copy of its own values
        assert alone.tolist() == [2.0, 3.0]


def test_deepcopy_of_a_model_trains_apart_from_the_original():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    twin = copy.deepcopy(model)
    for ours, theirs in zip(model.parameters(), twin.parameters()):
        assert isinstance(theirs, nn.Parameter) and theirs.requires_grad
        assert ours.array is not theirs.array
        numpy.testing.assert_array_equal(to_numpy(ours), to_numpy(theirs))
    before = [to_numpy(p).copy() for p in model.parameters()]
    optimiser = mg.optim.SGD(twin.parameters(), lr=0.1)
    x, y = mg.randn(8, 3), mg.randn(8, 1)
    for _ in range(3):
        optimiser.zero_grad()
        ((twin(x) - y) ** 2).mean().backward()
        optimiser.step()
    for original, saved in zip(model.parameters(), before):
        numpy.testing.assert_array_equal(to_numpy(original), saved)  # untouched by the twin's training
        assert original.grad is None
    assert any((to_numpy(p) != s).any() for p, s in zip(twin.parameters(), before))


def test_deepcopy_of_an_optimiser_state_dict_is_independent_and_loads_back():
    model = nn.Linear(2, 2)
    optimiser = mg.optim.Adam(model.parameters(), lr=0.01)
    model(mg.ones(1, 2)).sum().backward()
    optimiser.step()
    saved = copy.deepcopy(optimiser.state_dict())
    moment = optimiser.state_dict()["state"][0]["exp_avg"]
    assert saved["state"][0]["exp_avg"].array is not moment.array
    optimiser.step()  # changes the live state, not the saved one
    assert not numpy.array_equal(to_numpy(saved["state"][0]["exp_avg"]), to_numpy(moment))
    fresh = mg.optim.Adam(model.parameters(), lr=0.01)
    fresh.load_state_dict(saved)
    numpy.testing.assert_array_equal(to_numpy(fresh.state_dict()["state"][0]["exp_avg"]),
                                     to_numpy(saved["state"][0]["exp_avg"]))
    twin = copy.deepcopy(optimiser)  # the whole optimiser (with copies of its parameters)
    assert twin.param_groups[0]["params"][0] is not model.weight


def test_matplotlib_plots_a_cpu_tensor_like_a_numpy_array():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = mg.arange(5.0, device="cpu")
    figure, axes = plt.subplots()
    try:
        (line,) = axes.plot(xs, xs ** 2)
        numpy.testing.assert_array_equal(line.get_ydata(), [0.0, 1.0, 4.0, 9.0, 16.0])
        (alone,) = axes.plot(mg.tensor([3.0, 1.0, 2.0], device="cpu"))
        numpy.testing.assert_array_equal(alone.get_ydata(), [3.0, 1.0, 2.0])
        counts, _, _ = axes.hist(mg.tensor([0.0, 0.0, 1.0], device="cpu"), bins=2)
        assert counts.tolist() == [2.0, 1.0]
        image = axes.imshow(mg.eye(3, device="cpu"))
        numpy.testing.assert_array_equal(image.get_array(), numpy.eye(3))
    finally:
        plt.close(figure)
    assert numpy.asarray(mg.tensor([1.5, 2.5], device="cpu")).tolist() == [1.5, 2.5]


# --- torch.backends ---------------------------------------------------------------------------

def test_backends_answer_as_a_pytorch_cpu_build():
    torch = require_torch()
    import minigrad.backends.cudnn
    import minigrad.backends.mps

    assert minigrad.backends.mps is mg.backends.mps and minigrad.backends.cudnn is mg.backends.cudnn
    assert mg.backends.mps.is_available() is torch.backends.mps.is_available() is False
    assert mg.backends.mps.is_built() is torch.backends.mps.is_built() is False
    assert mg.backends.mkldnn.is_available() is torch.backends.mkldnn.is_available()
    for flag in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(mg.backends.cudnn, flag) is getattr(torch.backends.cudnn, flag), flag
    for flag in ("allow_tf32", "allow_fp16_reduced_precision_reduction"):
        assert getattr(mg.backends.cuda.matmul, flag) is getattr(torch.backends.cuda.matmul, flag), flag
    assert mg.backends.cuda.is_built() is False  # no CuPy on this machine, as a CPU build
    assert mg.backends.mkldnn.enabled is True


def test_cudnn_is_available_exactly_when_minigrads_cuda_device_is(device):
    assert mg.backends.cudnn.is_available() is mg.cuda.is_available() is (device.type == "cuda")
    if device.type == "cpu":
        assert mg.backends.cudnn.version() is None


def test_backend_flags_are_settable_and_refuse_non_bools_like_pytorch():
    torch = require_torch()
    cudnn = mg.backends.cudnn
    try:
        cudnn.benchmark, cudnn.deterministic = True, True
        assert cudnn.benchmark and cudnn.deterministic
        with cudnn.flags(enabled=False):
            assert cudnn.enabled is False and cudnn.benchmark is False
        assert cudnn.enabled is True and cudnn.benchmark is True
        mg.backends.cuda.matmul.allow_tf32 = True
        assert mg.backends.cuda.matmul.allow_tf32 is True
    finally:
        cudnn.benchmark, cudnn.deterministic = False, False
        mg.backends.cuda.matmul.allow_tf32 = False
    for lib in (torch, mg):
        with pytest.raises(RuntimeError, match="expects a bool"):
            lib.backends.cudnn.benchmark = "yes"
        with pytest.raises(RuntimeError, match="expects a bool"):
            lib.backends.cuda.matmul.allow_tf32 = 1
        with pytest.raises(AttributeError, match="Unknown attribute"):
            lib.backends.cuda.matmul.allow_everything = True
    assert cudnn.benchmark is False
