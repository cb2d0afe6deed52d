"""StepLR and CosineAnnealingLR against torch.optim.lr_scheduler, epoch by epoch."""

import warnings

import numpy
import pytest
from _torch import require_torch

import minigrad as mg

from .helpers import as_numpy, make_params, set_grads, start_and_gradients

LRS = [0.1, 0.03]


def scheduled(lib, scheduler: str, lrs=LRS, last_epoch: int = -1, **options):
    """An SGD over one parameter per group (learning rates ``lrs``) and its scheduler."""
    params = make_params(lib, [numpy.zeros(2) for _ in lrs])
    optimizer = lib.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, lrs)], momentum=0.9)
    if last_epoch != -1:
        for group in optimizer.param_groups:
            group["initial_lr"] = group["lr"]
    return optimizer, getattr(lib.optim.lr_scheduler, scheduler)(optimizer, last_epoch=last_epoch, **options)


def history(optimizer, scheduler, epochs: int) -> list:
    """The learning rates after construction and after each of ``epochs`` steps."""
    rates = [scheduler.get_last_lr()]
    for _ in range(epochs):
        optimizer.step()  # no gradients: nothing moves, but the call order is the documented one
        scheduler.step()
        rates.append(scheduler.get_last_lr())
        assert rates[-1] == [group["lr"] for group in optimizer.param_groups]
    return rates


CASES = [
    ("StepLR", {"step_size": 7, "gamma": 0.5}),
    ("StepLR", {"step_size": 1}),
    ("CosineAnnealingLR", {"T_max": 25, "eta_min": 1e-4}),
    ("CosineAnnealingLR", {"T_max": 10}),
    ("CosineAnnealingLR", {"T_max": 1, "eta_min": 0.01}),
]


@pytest.mark.parametrize("name, options", CASES)
def test_learning_rates_match_torch_over_many_epochs(name, options):
    torch = require_torch()
    ours = history(*scheduled(mg, name, **options), epochs=300)  # several cosine periods
    theirs = history(*scheduled(torch, name, **options), epochs=300)
    # Exactly equal: the same float operations in the same order (well within the required 1e-12).
    assert ours == theirs
    assert len({tuple(r) for r in ours}) > 1  # the schedule really changed the rates


def test_cosine_recursive_form_tracks_the_closed_form():
    optimizer, scheduler = scheduled(mg, "CosineAnnealingLR", T_max=40, eta_min=0.002)
    for epoch, rates in enumerate(history(optimizer, scheduler, 40)):
        for base, rate in zip(LRS, rates):
            closed = 0.002 + (base - 0.002) * (1 + numpy.cos(numpy.pi * epoch / 40)) / 2
            assert rate == pytest.approx(closed, rel=1e-12, abs=1e-15)


def test_step_lr_by_hand():
    optimizer, scheduler = scheduled(mg, "StepLR", lrs=[1.0], step_size=3, gamma=0.5)
    rates = [r[0] for r in history(optimizer, scheduler, 9)]
    assert rates == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125]


@pytest.mark.parametrize("name, options", CASES[::2])
def test_resuming_with_last_epoch_matches_torch(name, options):
    torch = require_torch()
    ours = history(*scheduled(mg, name, last_epoch=12, **options), epochs=40)
    theirs = history(*scheduled(torch, name, last_epoch=12, **options), epochs=40)
    assert ours == theirs


def test_resuming_without_initial_lr_raises():
    (p,) = make_params(mg, [numpy.zeros(2)])
    with pytest.raises(KeyError, match="initial_lr"):
        mg.optim.lr_scheduler.StepLR(mg.optim.SGD([p], lr=0.1), step_size=2, last_epoch=3)


@pytest.mark.parametrize("name, options", CASES[::2])
def test_step_with_an_epoch_uses_the_closed_form_and_warns_like_torch(name, options):
    torch = require_torch()
    def jumps(lib):
        optimizer, scheduler = scheduled(lib, name, **options)
        rates = []
        for epoch in [3, 9, 30, 2]:
            optimizer.step()
            with pytest.warns(UserWarning, match="epoch parameter"):
                scheduler.step(epoch)
            rates.append(scheduler.get_last_lr())
        return rates

    assert jumps(mg) == jumps(torch)


def test_state_dict_matches_torch_and_round_trips_through_a_file(tmp_path):
    torch = require_torch()
    options = {"T_max": 30, "eta_min": 1e-3}
    optimizer, scheduler = scheduled(mg, "CosineAnnealingLR", **options)
    reference_optimizer, reference = scheduled(torch, "CosineAnnealingLR", **options)
    history(optimizer, scheduler, 17)
    history(reference_optimizer, reference, 17)
    assert scheduler.state_dict() == reference.state_dict()

    mg.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, tmp_path / "ckpt")
    expected = history(optimizer, scheduler, 50)
    checkpoint = mg.load(tmp_path / "ckpt")
    new_optimizer, new_scheduler = scheduled(mg, "CosineAnnealingLR", **options)
    new_optimizer.load_state_dict(checkpoint["optimizer"])
    new_scheduler.load_state_dict(checkpoint["scheduler"])
    assert history(new_optimizer, new_scheduler, 50) == expected


def test_scheduled_training_matches_torch():
    torch = require_torch()
    start, grads = start_and_gradients(numpy.float64, 12, shapes=[(4,), (3,)])

    def train(lib):
        params = make_params(lib, start)
        optimizer = lib.optim.SGD([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.3}], lr=0.1,
                                  momentum=0.9)
        scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=4, gamma=0.3)
        for step_grads in grads:
            set_grads(lib, params, step_grads)
            optimizer.step()
            scheduler.step()
        return [as_numpy(p) for p in params]

    for ours, theirs in zip(train(mg), train(torch)):
        numpy.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_scheduler_step_before_optimizer_step_warns():
    optimizer, scheduler = scheduled(mg, "StepLR", step_size=2)
    with pytest.warns(UserWarning, match=r"before `optimizer.step\(\)`"):
        scheduler.step()


def test_the_documented_order_does_not_warn():
    optimizer, scheduler = scheduled(mg, "CosineAnnealingLR", T_max=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        history(optimizer, scheduler, 10)


def test_get_lr_outside_step_warns_and_get_last_lr_does_not():
    optimizer, scheduler = scheduled(mg, "StepLR", step_size=2)
    with pytest.warns(UserWarning, match="get_last_lr"):
        scheduler.get_lr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert scheduler.get_last_lr() == LRS


def test_scheduler_needs_an_optimizer():
    with pytest.raises(TypeError, match="is not an Optimizer"):
        mg.optim.lr_scheduler.StepLR("sgd", step_size=2)
