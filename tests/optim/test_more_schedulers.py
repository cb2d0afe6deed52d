"""LambdaLR, MultiplicativeLR, MultiStepLR, ExponentialLR, LinearLR, ReduceLROnPlateau and OneCycleLR
against torch.optim.lr_scheduler, step by step, with SGD and with Adam.

Both libraries compute the schedules with the same Python float operations in the same order, so
the learning rates (and OneCycleLR's momenta) are compared for exact equality.
"""

import math
import warnings

import numpy
import pytest
from _reference import plain, reference
from _torch import raises_like_torch, require_torch

import minigrad as mg

from .helpers import as_numpy, make_params, set_grads, start_and_gradients

LRS = [0.1, 0.03]
OPTIMIZERS = ["SGD", "Adam"]


def make_optimizer(lib, kind: str, lrs=LRS):
    """SGD (with momentum) or Adam over one parameter per group, with learning rates ``lrs``."""
    params = make_params(lib, [numpy.zeros(2) for _ in lrs])
    groups = [{"params": [p], "lr": lr} for p, lr in zip(params, lrs)]
    if kind == "SGD":
        return lib.optim.SGD(groups, lr=0.5, momentum=0.9)
    return lib.optim.Adam(groups, betas=(0.9, 0.99))


def scheduled(lib, kind: str, name: str, lrs=LRS, **options):
    optimizer = make_optimizer(lib, kind, lrs)
    return optimizer, getattr(lib.optim.lr_scheduler, name)(optimizer, **options)


def momenta(optimizer) -> list:
    """Each group's momentum (SGD) or beta1 (Adam)."""
    return [group["momentum"] if "momentum" in group else group["betas"][0]
            for group in optimizer.param_groups]


def history(optimizer, scheduler, steps: int) -> list:
    """(learning rates, momenta) after construction and after each of ``steps`` steps."""
    rates = [(scheduler.get_last_lr(), momenta(optimizer))]
    for _ in range(steps):
        optimizer.step()  # no gradients: nothing moves, but the call order is the documented one
        scheduler.step()
        rates.append((scheduler.get_last_lr(), momenta(optimizer)))
        assert rates[-1][0] == [group["lr"] for group in optimizer.param_groups]
    return rates


def halve_every_third(epoch):
    return 0.5 ** (epoch // 3)


def shrink(epoch):
    return 0.9 if epoch % 2 else 0.97


CASES = [
    ("LambdaLR", {"lr_lambda": halve_every_third}),
    ("LambdaLR", {"lr_lambda": [halve_every_third, lambda epoch: 1 / (1 + 0.1 * epoch)]}),  # one per group
    ("MultiplicativeLR", {"lr_lambda": shrink}),
    ("MultiplicativeLR", {"lr_lambda": (shrink, lambda epoch: 0.95)}),
    ("MultiStepLR", {"milestones": [3, 7, 7, 12], "gamma": 0.3}),  # 7 twice: multiplied by gamma ** 2
    ("MultiStepLR", {"milestones": [20, 5]}),
    ("ExponentialLR", {"gamma": 0.83}),
    ("LinearLR", {}),
    ("LinearLR", {"start_factor": 0.1, "end_factor": 0.6, "total_iters": 9}),
    ("LinearLR", {"start_factor": 1.0, "end_factor": 0.0, "total_iters": 7}),  # decay to zero
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 30}),
    ("OneCycleLR", {"max_lr": [0.8, 0.2], "epochs": 4, "steps_per_epoch": 7, "pct_start": 0.25,
                    "anneal_strategy": "linear", "div_factor": 10.0, "final_div_factor": 100.0}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 31, "three_phase": True, "base_momentum": [0.8, 0.7],
                    "max_momentum": (0.9, 0.99)}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 12, "cycle_momentum": False}),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]


def steps_of(name: str, options: dict) -> int:
    if name == "OneCycleLR":  # exactly as many steps as the cycle allows
        return options.get("total_steps") or options["epochs"] * options["steps_per_epoch"]
    return 25


