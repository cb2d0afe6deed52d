"""RMSprop, Adagrad and Adadelta against torch.optim: every option, param groups, state dicts, errors.

The update rules are compared on hand-set gradients (helpers.both), on a quadratic and on a
small Linear model trained by each library's own autograd, and by hand on a first step.
"""

import itertools
import warnings

import numpy
import pytest
import standin_cupy
from _torch import require_torch

import minigrad as mg

from .helpers import (
    as_numpy,
    assert_same_params,
    both,
    described,
    error_of,
    make_params,
    run,
    set_grads,
    start_and_gradients,
    torch_error,
)

NAMES = ["RMSprop", "Adagrad", "Adadelta"]


def _id(options):
    return "-".join(f"{k}={v}" for k, v in options.items()).replace(" ", "") or "defaults"


RMSPROP = [
    {"lr": 0.01, "momentum": m, "centered": c, "weight_decay": wd, "maximize": mx}
    for m, c, wd, mx in itertools.product([0, 0.9], [False, True], [0, 0.1], [False, True])
] + [
    {"lr": 0.01, "alpha": 0.3, "centered": True},  # 1 - alpha >= 0.5: the other form of PyTorch's lerp
    {"lr": 0.05, "alpha": 0.5, "eps": 0.1, "momentum": 0.5},
    {},
]
ADAGRAD = [
    {"lr": 0.1, "lr_decay": d, "weight_decay": wd, "initial_accumulator_value": tau, "maximize": mx}
    for d, wd, tau, mx in itertools.product([0, 0.1], [0, 0.1], [0, 0.5], [False, True])
] + [{"lr": 0.1, "eps": 0.5}, {}]
ADADELTA = [
    {"rho": rho, "eps": eps, "weight_decay": wd, "maximize": mx}
    for rho, eps, wd, mx in itertools.product([0.9, 0.5], [1e-6, 1e-2], [0, 0.1], [False, True])
] + [{"lr": 0.1, "rho": 1.0}, {"rho": 0.0}, {}]
COMBOS = [("RMSprop", o) for o in RMSPROP] + [("Adagrad", o) for o in ADAGRAD] + [
    ("Adadelta", o) for o in ADADELTA]


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("name, options", COMBOS, ids=[f"{n}-{_id(o)}" for n, o in COMBOS])
def test_matches_torch_on_the_same_gradients(name, options, dtype):
    both(name, dtype, steps=6, **options)


# --- real training: gradients from each library's own autograd ---------------------------------------

