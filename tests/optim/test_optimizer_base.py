"""The Optimizer base: parameter groups, zero_grad, in-place updates, and state dicts like PyTorch's."""

import warnings

import numpy
import pytest
import standin_cupy
from _torch import require_torch

import minigrad as mg

from .helpers import (
    as_numpy,
    assert_same_params,
    error_of,
    make_params,
    run,
    set_grads,
    start_and_gradients,
)

GROUPS = [([0], {"lr": 0.5}), ([1, 2], {"momentum": 0.5, "weight_decay": 0.1})]


@pytest.mark.parametrize("name, options", [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.01})])
def test_param_groups_with_their_own_options_match_torch(name, options):
    torch = require_torch()
    adam_groups = [([0], {"lr": 0.05}), ([1, 2], {"betas": (0.5, 0.9), "amsgrad": True})]
    groups = GROUPS if name == "SGD" else adam_groups
    start, grads = start_and_gradients(numpy.float64, 5)
    ours, _, optimizer = run(mg, name, start, grads, groups=groups, **options)
    theirs, _, reference = run(torch, name, start, grads, groups=groups, **options)
    assert_same_params(ours, theirs, numpy.float64)
    assert [g["lr"] for g in optimizer.param_groups] == [g["lr"] for g in reference.param_groups]


def test_one_optimizer_with_groups_equals_separate_optimizers():
    start, grads = start_and_gradients(numpy.float64, 4)
    together, _, _ = run(mg, "SGD", start, grads, groups=GROUPS, lr=0.1, momentum=0.9)
    first, _, _ = run(mg, "SGD", start[:1], [g[:1] for g in grads], lr=0.5, momentum=0.9)
    rest, _, _ = run(mg, "SGD", start[1:], [g[1:] for g in grads], lr=0.1, momentum=0.5, weight_decay=0.1)
    for a, b in zip(together, first + rest):
        numpy.testing.assert_array_equal(a, b)


def test_add_param_group_fills_defaults_and_trains_the_new_group():
    a, b = make_params(mg, [numpy.ones(2), numpy.ones(3)])
    optimizer = mg.optim.SGD([a], lr=0.1, momentum=0.9)
    optimizer.add_param_group({"params": b, "lr": 1.0})
    assert optimizer.param_groups[1]["params"] == [b]
    assert optimizer.param_groups[1]["momentum"] == 0.9 and optimizer.param_groups[1]["lr"] == 1.0
    b.grad = mg.ones(3, dtype=mg.float64)
    optimizer.step()
    numpy.testing.assert_array_equal(b.array, numpy.zeros(3))


def test_named_parameters_are_accepted_and_their_names_kept():
    a, b = make_params(mg, [numpy.ones(2), numpy.ones(3)])
    optimizer = mg.optim.SGD([("w", a), ("b", b)], lr=0.1)
    assert optimizer.param_groups[0]["params"] == [a, b]
    assert optimizer.state_dict()["param_groups"][0]["param_names"] == ["w", "b"]


@pytest.mark.parametrize("case", ["tensor", "empty", "set", "not-a-tensor", "non-leaf", "twice",
                                  "group-not-dict"])
def test_bad_parameters_raise_like_torch(case):
    torch = require_torch()
    def attempt(lib):
        p, q = make_params(lib, [numpy.ones(2), numpy.ones(2)])
        if case == "tensor":
            return lib.optim.SGD(p, lr=0.1)
        if case == "empty":
            return lib.optim.SGD([], lr=0.1)
        if case == "set":
            return lib.optim.SGD([{"params": {p}}], lr=0.1)
        if case == "not-a-tensor":
            return lib.optim.SGD([p, 3.0], lr=0.1)
        if case == "non-leaf":
            return lib.optim.SGD([p * 2], lr=0.1)
        if case == "twice":
            return lib.optim.SGD([{"params": [p, q]}, {"params": [q]}], lr=0.1)
        return lib.optim.SGD([p], lr=0.1).add_param_group([q])

    ours, theirs = error_of(lambda: attempt(mg)), error_of(lambda: attempt(torch))
    assert type(ours) is type(theirs)
    if case not in ("tensor", "not-a-tensor", "group-not-dict"):  # those name the library's own types
        assert str(ours) == str(theirs)