@pytest.mark.parametrize("kind", OPTIMIZERS)
@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_learning_rates_and_momenta_match_torch_after_every_step(kind, name, options):
    steps = steps_of(name, options)
    ours = plain(history(*scheduled(mg, kind, name, **options), steps))
    assert ours == reference(lambda torch: history(*scheduled(torch, kind, name, **options), steps))
    assert len({tuple(lrs) for lrs, _ in ours}) > 2  # the schedule really moved the rates


def test_per_group_lambdas_by_hand():
    optimizer, scheduler = scheduled(mg, "SGD", "LambdaLR", lrs=[1.0, 2.0],
                                     lr_lambda=[lambda e: e + 1, lambda e: 0.5 ** e])
    assert [lrs for lrs, _ in history(optimizer, scheduler, 3)] == [[1.0, 2.0], [2.0, 1.0], [3.0, 0.5],
                                                                    [4.0, 0.25]]
    optimizer, scheduler = scheduled(mg, "SGD", "MultiplicativeLR", lrs=[1.0, 2.0],
                                     lr_lambda=[lambda e: 2.0, lambda e: 0.5])
    assert [lrs for lrs, _ in history(optimizer, scheduler, 2)] == [[1.0, 2.0], [2.0, 1.0], [4.0, 0.5]]


def test_one_cycle_lr_by_hand():
    """Up from max_lr / div_factor along a half cosine, then down to initial_lr / final_div_factor."""
    optimizer, scheduler = scheduled(mg, "SGD", "OneCycleLR", lrs=[0.1], max_lr=1.0, total_steps=10,
                                     pct_start=0.5, div_factor=4.0, final_div_factor=5.0)
    group = optimizer.param_groups[0]
    assert (group["initial_lr"], group["max_lr"], group["min_lr"]) == (0.25, 1.0, 0.05)
    steps = history(optimizer, scheduler, 10)
    assert steps[0][0] == [0.25] and steps[0][1] == [pytest.approx(0.95, abs=1e-15)]
    assert steps[4] == ([1.0], [0.85])  # the first phase ends at step 0.5 * 10 - 1 = 4
    assert steps[2][0] == [pytest.approx(0.25 + 0.75 * (1 - math.cos(math.pi * 2 / 4)) / 2, abs=1e-15)]
    assert steps[9][0] == [pytest.approx(0.05, abs=1e-15)]  # the last step (9) ends at min_lr
    assert steps[9][1] == [pytest.approx(0.95, abs=1e-15)]
    assert steps[10][0][0] > 0.05  # the one step past the cycle's end (allowed) follows the cosine back up


def test_one_cycle_lr_cycles_beta1_and_keeps_beta2():
    optimizer, scheduler = scheduled(mg, "Adam", "OneCycleLR", max_lr=0.01, total_steps=10)
    beta1s = [beta1 for _, beta1 in history(optimizer, scheduler, 10)]
    assert len({tuple(b) for b in beta1s}) > 5
    assert [group["betas"][1] for group in optimizer.param_groups] == [0.99, 0.99]
    assert optimizer.param_groups[0]["max_momentum"] == 0.95
    assert optimizer.param_groups[0]["base_momentum"] == 0.85


@pytest.mark.parametrize("kind", OPTIMIZERS)
@pytest.mark.parametrize(("name", "options"), [CASES[0], CASES[4], CASES[6], CASES[8], CASES[12]],
                         ids=["LambdaLR", "MultiStepLR", "ExponentialLR", "LinearLR", "OneCycleLR"])
def test_training_with_a_schedule_matches_torch(kind, name, options):
    start, grads = start_and_gradients(numpy.float64, steps_of(name, options), shapes=[(4,), (3,)])

    def train(lib):
        params = make_params(lib, start)
        groups = [{"params": [params[0]]}, {"params": [params[1]], "lr": 0.03}]
        optimizer = (lib.optim.SGD(groups, lr=0.1, momentum=0.5) if kind == "SGD"
                     else lib.optim.Adam(groups, lr=0.1))
        scheduler = getattr(lib.optim.lr_scheduler, name)(optimizer, **options)
        for step_grads in grads:
            set_grads(lib, params, step_grads)
            optimizer.step()
            scheduler.step()
        return [as_numpy(p) for p in params]

    ours, theirs = train(mg), reference(train, {"start": start, "grads": grads})
    for mine, expected, before in zip(ours, theirs, start):
        numpy.testing.assert_allclose(mine, expected, rtol=1e-12, atol=1e-12)
        assert not numpy.allclose(mine, before)