SOME = {"RMSprop": [{"lr": 0.01}, {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.01}],
        "Adagrad": [{"lr": 0.1}, {"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.1}],
        "Adadelta": [{}, {"lr": 0.5, "rho": 0.8, "weight_decay": 0.01}]}
TRAINING = [(name, options) for name, options_list in SOME.items() for options in options_list]


def _train_linear(lib, name, options, steps=5):
    """A 4 -> 3 Linear model on a fixed batch, MSE loss; returns the losses, weight and bias."""
    rng = numpy.random.default_rng(3)
    weight, bias = rng.standard_normal((3, 4)), rng.standard_normal(3)
    x, y = lib.tensor(rng.standard_normal((8, 4))), lib.tensor(rng.standard_normal((8, 3)))
    model = lib.nn.Linear(4, 3).double()
    with lib.no_grad():
        model.weight.copy_(lib.tensor(weight))
        model.bias.copy_(lib.tensor(bias))
    optimizer = getattr(lib.optim, name)(model.parameters(), **options)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = lib.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, as_numpy(model.weight), as_numpy(model.bias)


@pytest.mark.parametrize("name, options", TRAINING, ids=[f"{n}-{_id(o)}" for n, o in TRAINING])
def test_training_a_linear_model_matches_torch(name, options):
    torch = require_torch()
    our_losses, *ours = _train_linear(mg, name, options)
    their_losses, *theirs = _train_linear(torch, name, options)
    numpy.testing.assert_allclose(our_losses, their_losses, rtol=1e-12)
    assert_same_params(ours, theirs, numpy.float64)
    assert our_losses[-1] < our_losses[0]  # it does train


def _minimise_quadratic(lib, name, options, steps=5):
    """f(x) = sum(a * x²) / 2 - sum(b * x), a > 0, from a fixed start; returns x."""
    rng = numpy.random.default_rng(4)
    a, b = lib.tensor(rng.uniform(0.5, 2.0, 6)), lib.tensor(rng.standard_normal(6))
    x = lib.tensor(rng.standard_normal(6), requires_grad=True)
    optimizer = getattr(lib.optim, name)([x], **options)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = (a * x * x).sum() / 2 - (b * x).sum()
        loss.backward()
        optimizer.step()
    return as_numpy(x)


@pytest.mark.parametrize("name, options", TRAINING, ids=[f"{n}-{_id(o)}" for n, o in TRAINING])
def test_minimising_a_quadratic_matches_torch(name, options):
    torch = require_torch()
    assert_same_params([_minimise_quadratic(mg, name, options)], [_minimise_quadratic(torch, name, options)],
                       numpy.float64)


# --- first steps by hand (independent of PyTorch) ---------------------------------------------------

G = numpy.array([3.0, -0.5, 1e-3])


def _one_step(name, **options):
    p = mg.tensor(numpy.ones(3), requires_grad=True)
    optimizer = getattr(mg.optim, name)([p], **options)
    p.grad = mg.tensor(G)
    optimizer.step()
    return p.array, optimizer.state[p]


def test_rmsprop_first_step_by_hand():
    # v = (1 - alpha) g²; theta = 1 - lr * g / (sqrt(v) + eps)
    value, state = _one_step("RMSprop", lr=0.1, alpha=0.75)
    numpy.testing.assert_allclose(state["square_avg"].array, 0.25 * G**2, rtol=1e-15)
    numpy.testing.assert_allclose(value, 1 - 0.1 * G / (0.5 * numpy.abs(G) + 1e-8), rtol=1e-14)


def test_centered_rmsprop_first_step_by_hand():
    # m = (1 - alpha) g, v~ = (1 - alpha) g² - m² = alpha (1 - alpha) g²
    value, state = _one_step("RMSprop", lr=0.1, alpha=0.75, centered=True)
    numpy.testing.assert_allclose(state["grad_avg"].array, 0.25 * G, rtol=1e-15)
    expected = 1 - 0.1 * G / (numpy.sqrt(0.75 * 0.25) * numpy.abs(G) + 1e-8)
    numpy.testing.assert_allclose(value, expected, rtol=1e-14)


def test_adagrad_first_steps_by_hand():
    # s = tau + g²; theta = 1 - lr * g / (sqrt(s) + eps); on step 2 the rate is lr / (1 + lr_decay)
    p = mg.tensor(numpy.ones(3), requires_grad=True)
    optimizer = mg.optim.Adagrad([p], lr=0.1, lr_decay=0.5, initial_accumulator_value=1.0)
    expected, total = numpy.ones(3), numpy.ones(3)
    for rate in (0.1, 0.1 / 1.5):
        p.grad = mg.tensor(G)
        optimizer.step()
        total = total + G**2
        expected = expected - rate * G / (numpy.sqrt(total) + 1e-10)
        numpy.testing.assert_allclose(p.array, expected, rtol=1e-14)
        numpy.testing.assert_allclose(optimizer.state[p]["sum"].array, total, rtol=1e-15)


def test_adadelta_first_step_by_hand():
    # v = (1 - rho) g²; delta = sqrt(eps) / sqrt(v + eps) * g; u = (1 - rho) delta²
    value, state = _one_step("Adadelta", lr=1.0, rho=0.9, eps=1e-2)
    delta = numpy.sqrt(1e-2) / numpy.sqrt(0.1 * G**2 + 1e-2) * G
    numpy.testing.assert_allclose(value, 1 - delta, rtol=1e-14)
    numpy.testing.assert_allclose(state["acc_delta"].array, 0.1 * delta**2, rtol=1e-14)


# --- parameter groups ---------------------------------------------------------------------------

GROUPS = {
    "RMSprop": [([0], {"lr": 0.05, "centered": True}), ([1, 2], {"momentum": 0.5, "alpha": 0.9,
                                                               "weight_decay": 0.1})],
    # A group's own initial_accumulator_value is ignored by PyTorch: the constructor's counts.
    "Adagrad": [([0], {"lr": 0.5, "lr_decay": 0.1}), ([1, 2], {"initial_accumulator_value": 0.3, "eps": 1e-3,
                                                              "maximize": True})],
    "Adadelta": [([0], {"lr": 0.5, "rho": 0.5}), ([1, 2], {"eps": 1e-3, "weight_decay": 0.1})],
}
DEFAULTS = {"RMSprop": {"lr": 0.01, "momentum": 0.9},
            "Adagrad": {"lr": 0.1, "initial_accumulator_value": 0.1},
            "Adadelta": {"lr": 1.0}}


@pytest.mark.parametrize("name", NAMES)
def test_param_groups_with_their_own_options_match_torch(name):
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float64, 5)
    ours, _, optimizer = run(mg, name, start, grads, groups=GROUPS[name], **DEFAULTS[name])
    theirs, _, reference = run(torch, name, start, grads, groups=GROUPS[name], **DEFAULTS[name])
    assert_same_params(ours, theirs, numpy.float64)
    ours_alone, _, _ = run(mg, name, start, grads, **DEFAULTS[name])
    assert not numpy.allclose(ours[0], ours_alone[0])  # the groups' options made a difference
    assert repr(optimizer.state_dict()["param_groups"]) == repr(reference.state_dict()["param_groups"])


def test_adagrad_group_added_later_starts_from_the_constructors_accumulator_like_torch():
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float64, 4, shapes=[(3,), (2,)])
    results = []
    for lib in (mg, torch):
        a, b = make_params(lib, start)
        optimizer = lib.optim.Adagrad([a], lr=0.1, initial_accumulator_value=0.2)
        optimizer.add_param_group({"params": [b], "initial_accumulator_value": 5.0})
        assert len(optimizer.state) == 1  # only the constructor's parameters get state up front
        for step_grads in grads:
            set_grads(lib, [a, b], step_grads)
            optimizer.step()
        numpy.testing.assert_allclose(as_numpy(optimizer.state[b]["sum"]),
                                      0.2 + sum(g[1] ** 2 for g in grads), rtol=1e-14)
        results.append([as_numpy(a), as_numpy(b)])
    assert_same_params(results[0], results[1], numpy.float64)


