"""Adam and AdamW against torch.optim: weight decay, amsgrad, maximize, small and large betas."""

import itertools

import numpy
import pytest
from _torch import require_torch

import minigrad as mg

from .helpers import both, described, error_of, make_params, run, start_and_gradients, torch_error

COMBOS = [
    {"weight_decay": wd, "amsgrad": ams, "maximize": mx, "betas": betas}
    for wd, ams, mx, betas in itertools.product([0, 0.1], [False, True], [False, True],
                                                [(0.9, 0.999), (0.3, 0.6)])
]  # beta1 = 0.3 takes the other branch of PyTorch's lerp (weight 1 - beta1 >= 0.5)


def _id(options):
    return "-".join(f"{k}={v}" for k, v in options.items()).replace(" ", "")


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("options", COMBOS, ids=_id)
def test_adam_matches_torch(options, dtype):
    both("Adam", dtype, steps=8, lr=0.01, **options)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("options", [{}, {"weight_decay": 0.1, "amsgrad": True}, {"maximize": True}], ids=_id)
def test_adamw_matches_torch(options, dtype):
    both("AdamW", dtype, steps=8, lr=0.01, **options)


def test_adam_with_decoupled_weight_decay_is_adamw():
    start, grads = start_and_gradients(numpy.float64, 5)
    adam, _, _ = run(mg, "Adam", start, grads, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)
    adamw, _, _ = run(mg, "AdamW", start, grads, lr=0.01, weight_decay=0.1)
    plain, _, _ = run(mg, "Adam", start, grads, lr=0.01, weight_decay=0.1)
    for a, b, c in zip(adam, adamw, plain):
        numpy.testing.assert_array_equal(a, b)
        assert not numpy.allclose(a, c)


def test_adam_first_step_moves_each_weight_by_lr_against_the_gradient_sign():
    # Bias correction makes m_hat = g and v_hat = g^2 on step 1: the update is lr * g / (|g| + eps).
    p = mg.tensor([1.0, 1.0, 1.0], dtype=mg.float64, requires_grad=True)
    optimizer = mg.optim.Adam([p], lr=0.1)
    p.grad = mg.tensor([3.0, -0.5, 1e-3], dtype=mg.float64)
    optimizer.step()
    expected = 1.0 - 0.1 * numpy.array([3.0, -0.5, 1e-3]) / (numpy.abs([3.0, -0.5, 1e-3]) + 1e-8)
    numpy.testing.assert_allclose(p.array, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("default", [mg.float32, mg.float64])
def test_adam_counts_steps_in_state_like_torch(default):
    start, grads = start_and_gradients(numpy.float32, 3)
    previous = mg.get_default_dtype()
    mg.set_default_dtype(default)
    try:
        _, params, optimizer = run(mg, "Adam", start, grads, lr=0.01, amsgrad=True)
    finally:
        mg.set_default_dtype(previous)
    state = optimizer.state[params[0]]
    assert list(state) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert state["step"].item() == 3.0
    assert state["step"].dtype is default and state["step"].shape == ()
    assert state["exp_avg"].dtype is mg.float32 and state["exp_avg"].shape == params[0].shape


@pytest.mark.parametrize("options", [
    {"lr": -1}, {"eps": -1e-8}, {"betas": (1.0, 0.999)}, {"betas": (0.9, -0.1)}, {"weight_decay": -1},
], ids=["lr", "eps", "beta1", "beta2", "weight_decay"])
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_rejects_what_torch_rejects_with_the_same_message(name, options):
    ours = error_of(lambda: getattr(mg.optim, name)(make_params(mg, [numpy.zeros(2)]), **options))
    theirs = torch_error(lambda torch: getattr(torch.optim, name)(make_params(torch, [numpy.zeros(2)]),
                                                                  **options))
    assert described(ours) == theirs
    assert isinstance(ours, ValueError)


def test_adam_defaults_are_pytorchs():
    torch = require_torch()
    for name in ["Adam", "AdamW"]:
        ours = getattr(mg.optim, name)(make_params(mg, [numpy.zeros(2, numpy.float32)])).defaults
        theirs = getattr(torch.optim, name)(make_params(torch, [numpy.zeros(2, numpy.float32)])).defaults
        assert ours == theirs
