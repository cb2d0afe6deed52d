"""SGD against torch.optim.SGD: every combination of its options, float32 and float64."""

import itertools

import numpy
import pytest
from _torch import require_torch

import minigrad as mg

from .helpers import both, described, error_of, make_params, run, start_and_gradients, torch_error

COMBOS = [
    {"momentum": m, "dampening": d, "weight_decay": wd, "nesterov": n, "maximize": mx}
    for m, d, wd, n, mx in itertools.product([0, 0.9], [0, 0.3], [0, 0.05], [False, True], [False, True])
    if not n or (m > 0 and d == 0)  # Nesterov needs momentum and no dampening
]


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("options", COMBOS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_sgd_matches_torch(options, dtype):
    both("SGD", dtype, lr=0.1, **options)


def test_sgd_by_hand_first_momentum_step_is_the_gradient():
    # p = 1, g = 2 each step, lr = 0.1, momentum 0.9, dampening 0.5:
    # step 1: b = g = 2 (no dampening on the first step)  -> p = 1 - 0.1 * 2 = 0.8
    # step 2: b = 0.9 * 2 + 0.5 * 2 = 2.8                 -> p = 0.8 - 0.28 = 0.52
    p = mg.tensor([1.0], dtype=mg.float64, requires_grad=True)
    optimizer = mg.optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.5)
    expected = [(0.8, 2.0), (0.52, 2.8)]
    for value, buffer in expected:
        p.grad = mg.tensor([2.0], dtype=mg.float64)
        optimizer.step()
        assert p.item() == pytest.approx(value, abs=1e-15)
        assert optimizer.state[p]["momentum_buffer"].item() == pytest.approx(buffer, abs=1e-15)


def test_sgd_without_momentum_keeps_no_state():
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float32, 2)
    _, _, ours = run(mg, "SGD", start, grads, lr=0.1)
    _, _, theirs = run(torch, "SGD", start, grads, lr=0.1)
    assert ours.state_dict()["state"] == theirs.state_dict()["state"] == {}


def test_sgd_defaults_are_pytorchs():
    torch = require_torch()
    p = make_params(mg, [numpy.zeros(2, numpy.float32)])
    q = make_params(torch, [numpy.zeros(2, numpy.float32)])
    assert mg.optim.SGD(p).defaults == torch.optim.SGD(q).defaults


@pytest.mark.parametrize("options", [
    {"lr": -1}, {"lr": 0.1, "momentum": -0.5}, {"lr": 0.1, "weight_decay": -1e-4},
    {"lr": 0.1, "nesterov": True}, {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "nesterov": True},
], ids=["lr", "momentum", "weight_decay", "nesterov-no-momentum", "nesterov-dampening"])
def test_sgd_rejects_what_torch_rejects_with_the_same_message(options):
    ours = error_of(lambda: mg.optim.SGD(make_params(mg, [numpy.zeros(2)]), **options))
    theirs = torch_error(lambda torch: torch.optim.SGD(make_params(torch, [numpy.zeros(2)]), **options))
    assert described(ours) == theirs
    assert isinstance(ours, ValueError)


def test_invalid_learning_rate_message():
    with pytest.raises(ValueError, match=r"^Invalid learning rate: -1$"):
        mg.optim.SGD(make_params(mg, [numpy.zeros(2)]), lr=-1)


def test_sgd_skips_parameters_without_gradient_and_returns_closure_loss():
    a, b = make_params(mg, [numpy.ones(2, numpy.float32), numpy.ones(2, numpy.float32)])
    optimizer = mg.optim.SGD([a, b], lr=0.5, momentum=0.9)
    a.grad = mg.tensor([1.0, -1.0])
    calls = []

    def closure():
        calls.append(mg.is_grad_enabled())
        return 42.0

    with mg.no_grad():
        assert optimizer.step(closure) == 42.0
    assert calls == [True]  # the closure runs with grad enabled, as in PyTorch
    numpy.testing.assert_array_equal(a.array, [0.5, 1.5])
    numpy.testing.assert_array_equal(b.array, [1.0, 1.0])
    assert b not in optimizer.state