# --- state dicts ------------------------------------------------------------------------------------

SETUPS = [
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.01}),
    ("RMSprop", {"lr": 0.01}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.1, "initial_accumulator_value": 0.1}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.01}),
]
SPLIT = [([0, 2], {}), ([1], {"lr": 0.5})]


@pytest.mark.parametrize("name, options", SETUPS, ids=[f"{n}-{_id(o)}" for n, o in SETUPS])
@pytest.mark.parametrize("steps", [0, 3])
def test_state_dict_has_torchs_keys_and_values(name, options, steps):
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float32, steps)
    _, _, ours = run(mg, name, start, grads, groups=SPLIT, **options)
    _, _, theirs = run(torch, name, start, grads, groups=SPLIT, **options)
    ours, theirs = ours.state_dict(), theirs.state_dict()
    assert list(ours) == list(theirs) == ["state", "param_groups"]
    assert repr(ours["param_groups"]) == repr(theirs["param_groups"])  # same options, same order
    assert list(ours["state"]) == list(theirs["state"])  # Adagrad: every parameter, even before a step
    for index, state in theirs["state"].items():
        assert list(ours["state"][index]) == list(state)
        for key, value in state.items():
            assert ours["state"][index][key].dtype.name == str(value.dtype).removeprefix("torch.")
            assert ours["state"][index][key].device.type == "cpu"
            numpy.testing.assert_allclose(as_numpy(ours["state"][index][key]), value.numpy(),
                                          rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("default", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", NAMES)
def test_step_is_counted_in_a_0d_tensor_of_torchs_dtype(name, default):
    start, grads = start_and_gradients(numpy.float32, 3)
    previous = mg.get_default_dtype()
    mg.set_default_dtype(default)
    try:
        _, params, optimizer = run(mg, name, start, grads)
    finally:
        mg.set_default_dtype(previous)
    step = optimizer.state[params[0]]["step"]
    assert step.dtype is default and step.shape == () and step.item() == 3.0


@pytest.mark.parametrize("name, options", SETUPS, ids=[f"{n}-{_id(o)}" for n, o in SETUPS])
def test_loading_into_a_fresh_optimizer_continues_like_uninterrupted_torch(name, options, tmp_path):
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float64, 8)
    theirs, _, _ = run(torch, name, start, grads, groups=SPLIT, **options)

    halfway, _, optimizer = run(mg, name, start, grads[:4], groups=SPLIT, **options)
    mg.save({"optimizer": optimizer.state_dict()}, tmp_path / "checkpoint.mg")
    del optimizer
    _, params, fresh = run(mg, name, halfway, [], groups=SPLIT, **options)
    fresh.load_state_dict(mg.load(tmp_path / "checkpoint.mg")["optimizer"])
    for step_grads in grads[4:]:
        set_grads(mg, params, step_grads)
        fresh.step()
    assert_same_params([as_numpy(p) for p in params], theirs, numpy.float64)


@pytest.mark.parametrize("name, options", SETUPS, ids=[f"{n}-{_id(o)}" for n, o in SETUPS])
def test_state_dict_round_trip_continues_bit_for_bit(name, options):
    start, grads = start_and_gradients(numpy.float64, 6)
    uninterrupted, _, _ = run(mg, name, start, grads, **options)
    halfway, _, optimizer = run(mg, name, start, grads[:3], **options)
    _, params, fresh = run(mg, name, halfway, [], **options)
    fresh.load_state_dict(optimizer.state_dict())
    assert repr(fresh.state_dict()["param_groups"]) == repr(optimizer.state_dict()["param_groups"])
    for step_grads in grads[3:]:
        set_grads(mg, params, step_grads)
        fresh.step()
    for a, p in zip(uninterrupted, params, strict=True):
        numpy.testing.assert_array_equal(a, as_numpy(p))


@pytest.mark.parametrize("name, options", SETUPS, ids=[f"{n}-{_id(o)}" for n, o in SETUPS])
def test_a_state_dict_from_torch_loads_and_continues_like_torch(name, options):
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float32, 6)
    theirs, _, _ = run(torch, name, start, grads, **options)
    halfway, _, reference = run(torch, name, start, grads[:3], **options)
    saved = reference.state_dict()
    converted = {"state": {i: {k: mg.tensor(v.numpy()) for k, v in state.items()}
                           for i, state in saved["state"].items()},
                 "param_groups": saved["param_groups"]}
    _, params, optimizer = run(mg, name, halfway, [], **options)
    optimizer.load_state_dict(converted)
    for step_grads in grads[3:]:
        set_grads(mg, params, step_grads)
        optimizer.step()
    assert_same_params([as_numpy(p) for p in params], theirs, numpy.float32)