@pytest.mark.parametrize("name, options", [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.01})])
@pytest.mark.parametrize("saved_shape", [(3,), (1,), (2, 2)])
def test_a_loaded_state_of_another_shape_fails_the_step_like_torch(name, options, saved_shape):
    torch = require_torch()
    def attempt(lib):
        (p,) = make_params(lib, [numpy.ones(2)])
        (q,) = make_params(lib, [numpy.ones(saved_shape)])
        ours, other = getattr(lib.optim, name)([p], **options), getattr(lib.optim, name)([q], **options)
        set_grads(lib, [q], [numpy.ones(saved_shape)])
        other.step()
        ours.load_state_dict(other.state_dict())
        set_grads(lib, [p], [numpy.ones(2)])
        ours.step()

    ours, theirs = error_of(lambda: attempt(mg)), error_of(lambda: attempt(torch))
    assert type(ours) is type(theirs) is RuntimeError
    assert f"shape {list(saved_shape)}" in str(ours) and "shape [2]" in str(ours)


def test_duplicate_parameter_in_a_group_warns():
    (p,) = make_params(mg, [numpy.ones(2)])
    with pytest.warns(UserWarning, match="duplicate parameters"):
        mg.optim.SGD([p, p], lr=0.1)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    a, b = make_params(mg, [numpy.ones(2, numpy.float32), numpy.ones(3, numpy.float32)])
    optimizer = mg.optim.SGD([a, b], lr=0.1)
    (a * 3).sum().backward()
    grad = a.grad
    optimizer.zero_grad(set_to_none=set_to_none)
    assert b.grad is None
    if set_to_none:
        assert a.grad is None
    else:
        assert a.grad is grad  # the same tensor, zeroed in place
        numpy.testing.assert_array_equal(a.grad.array, [0.0, 0.0])
        assert not a.grad.requires_grad


def test_default_zero_grad_sets_none():
    (a,) = make_params(mg, [numpy.ones(2, numpy.float32)])
    optimizer = mg.optim.Adam([a])
    a.sum().backward()
    optimizer.zero_grad()
    assert a.grad is None


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_step_updates_in_place_and_bumps_the_version(name):
    (p,) = make_params(mg, [numpy.ones(3, numpy.float32)])
    array, version = p.array, p._version
    optimizer = getattr(mg.optim, name)([p], lr=0.1)
    loss = (p * p).sum()  # saves p for backward
    loss.backward(retain_graph=True)
    optimizer.step()
    assert p.array is array and p._version == version + 1
    assert not numpy.array_equal(array, numpy.ones(3))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()  # p changed since it was saved: the old graph must refuse


def test_repr_lists_group_options_like_torch():
    torch = require_torch()
    ours = repr(mg.optim.Adam(make_params(mg, [numpy.ones(2)]), lr=0.1))
    theirs = repr(torch.optim.Adam(make_params(torch, [numpy.ones(2)]), lr=0.1))
    assert ours == theirs


# --- state dicts ---------------------------------------------------------------------------------

SETUPS = [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.2, "weight_decay": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.01, "betas": (0.3, 0.99)}),  # beta1 < 0.5: the other form of lerp
]


