"""Regression tests from an audit of the optimisers and schedulers against PyTorch.

Pinned here: a state dict saved before an option existed (no ``'maximize'``, ``'amsgrad'``
...) loads and trains as in PyTorch, which fills the missing options with their defaults;
a state dict of another optimiser gains this one's options; and two messages that now
match PyTorch's.
"""

import numpy
import pytest
from _torch import require_torch

import minigrad as mg

from .helpers import as_numpy, assert_same_params, make_params, run, set_grads, start_and_gradients

OLDER_OPTIONS = {"SGD": ("nesterov", "maximize", "foreach", "differentiable", "fused"),
                 "Adam": ("amsgrad", "maximize", "foreach", "capturable", "differentiable",
                          "decoupled_weight_decay", "fused")}


def _to_minigrad(saved: dict) -> dict:
    state = {i: {k: mg.tensor(v.numpy()) for k, v in s.items()} for i, s in saved["state"].items()}
    return {"state": state, "param_groups": saved["param_groups"]}


@pytest.mark.parametrize("name, options", [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.01})])
def test_a_state_dict_without_newer_options_loads_and_trains_like_torch(name, options):
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float32, 6)
    _, _, reference = run(torch, name, start, grads[:3], **options)
    saved = reference.state_dict()
    for group in saved["param_groups"]:
        for key in OLDER_OPTIONS[name]:
            del group[key]
    halfway = [as_numpy(p) for p in reference.param_groups[0]["params"]]

    results = []
    for lib, state_dict in ((torch, saved), (mg, _to_minigrad(saved))):
        params = make_params(lib, halfway)
        optimizer = getattr(lib.optim, name)(params, **options)
        optimizer.load_state_dict(state_dict)
        assert set(optimizer.param_groups[0]) >= set(OLDER_OPTIONS[name])
        for step_grads in grads[3:]:
            set_grads(lib, params, step_grads)
            optimizer.step()
        results.append(([as_numpy(p) for p in params], optimizer.param_groups[0]))
    (ours, our_group), (theirs, their_group) = results[1], results[0]
    assert_same_params(ours, theirs, numpy.float32)
    assert {k: our_group[k] for k in OLDER_OPTIONS[name]} == {k: their_group[k] for k in OLDER_OPTIONS[name]}


def test_adam_state_dict_loaded_into_sgd_gains_sgds_options_like_torch():
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float32, 2)
    keys = []
    for lib in (mg, torch):
        _, _, adam = run(lib, "Adam", start, grads, lr=0.1)
        sgd = lib.optim.SGD(make_params(lib, start), lr=0.3)
        sgd.load_state_dict(adam.state_dict())
        keys.append(sorted(sgd.param_groups[0]))
    assert keys[0] == keys[1]
    assert "nesterov" in keys[0]


def test_adam_step_counted_with_a_plain_number_becomes_a_tensor():
    a, = make_params(mg, [numpy.ones(2, numpy.float32)])
    optimizer = mg.optim.Adam([a], lr=0.1)
    zeros = mg.zeros(2)
    optimizer.load_state_dict({"state": {0: {"step": 3, "exp_avg": zeros, "exp_avg_sq": zeros}},
                               "param_groups": [{**optimizer.state_dict()["param_groups"][0]}]})
    step = optimizer.state[a]["step"]
    assert isinstance(step, mg.Tensor) and step.dtype is mg.float32 and float(step) == 3.0


def test_add_param_group_of_a_non_dict_names_the_class_like_torch():
    torch = require_torch()
    a, b = make_params(mg, [numpy.ones(2), numpy.ones(2)])
    optimizer = mg.optim.SGD([a], lr=0.1)
    with pytest.raises(TypeError, match=r"param_group must be a dict, but got <class 'list'>"):
        optimizer.add_param_group([b])
    p = torch.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=r"param_group must be a dict, but got <class 'list'>"):
        torch.optim.SGD([torch.ones(2, requires_grad=True)], lr=0.1).add_param_group([p])


@pytest.mark.parametrize("scheduler", ["StepLR", "CosineAnnealingLR"])
def test_resuming_a_scheduler_without_initial_lr_explains_like_torch(scheduler):
    torch = require_torch()
    pattern = r"param 'initial_lr' is not specified in param_groups\[0\].*resume training from a checkpoint"
    for lib in (mg, torch):
        optimizer = lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=0.1)
        with pytest.raises(KeyError, match=pattern):
            getattr(lib.optim.lr_scheduler, scheduler)(optimizer, 3, last_epoch=4)