OLDER_OPTIONS = {"RMSprop": ("momentum", "centered", "foreach", "maximize", "differentiable", "capturable"),
                 "Adagrad": ("foreach", "maximize", "differentiable", "fused"),
                 "Adadelta": ("foreach", "maximize", "differentiable", "capturable")}


@pytest.mark.parametrize("name", NAMES)
def test_an_older_state_dict_gains_the_missing_options_and_a_tensor_step_like_torch(name):
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float32, 5)
    _, _, reference = run(torch, name, start, grads[:2], lr=0.1)
    saved = reference.state_dict()
    for group in saved["param_groups"]:
        for key in OLDER_OPTIONS[name]:
            del group[key]
    halfway = [as_numpy(p) for p in reference.param_groups[0]["params"]]

    results = []
    for lib in (torch, mg):
        state = {i: {k: (v.item() if k == "step" else lib.tensor(v.numpy())) for k, v in s.items()}
                 for i, s in saved["state"].items()}  # steps counted in plain numbers, as long ago
        params = make_params(lib, halfway)
        optimizer = getattr(lib.optim, name)(params, lr=0.1, momentum=0.5) if name == "RMSprop" else \
            getattr(lib.optim, name)(params, lr=0.1)
        optimizer.load_state_dict({"state": state, "param_groups": saved["param_groups"]})
        step = optimizer.state[params[0]]["step"]
        assert isinstance(step, lib.Tensor) and step.item() == 2.0
        for step_grads in grads[2:]:
            set_grads(lib, params, step_grads)
            optimizer.step()
        results.append(([as_numpy(p) for p in params], optimizer.param_groups[0]))
    (theirs, their_group), (ours, our_group) = results
    assert_same_params(ours, theirs, numpy.float32)
    assert {k: our_group[k] for k in OLDER_OPTIONS[name]} == {k: their_group[k] for k in OLDER_OPTIONS[name]}