@pytest.mark.parametrize("name, options", SETUPS)
def test_state_dict_has_torchs_structure_and_values(name, options):
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float32, 3)
    _, _, ours = run(mg, name, start, grads, groups=[([0, 2], {}), ([1], {"lr": 0.5})], **options)
    _, _, theirs = run(torch, name, start, grads, groups=[([0, 2], {}), ([1], {"lr": 0.5})], **options)
    ours, theirs = ours.state_dict(), theirs.state_dict()
    assert list(ours) == list(theirs) == ["state", "param_groups"]
    assert ours["param_groups"] == theirs["param_groups"]  # options and [0, 1] / [2] indices
    assert list(ours["state"]) == list(theirs["state"])
    for index, state in theirs["state"].items():
        assert list(ours["state"][index]) == list(state)
        for key, value in state.items():
            assert ours["state"][index][key].dtype.name == str(value.dtype).removeprefix("torch.")
            numpy.testing.assert_allclose(as_numpy(ours["state"][index][key]), value.numpy(),
                                          rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, options", SETUPS)
def test_state_dict_round_trip_through_a_file_continues_exactly(name, options, tmp_path):
    start, grads = start_and_gradients(numpy.float64, 8)
    groups = [([0], {"lr": 0.05}), ([1, 2], {})]
    uninterrupted, _, _ = run(mg, name, start, grads, groups=groups, **options)

    halfway, _, optimizer = run(mg, name, start, grads[:4], groups=groups, **options)
    mg.save({"optimizer": optimizer.state_dict()}, tmp_path / "checkpoint.mg")
    del optimizer
    resumed, _, fresh = run(mg, name, halfway, [], groups=groups, **options)
    fresh.load_state_dict(mg.load(tmp_path / "checkpoint.mg")["optimizer"])
    new_params = [p for group in fresh.param_groups for p in group["params"]]
    for step_grads in grads[4:]:
        set_grads(mg, new_params, step_grads)
        fresh.step()
    for a, p in zip(uninterrupted, new_params, strict=True):
        numpy.testing.assert_array_equal(a, as_numpy(p))  # bit for bit: the same arithmetic


def test_load_state_dict_from_torch_continues_like_torch():
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float32, 6)
    options = {"lr": 0.01, "amsgrad": True}
    theirs, _, _ = run(torch, "Adam", start, grads, **options)
    halfway, _, reference = run(torch, "Adam", start, grads[:3], **options)
    saved = reference.state_dict()
    converted = {"state": {i: {k: mg.tensor(v.numpy()) for k, v in state.items()}
                           for i, state in saved["state"].items()},
                 "param_groups": saved["param_groups"]}
    _, params, optimizer = run(mg, "Adam", halfway, [], **options)
    optimizer.load_state_dict(converted)
    for step_grads in grads[3:]:
        set_grads(mg, params, step_grads)
        optimizer.step()
    assert_same_params([as_numpy(p) for p in params], theirs, numpy.float32)


def test_load_state_dict_casts_state_to_the_parameters_dtype_but_not_step():
    start, grads = start_and_gradients(numpy.float64, 2)
    _, _, source = run(mg, "Adam", start, grads)
    _, params, target = run(mg, "Adam", [a.astype(numpy.float32) for a in start], [])
    target.load_state_dict(source.state_dict())
    state = target.state[params[0]]
    assert state["exp_avg"].dtype is mg.float32 and state["step"].dtype is mg.float32


@pytest.mark.parametrize("change", ["groups", "sizes"])
def test_load_state_dict_refuses_a_different_layout(change):
    a, b = make_params(mg, [numpy.ones(2), numpy.ones(2)])
    saved = mg.optim.SGD([a, b], lr=0.1).state_dict()
    layout = [{"params": [a]}, {"params": [b]}] if change == "groups" else [a]
    with pytest.raises(ValueError, match="parameter group"):
        mg.optim.SGD(layout, lr=0.1).load_state_dict(saved)


# --- the same updates on the 'cuda' device (the strict CuPy stand-in) --------------------------

@pytest.fixture
def standin():
    standin_cupy.install()
    yield
    standin_cupy.uninstall()


@pytest.mark.parametrize("name, options", SETUPS)
def test_updates_on_the_cuda_standin_equal_the_cpu(name, options, standin):
    start, grads = start_and_gradients(numpy.float32, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        on_gpu, params, optimizer = run(mg, name, start, grads, device="cuda", **options)
    on_cpu, _, _ = run(mg, name, start, grads, **options)
    assert all(p.device.type == "cuda" for p in params)
    for a, b in zip(on_gpu, on_cpu):
        numpy.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