# --- ReduceLROnPlateau -------------------------------------------------------------------------


def metric_sequence(seed: int, length: int = 60) -> list:
    """A noisy loss that improves, stalls on long plateaus and sometimes improves a little."""
    rng = numpy.random.default_rng(seed)
    values, current = [], 10.0
    for _ in range(length):
        choice = rng.integers(4)
        if choice == 0:
            current *= 0.7
        elif choice == 1:
            current *= 1 - rng.uniform(0, 2e-3)  # below a 1e-3 relative threshold half of the time
        values.append(float(current + rng.uniform(0, 0.05) * (choice == 3)))  # a worse epoch
    return values + [current] * 15  # a last long plateau (longer than the default patience)


PLATEAU_CASES = [
    {"mode": "min"},
    {"mode": "min", "patience": 2},
    {"mode": "min", "patience": 0, "threshold": 1e-3},
    {"mode": "min", "patience": 1, "threshold": 0.05, "threshold_mode": "abs", "cooldown": 2},
    {"mode": "max", "patience": 2, "factor": 0.5, "min_lr": 0.01},
    {"mode": "max", "patience": 1, "threshold": 0.01, "threshold_mode": "abs", "cooldown": 3,
     "min_lr": [0.02, 1e-3]},
    {"mode": "min", "patience": 0, "factor": 0.5, "min_lr": 0.0299, "eps": 1e-4},  # eps stops tiny reductions
]


def plateau_history(lib, kind: str, metrics: list, as_tensor: bool = False, **options) -> list:
    optimizer, scheduler = scheduled(lib, kind, "ReduceLROnPlateau", **options)
    rates = [scheduler.get_last_lr()]
    for value in metrics:
        optimizer.step()
        scheduler.step(lib.tensor(value) if as_tensor else value)
        rates.append((scheduler.get_last_lr(), scheduler.best, scheduler.num_bad_epochs,
                      scheduler.cooldown_counter, scheduler.in_cooldown, scheduler.last_epoch))
        assert rates[-1][0] == [group["lr"] for group in optimizer.param_groups]
    return rates


@pytest.mark.parametrize("kind", OPTIMIZERS)
@pytest.mark.parametrize("options", PLATEAU_CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_reduce_lr_on_plateau_matches_torch(kind, options, seed):
    metrics = metric_sequence(seed)
    if options["mode"] == "max":
        metrics = [-value for value in metrics]
    ours = plain(plateau_history(mg, kind, metrics, **options))
    assert ours == reference(lambda torch: plateau_history(torch, kind, metrics, **options))
    assert len({tuple(entry[0]) for entry in ours[1:]}) > 1  # it did reduce


def test_reduce_lr_on_plateau_takes_one_element_tensors():
    torch = require_torch()
    metrics = metric_sequence(3, length=30)
    ours = plateau_history(mg, "SGD", metrics, as_tensor=True, patience=1)
    assert ours == plateau_history(torch, "SGD", metrics, as_tensor=True, patience=1)


def test_reduce_lr_on_plateau_by_hand():
    optimizer, scheduler = scheduled(mg, "SGD", "ReduceLROnPlateau", lrs=[1.0], patience=1, factor=0.5,
                                     cooldown=1, min_lr=0.2)
    lrs = []
    for loss in [5, 4, 4, 4, 4, 4, 4, 4, 3]:
        scheduler.step(loss)
        lrs.append(scheduler.get_last_lr()[0])
    # Two bad epochs (> patience 1) halve lr; the cooldown epoch after it counts no bad epoch; min_lr floors.
    assert lrs == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25]
    scheduler.step(4)
    scheduler.step(4)
    assert scheduler.get_last_lr() == [0.2]