@pytest.mark.parametrize("name", NAMES)
def test_a_loaded_state_of_another_shape_fails_the_step_like_torch(name):
    torch = require_torch()
    def attempt(lib):
        (p,) = make_params(lib, [numpy.ones(2)])
        (q,) = make_params(lib, [numpy.ones(3)])
        ours, other = getattr(lib.optim, name)([p]), getattr(lib.optim, name)([q])
        set_grads(lib, [q], [numpy.ones(3)])
        other.step()
        ours.load_state_dict(other.state_dict())
        set_grads(lib, [p], [numpy.ones(2)])
        ours.step()

    ours, theirs = error_of(lambda: attempt(mg)), error_of(lambda: attempt(torch))
    assert type(ours) is type(theirs) is RuntimeError
    assert "shape [3]" in str(ours) and "shape [2]" in str(ours)


# --- the rest of the Optimizer surface -------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(name, set_to_none):
    a, b = make_params(mg, [numpy.ones(2, numpy.float32), numpy.ones(3, numpy.float32)])
    optimizer = getattr(mg.optim, name)([a, b])
    (a * 3).sum().backward()
    grad = a.grad
    optimizer.zero_grad(set_to_none=set_to_none)
    assert b.grad is None
    if set_to_none:
        assert a.grad is None
    else:
        assert a.grad is grad
        numpy.testing.assert_array_equal(a.grad.array, [0.0, 0.0])


@pytest.mark.parametrize("name", NAMES)
def test_step_skips_parameters_without_gradient_and_returns_the_closures_loss(name):
    torch = require_torch()
    results = []
    for lib in (mg, torch):
        a, b = make_params(lib, [numpy.ones(2), numpy.ones(2)])
        optimizer = getattr(lib.optim, name)([a, b])
        a.grad = lib.tensor([1.0, -1.0], dtype=lib.float64)
        assert optimizer.step(lambda: 42.0) == 42.0
        assert as_numpy(b).tolist() == [1.0, 1.0]
        results.append((as_numpy(a), sorted(optimizer.state_dict()["state"])))
    numpy.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-14)
    assert results[0][1] == results[1][1]  # Adagrad holds state for b too, the others do not


@pytest.mark.parametrize("name", NAMES)
def test_step_updates_in_place_and_bumps_the_version(name):
    (p,) = make_params(mg, [numpy.ones(3, numpy.float32)])
    array, version = p.array, p._version
    optimizer = getattr(mg.optim, name)([p], lr=0.1)
    loss = (p * p).sum()
    loss.backward(retain_graph=True)
    optimizer.step()
    assert p.array is array and p._version == version + 1
    assert not numpy.array_equal(array, numpy.ones(3))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


REPRS = [("RMSprop", {}), ("RMSprop", {"lr": 0.1, "momentum": 0.9, "centered": True}), ("Adagrad", {}),
         ("Adagrad", {"lr_decay": 0.01, "foreach": False}), ("Adadelta", {}),
         ("Adadelta", {"rho": 0.95, "eps": 1e-7, "maximize": True})]


@pytest.mark.parametrize("name, options", REPRS, ids=[f"{n}-{_id(o)}" for n, o in REPRS])
def test_repr_and_defaults_are_torchs(name, options):
    torch = require_torch()
    ours = getattr(mg.optim, name)(make_params(mg, [numpy.ones(2)]), **options)
    theirs = getattr(torch.optim, name)(make_params(torch, [numpy.ones(2)]), **options)
    assert repr(ours) == repr(theirs)
    assert ours.defaults == theirs.defaults


@pytest.mark.parametrize("name", NAMES)
def test_a_one_element_tensor_lr_trains_like_torch(name):
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float64, 3)
    ours, _, _ = run(mg, name, start, grads, lr=mg.tensor(0.25, dtype=mg.float64))
    theirs, _, _ = run(torch, name, start, grads, lr=torch.tensor(0.25, dtype=torch.float64))
    assert_same_params(ours, theirs, numpy.float64)


INVALID = [
    ("RMSprop", {"lr": -1}), ("RMSprop", {"eps": -1e-8}), ("RMSprop", {"momentum": -0.5}),
    ("RMSprop", {"weight_decay": -1}), ("RMSprop", {"alpha": -0.1}),
    ("Adagrad", {"lr": -1}), ("Adagrad", {"lr_decay": -0.1}), ("Adagrad", {"weight_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -1}), ("Adagrad", {"eps": -1e-10}),
    ("Adadelta", {"lr": -1}), ("Adadelta", {"rho": 1.5}), ("Adadelta", {"rho": -0.1}),
    ("Adadelta", {"eps": -1e-6}), ("Adadelta", {"weight_decay": -1}),
    ("RMSprop", {"lr": "two"}), ("Adagrad", {"lr": "two"}), ("Adadelta", {"lr": "two"}),
]


@pytest.mark.parametrize("name, options", INVALID, ids=[f"{n}-{_id(o)}" for n, o in INVALID])
def test_rejects_what_torch_rejects_with_the_same_message(name, options):
    ours = error_of(lambda: getattr(mg.optim, name)(make_params(mg, [numpy.zeros(2)]), **options))
    theirs = torch_error(lambda torch: getattr(torch.optim, name)(make_params(torch, [numpy.zeros(2)]),
                                                                  **options))
    assert described(ours) == theirs


@pytest.mark.parametrize("name", NAMES)
def test_a_tensor_lr_of_two_elements_is_refused_like_torch(name):
    ours = error_of(lambda: getattr(mg.optim, name)(make_params(mg, [numpy.zeros(2)]), lr=mg.ones(2)))
    theirs = torch_error(lambda torch: getattr(torch.optim, name)(make_params(torch, [numpy.zeros(2)]),
                                                                  lr=torch.ones(2)))
    assert described(ours) == theirs
    assert isinstance(ours, ValueError)
    assert str(ours) == "Tensor lr must be 1-element"


UNSUPPORTED = [("RMSprop", "capturable"), ("RMSprop", "differentiable"), ("Adagrad", "differentiable"),
               ("Adadelta", "capturable"), ("Adadelta", "differentiable")]


@pytest.mark.parametrize("name, option", UNSUPPORTED)
def test_options_minigrad_cannot_honour_raise_not_implemented(name, option):
    with pytest.raises(NotImplementedError, match=f"minigrad's {name} does not support.*{option}=True"):
        getattr(mg.optim, name)(make_params(mg, [numpy.zeros(2)]), **{option: True})


FOREACH = [("RMSprop", {"foreach": True}), ("Adagrad", {"foreach": True}), ("Adagrad", {"fused": True}),
           ("Adadelta", {"foreach": True})]


@pytest.mark.parametrize("name, options", FOREACH, ids=[f"{n}-{_id(o)}" for n, o in FOREACH])
def test_foreach_and_fused_are_accepted_and_change_nothing(name, options):
    start, grads = start_and_gradients(numpy.float64, 4)
    ours, _, optimizer = run(mg, name, start, grads, **options)
    plain, _, _ = run(mg, name, start, grads)
    for a, b in zip(ours, plain):
        numpy.testing.assert_array_equal(a, b)
    assert all(optimizer.param_groups[0][key] is value for key, value in options.items())


def test_adagrad_refuses_fused_with_foreach_like_torch():
    ours = error_of(lambda: mg.optim.Adagrad(make_params(mg, [numpy.zeros(2)]), foreach=True, fused=True))
    theirs = torch_error(lambda torch: torch.optim.Adagrad(make_params(torch, [numpy.zeros(2)]), foreach=True,
                                                  fused=True))
    assert described(ours) == theirs
    assert isinstance(ours, RuntimeError)


def test_the_new_optimizers_are_exported():
    assert {"RMSprop", "Adagrad", "Adadelta"} <= set(mg.optim.__all__)
    for name in NAMES:
        assert issubclass(getattr(mg.optim, name), mg.optim.Optimizer)


# --- the same updates on the 'cuda' device (the strict CuPy stand-in) ------------------------------

@pytest.fixture
def standin():
    standin_cupy.install()
    yield
    standin_cupy.uninstall()


@pytest.mark.parametrize("name, options", SETUPS, ids=[f"{n}-{_id(o)}" for n, o in SETUPS])
def test_updates_on_the_cuda_standin_equal_the_cpu(name, options, standin):
    start, grads = start_and_gradients(numpy.float32, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        on_gpu, params, optimizer = run(mg, name, start, grads, device="cuda", **options)
    on_cpu, _, _ = run(mg, name, start, grads, **options)
    assert all(p.device.type == "cuda" for p in params)
    state = optimizer.state[params[0]]
    assert state["step"].device.type == "cpu"
    assert all(value.device.type == "cuda" for key, value in state.items() if key != "step")
    for a, b in zip(on_gpu, on_cpu):
        numpy.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