def test_reduce_lr_on_plateau_does_not_warn_about_the_call_order():
    optimizer, scheduler = scheduled(mg, "SGD", "ReduceLROnPlateau")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scheduler.step(1.0)


def test_reduce_lr_on_plateau_epoch_argument_warns_like_torch():
    torch = require_torch()
    def run(lib):
        optimizer, scheduler = scheduled(lib, "SGD", "ReduceLROnPlateau", patience=0)
        with pytest.warns(UserWarning, match="epoch parameter"):
            scheduler.step(1.0, epoch=7)
        return scheduler.last_epoch

    assert run(mg) == run(torch) == 7


def test_reduce_lr_on_plateau_with_a_new_group_and_min_lr_list_raises_like_torch():
    def call(lib):
        optimizer, scheduler = scheduled(lib, "SGD", "ReduceLROnPlateau", patience=0, min_lr=[0.0, 0.0])
        optimizer.add_param_group({"params": [lib.zeros(2, requires_grad=True)], "lr": 0.1})
        scheduler.step(1.0)
        scheduler.step(2.0)

    raises_like_torch(call, RuntimeError, "(3)", "(2)", "min_lrs")


def test_reduce_lr_on_plateau_with_a_new_group_and_scalar_min_lr_matches_torch():
    torch = require_torch()
    def run(lib):
        optimizer, scheduler = scheduled(lib, "SGD", "ReduceLROnPlateau", patience=0, min_lr=0.01)
        optimizer.add_param_group({"params": [lib.zeros(2, requires_grad=True)], "lr": 0.5})
        for value in [1.0, 2.0, 3.0]:
            scheduler.step(value)
        return scheduler.get_last_lr(), scheduler.min_lrs

    assert run(mg) == run(torch)


# --- state dicts --------------------------------------------------------------------------------


class WarmUp:
    """A callable object with state: its ``__dict__`` is what LambdaLR's state_dict keeps."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.calls = 0

    def __call__(self, epoch: int) -> float:
        self.calls += 1
        return min(1.0, (epoch + 1) / self.steps)


STATE_CASES = [
    ("LambdaLR", lambda: {"lr_lambda": [WarmUp(6), halve_every_third]}),
    ("MultiplicativeLR", lambda: {"lr_lambda": [WarmUp(4), shrink]}),
    ("MultiStepLR", lambda: {"milestones": [4, 9, 9, 15], "gamma": 0.5}),
    ("ExponentialLR", lambda: {"gamma": 0.9}),
    ("LinearLR", lambda: {"start_factor": 0.2, "total_iters": 12}),
    ("OneCycleLR", lambda: {"max_lr": [1.0, 0.3], "total_steps": 24, "three_phase": True}),
]


@pytest.mark.parametrize("kind", OPTIMIZERS)
@pytest.mark.parametrize(("name", "options"), STATE_CASES, ids=[name for name, _ in STATE_CASES])
def test_state_dict_matches_torch_and_round_trips_mid_schedule(kind, name, options, tmp_path):
    torch = require_torch()
    optimizer, scheduler = scheduled(mg, kind, name, **options())
    reference_optimizer, reference = scheduled(torch, kind, name, **options())
    history(optimizer, scheduler, 9)
    history(reference_optimizer, reference, 9)
    assert scheduler.state_dict() == reference.state_dict()
    assert optimizer.state_dict()["param_groups"] == reference_optimizer.state_dict()["param_groups"]

    mg.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, tmp_path / "ckpt")
    expected = history(optimizer, scheduler, 12)
    assert expected == history(reference_optimizer, reference, 12)

    # Resume as PyTorch documents: build the scheduler, then load the optimizer's and the scheduler's state.
    checkpoint = mg.load(tmp_path / "ckpt")
    new_optimizer, new_scheduler = scheduled(mg, kind, name, **options())
    new_optimizer.load_state_dict(checkpoint["optimizer"])
    new_scheduler.load_state_dict(checkpoint["scheduler"])
    assert history(new_optimizer, new_scheduler, 12) == expected


def test_lambda_state_dict_keeps_callable_objects_state_but_not_functions():
    warm_up = WarmUp(5)
    optimizer, scheduler = scheduled(mg, "SGD", "LambdaLR", lr_lambda=[warm_up, halve_every_third])
    history(optimizer, scheduler, 3)
    state = scheduler.state_dict()
    assert state["lr_lambdas"] == [{"steps": 5, "calls": 4}, None]
    assert "optimizer" not in state and state["last_epoch"] == 3

    fresh = WarmUp(5)
    _, new_scheduler = scheduled(mg, "SGD", "LambdaLR", lr_lambda=[fresh, halve_every_third])
    new_scheduler.load_state_dict(state)
    assert fresh.calls == 4 and new_scheduler.last_epoch == 3
    assert new_scheduler.lr_lambdas[1] is halve_every_third
    assert state["lr_lambdas"] == [{"steps": 5, "calls": 4}, None]  # loading left the dict intact


def test_reduce_lr_on_plateau_state_dict_matches_torch_and_round_trips(tmp_path):
    torch = require_torch()
    metrics = metric_sequence(5)
    options = {"mode": "min", "patience": 1, "cooldown": 1, "min_lr": [1e-3, 1e-4]}

    def first_half(lib):
        optimizer, scheduler = scheduled(lib, "Adam", "ReduceLROnPlateau", **options)
        for value in metrics[:30]:
            scheduler.step(value)
        return optimizer, scheduler

    optimizer, scheduler = first_half(mg)
    assert scheduler.state_dict() == first_half(torch)[1].state_dict()
    mg.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, tmp_path / "ckpt")
    expected = []
    for value in metrics[30:]:
        scheduler.step(value)
        expected.append(scheduler.get_last_lr())

    checkpoint = mg.load(tmp_path / "ckpt")
    new_optimizer, new_scheduler = scheduled(mg, "Adam", "ReduceLROnPlateau", mode="max")
    new_optimizer.load_state_dict(checkpoint["optimizer"])
    new_scheduler.load_state_dict(checkpoint["scheduler"])
    assert new_scheduler.mode == "min" and new_scheduler.mode_worse == math.inf
    resumed = []
    for value in metrics[30:]:
        new_scheduler.step(value)
        resumed.append(new_scheduler.get_last_lr())
    assert resumed == expected


# --- resuming, epochs, warnings -----------------------------------------------------------------


@pytest.mark.parametrize(("name", "options"), [CASES[4], CASES[6], CASES[8], CASES[2], CASES[0]],
                         ids=["MultiStepLR", "ExponentialLR", "LinearLR", "MultiplicativeLR", "LambdaLR"])
def test_resuming_with_last_epoch_matches_torch(name, options):
    torch = require_torch()
    def resume(lib):
        optimizer = make_optimizer(lib, "SGD")
        for group in optimizer.param_groups:
            group["initial_lr"] = group["lr"]
        scheduler = getattr(lib.optim.lr_scheduler, name)(optimizer, last_epoch=4, **options)
        return history(optimizer, scheduler, 15)

    assert resume(mg) == resume(torch)


def test_one_cycle_lr_resumes_with_last_epoch_like_torch():
    torch = require_torch()
    def resume(lib):
        optimizer = make_optimizer(lib, "SGD")
        lib.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1.0, total_steps=20)
        scheduler = lib.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1.0, total_steps=20, last_epoch=6)
        return history(optimizer, scheduler, 13)

    assert resume(mg) == resume(torch)


@pytest.mark.parametrize(("name", "options"), [CASES[0], CASES[2], CASES[4], CASES[6], CASES[8]],
                         ids=["LambdaLR", "MultiplicativeLR", "MultiStepLR", "ExponentialLR", "LinearLR"])
def test_step_with_an_epoch_matches_torch_and_warns(name, options):
    torch = require_torch()
    def jumps(lib):
        optimizer, scheduler = scheduled(lib, "SGD", name, **options)
        rates = []
        for epoch in [3, 9, 30, 2, 7]:
            optimizer.step()
            with pytest.warns(UserWarning, match="epoch parameter"):
                scheduler.step(epoch)
            rates.append(scheduler.get_last_lr())
        return rates

    assert jumps(mg) == jumps(torch)


@pytest.mark.parametrize(("name", "options"), CASES[::2], ids=IDS[::2])
def test_scheduler_step_before_optimizer_step_warns_like_torch(name, options):
    torch = require_torch()
    for lib in (torch, mg):
        optimizer, scheduler = scheduled(lib, "SGD", name, **options)
        with pytest.warns(UserWarning, match=r"before `optimizer.step\(\)`"):
            scheduler.step()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            history(*scheduled(lib, "SGD", name, **options), 3)  # the documented order is silent


@pytest.mark.parametrize(("name", "options"), CASES[::2], ids=IDS[::2])
def test_get_lr_outside_step_warns_and_get_last_lr_does_not(name, options):
    optimizer, scheduler = scheduled(mg, "SGD", name, **options)
    with pytest.warns(UserWarning, match="get_last_lr"):
        scheduler.get_lr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert scheduler.get_last_lr() == [group["lr"] for group in optimizer.param_groups]


def test_stepping_one_cycle_lr_past_total_steps_raises_like_torch():
    def call(lib):
        optimizer, scheduler = scheduled(lib, "SGD", "OneCycleLR", max_lr=0.1, total_steps=5)
        history(optimizer, scheduler, 5)
        scheduler.step()

    raises_like_torch(call, ValueError, "Tried to step 6 times", "total steps is 5")


# --- argument errors ----------------------------------------------------------------------------


def lr_scheduler(lib, name: str, kind: str = "SGD", **options):
    return getattr(lib.optim.lr_scheduler, name)(make_optimizer(lib, kind), **options)


def plain_optimizer(lib):
    """An optimizer with neither momentum nor betas (OneCycleLR cannot cycle its momentum)."""

    class Plain(lib.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, {"lr": lr})

        def step(self, closure=None):
            return None

    return Plain([lib.zeros(2, requires_grad=True)])


ERRORS = [
    ("LambdaLR", {"lr_lambda": [halve_every_third]}, ValueError, ("Expected 2 lr_lambdas, but got 1",)),
    ("MultiplicativeLR", {"lr_lambda": [shrink] * 3}, ValueError, ("Expected 2 lr_lambdas, but got 3",)),
    ("MultiplicativeLR", {"lr_lambda": 0.9}, TypeError, ("lr_lambda should be a function", "float")),
    ("MultiplicativeLR", {"lr_lambda": [shrink, 0.9]}, TypeError, ("float",)),
    ("LinearLR", {"start_factor": 0}, ValueError, ("Starting multiplicative factor", "0")),
    ("LinearLR", {"start_factor": 1.5}, ValueError, ("Starting multiplicative factor", "1.5")),
    ("LinearLR", {"end_factor": -0.1}, ValueError, ("Ending multiplicative factor", "-0.1")),
    ("LinearLR", {"end_factor": 1.01}, ValueError, ("Ending multiplicative factor", "1.01")),
    ("ReduceLROnPlateau", {"factor": 1.0}, ValueError, ("Factor should be < 1.0",)),
    ("ReduceLROnPlateau", {"mode": "maximum"}, ValueError, ("mode maximum is unknown!",)),
    ("ReduceLROnPlateau", {"threshold_mode": "relative"}, ValueError,
     ("threshold mode relative is unknown!",)),
    ("ReduceLROnPlateau", {"min_lr": [0.1]}, ValueError, ("expected 2 min_lrs, got 1",)),
    ("OneCycleLR", {"max_lr": 0.1}, ValueError, ("total_steps OR (epochs AND steps_per_epoch)",)),
    ("OneCycleLR", {"max_lr": 0.1, "epochs": 3}, ValueError, ("either total_steps OR",)),
    ("OneCycleLR", {"max_lr": 0.1, "total_steps": 0}, ValueError, ("positive integer total_steps", "0")),
    ("OneCycleLR", {"max_lr": 0.1, "total_steps": -3}, ValueError, ("positive integer total_steps", "-3")),
    ("OneCycleLR", {"max_lr": 0.1, "total_steps": 10.0}, ValueError, ("total_steps, but got 10.0",)),
    ("OneCycleLR", {"max_lr": 0.1, "epochs": 0, "steps_per_epoch": 4}, ValueError,
     ("positive integer epochs, but got 0",)),
    ("OneCycleLR", {"max_lr": 0.1, "epochs": 2, "steps_per_epoch": 2.5}, ValueError,
     ("positive integer steps_per_epoch, but got 2.5",)),
    ("OneCycleLR", {"max_lr": 0.1, "total_steps": 10, "pct_start": 1.5}, ValueError, ("pct_start", "1.5")),
    ("OneCycleLR", {"max_lr": 0.1, "total_steps": 10, "pct_start": 0}, ValueError, ("pct_start", "0")),
    ("OneCycleLR", {"max_lr": 0.1, "total_steps": 10, "anneal_strategy": "exp"}, ValueError,
     ("anneal_strategy", "exp")),
    ("OneCycleLR", {"max_lr": [0.1, 0.2, 0.3], "total_steps": 10}, ValueError,
     ("max_lr must have the same length", "3 values", "param_groups has 2")),
    ("OneCycleLR", {"max_lr": 0.1, "total_steps": 10, "base_momentum": [0.8]}, ValueError,
     ("base_momentum must have the same length",)),
]


@pytest.mark.parametrize(("name", "options", "error", "fragments"), ERRORS,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_bad_arguments_raise_like_torch(name, options, error, fragments):
    raises_like_torch(lambda lib: lr_scheduler(lib, name, **options), error, *fragments)


def test_one_cycle_lr_needs_momentum_or_betas_to_cycle():
    torch = require_torch()
    raises_like_torch(lambda lib: lib.optim.lr_scheduler.OneCycleLR(plain_optimizer(lib), 0.1, total_steps=5),
                      ValueError, "momentum or beta1", "cycle_momentum")
    for lib in (mg, torch):  # without cycling it schedules any optimizer
        lib.optim.lr_scheduler.OneCycleLR(plain_optimizer(lib), 0.1, total_steps=5, cycle_momentum=False)


@pytest.mark.parametrize("name", ["ReduceLROnPlateau", "OneCycleLR", "ExponentialLR"])
def test_schedulers_need_an_optimizer(name):
    options = {"OneCycleLR": {"max_lr": 0.1, "total_steps": 3}, "ExponentialLR": {"gamma": 0.5}}.get(name, {})
    raises_like_torch(lambda lib: getattr(lib.optim.lr_scheduler, name)("sgd", **options), TypeError,
                      "str is not an Optimizer")


def test_multistep_lr_closed_form_after_a_round_trip_through_a_file(tmp_path):
    torch = require_torch()
    def jump_after_resume(lib):
        optimizer, scheduler = scheduled(lib, "SGD", "MultiStepLR", milestones=[2, 6, 6])
        history(optimizer, scheduler, 3)
        if lib is mg:  # mg.save stores the Counter of milestones as a plain dict
            mg.save(scheduler.state_dict(), tmp_path / "sched")
            scheduler.load_state_dict(mg.load(tmp_path / "sched"))
        with pytest.warns(UserWarning, match="epoch parameter"):
            scheduler.step(7)
        return scheduler.get_last_lr()

    assert jump_after_resume(mg) == jump_after_resume(torch)


def test_reduce_lr_on_plateau_load_state_dict_checks_the_mode_like_torch():
    def call(lib):
        _, scheduler = scheduled(lib, "SGD", "ReduceLROnPlateau")
        scheduler.load_state_dict({**scheduler.state_dict(), "mode": "sideways"})

    raises_like_torch(call, ValueError, "mode sideways is unknown!")
