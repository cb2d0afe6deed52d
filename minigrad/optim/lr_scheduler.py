"""Learning-rate schedules with PyTorch's exact values.

``LambdaLR``, ``MultiplicativeLR``, ``StepLR``, ``MultiStepLR``, ``ExponentialLR``, ``LinearLR``,
``CosineAnnealingLR``, ``OneCycleLR`` and ``ReduceLROnPlateau`` (which steps on a metric).

A scheduler rewrites ``group['lr']`` in its optimizer's parameter groups each time its
``step()`` is called (once per epoch, after ``optimizer.step()``). ``last_epoch`` counts
those calls; ``base_lrs`` are the learning rates it started from (``group['initial_lr']``).
Each computes its values with PyTorch's floating-point operations, in PyTorch's order: the
chainable form (from the current ``group['lr']``) where PyTorch uses it, else the closed form.
"""

from __future__ import annotations

import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any, SupportsFloat, cast

from minigrad.optim.optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ExponentialLR",
           "LinearLR", "CosineAnnealingLR", "ReduceLROnPlateau", "OneCycleLR"]

_EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different "
    "from None, the closed form is used instead of the new chainable form, where available.")


class LRScheduler:
    """Base class of the schedulers, as ``torch.optim.lr_scheduler.LRScheduler``.

    Subclasses write :meth:`get_lr` (the next learning rates, computed from the current ones)
    and may write ``_get_closed_form_lr`` (the learning rates at ``last_epoch`` directly).

    Args:
        optimizer: the optimizer whose learning rates it sets.
        last_epoch: the index of the last epoch done; -1 (the default) starts from the optimizer's ``lr``.
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                                   "scheduler with last_epoch >= 0.\nThis typically happens when:\n"
                                   "1. You're trying to resume training from a checkpoint but haven't "
                                   "properly loaded the optimizer state\n"
                                   "2. You're using last_epoch >= 0 for a fresh training run "
                                   "(not recommended)")
        self.base_lrs: list[float] = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _track_optimizer_steps(optimizer)
        self._step_count = 0
        self._is_initial = True  # the first step sets up the starting learning rates
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The learning rates for ``last_epoch`` (called by :meth:`step`)."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The learning rates the last :meth:`step` set, one per parameter group."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch and write the new learning rates into the optimizer's groups."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. You should call "
                          "them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`. "
                          "Failure to do this will result in skipping the first value of the learning rate "
                          "schedule.", UserWarning, stacklevel=2)
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(_EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr: list[float] = [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict[str, Any]:
        """Every attribute except the optimizer (as PyTorch's)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)

    def _warn_if_called_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)


class LambdaLR(LRScheduler):
    """Set each learning rate to its base value times a function of the epoch.

    Closed form: lr = base_lr * lr_lambda(last_epoch); ``lr_lambda`` is one function for every
    group or a list of them, one per group.

    Args:
        optimizer: the optimizer whose learning rates it sets.
        lr_lambda: epoch -> factor, one function or a list of one per group.
        last_epoch: the index of the last epoch done; -1 (the default) starts from the optimizer's ``lr``.
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """As the base class's, with ``lr_lambdas`` holding the ``__dict__`` of callable objects only.

        Plain functions and lambdas cannot be saved: their entries are ``None`` (as in PyTorch).
        """
        return _state_dict_with_lambdas(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        _load_state_dict_with_lambdas(self, state_dict)

    def get_lr(self) -> list[float]:
        self._warn_if_called_outside_step()
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(LRScheduler):
    """Multiply each learning rate, every epoch, by a function of the epoch.

    Chainable form: lr_t = lr_{t-1} * lr_lambda(t); one function for every group or one per group.

    Args:
        optimizer: the optimizer whose learning rates it sets.
        lr_lambda: epoch -> factor, one function or a list of one per group.
        last_epoch: the index of the last epoch done; -1 (the default) starts from the optimizer's ``lr``.
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas_per_group(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """As :meth:`LambdaLR.state_dict`: only callable objects' ``__dict__`` is saved."""
        return _state_dict_with_lambdas(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        _load_state_dict_with_lambdas(self, state_dict)

    def get_lr(self) -> list[float]:
        self._warn_if_called_outside_step()
        if self._is_initial:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * lmbda(self.last_epoch)
                for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """Multiply the learning rates by ``gamma`` every ``step_size`` epochs.

    Closed form: lr = base_lr * gamma ** (last_epoch // step_size).

    Args:
        optimizer: the optimizer whose learning rates it sets.
        step_size: the epochs between two multiplications.
        gamma: the factor.
        last_epoch: the index of the last epoch done; -1 (the default) starts from the optimizer's ``lr``.
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rates by ``gamma`` at each of the ``milestones`` (epoch indices).

    Closed form: lr = base_lr * gamma ** (number of milestones <= last_epoch); a milestone given
    n times multiplies by gamma ** n.

    Args:
        optimizer: the optimizer whose learning rates it sets.
        milestones: the epochs at which to multiply.
        gamma: the factor.
        last_epoch: the index of the last epoch done; -1 (the default) starts from the optimizer's ``lr``.
    """

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_outside_step()
        if self.last_epoch not in self.milestones:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base_lr in self.base_lrs]

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        # A dict saved by mg.save comes back a plain dict; the closed form needs Counter.elements().
        self.milestones = Counter(self.milestones)


class ExponentialLR(LRScheduler):
    """Multiply the learning rates by ``gamma`` every epoch.

    Closed form: lr = base_lr * gamma ** last_epoch (computed as lr_t = lr_{t-1} * gamma, as PyTorch does).

    Args:
        optimizer: the optimizer whose learning rates it sets.
        gamma: the factor per epoch.
        last_epoch: the index of the last epoch done; -1 (the default) starts from the optimizer's ``lr``.
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_outside_step()
        if self._is_initial:  # resuming from a checkpoint must not step one epoch ahead
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the learning rates by a factor going linearly from ``start_factor`` to ``end_factor``.

    Closed form: lr = base_lr * (start + (end - start) * min(total_iters, last_epoch) / total_iters).

    Args:
        optimizer: the optimizer whose learning rates it sets.
        start_factor: the factor at epoch 0.
        end_factor: the factor from ``total_iters`` on.
        total_iters: the epochs the factor takes to get there.
        last_epoch: the index of the last epoch done; -1 (the default) starts from the optimizer's ``lr``.
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal "
                             f"to 1, but got start_factor={start_factor}.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"Ending multiplicative factor expected to be between 0 and 1, but got "
                             f"end_factor={end_factor}.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return [group["lr"] for group in groups]
        # The ratio of this epoch's factor to the previous one's.
        slope = self.end_factor - self.start_factor
        ratio = 1.0 + slope / (self.total_iters * self.start_factor + (self.last_epoch - 1) * slope)
        return [group["lr"] * ratio for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    r"""Anneal each learning rate from its base value to ``eta_min`` along a half cosine of ``T_max`` epochs.

    Closed form: lr_t = eta_min + (base_lr - eta_min) * (1 + cos(π t / T_max)) / 2. As in PyTorch,
    each step computes it *recursively* from the current lr (so changes made to ``group['lr']``
    by others carry on), and past ``T_max`` the cosine continues, rising back up::

        lr_t = eta_min + (lr_{t-1} - eta_min) * (1 + cos(π t / T_max)) / (1 + cos(π (t-1) / T_max))

    Args:
        optimizer: the optimizer whose learning rates it sets.
        T_max: the epochs of the half cosine.
        eta_min: the smallest learning rate.
        last_epoch: the index of the last epoch done; -1 (the default) starts from the optimizer's ``lr``.
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,  # noqa: N803 (PyTorch's name)
                 last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return [group["lr"] for group in groups]
        if self._step_count == 1 and self.last_epoch > 0:  # resuming: start from the closed form
            return [self.eta_min
                    + (base_lr - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            # At the cosine's lowest point the ratio below is 0/0: step by the closed form's increment.
            return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (group["lr"] - self.eta_min) + self.eta_min
                for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [self.eta_min
                + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class ReduceLROnPlateau(LRScheduler):
    """Multiply the learning rates by ``factor`` when a metric has stopped improving for ``patience`` epochs.

    ``step(metrics)``: a value is better than the best so far if it beats best * (1 ∓ threshold)
    ('rel') or best ∓ threshold ('abs'); after more than ``patience`` epochs without one,
    lr = max(lr * factor, min_lr) (skipped if that changes lr by no more than ``eps``), then
    ``cooldown`` epochs pass in which bad epochs are not counted.

    Args:
        optimizer: the optimizer whose learning rates it sets.
        mode: ``'min'`` (the metric should fall, a loss) or ``'max'``.
        factor: the multiplier applied on a plateau (below 1).
        patience: the epochs without improvement tolerated before reducing.
        threshold: how much better a value must be to count as an improvement.
        threshold_mode: ``'rel'`` (relative to the best) or ``'abs'``.
        cooldown: the epochs after a reduction in which bad epochs are not counted.
        min_lr: the lower bound, one for all groups or a list of one per group.
        eps: a reduction smaller than this is skipped.
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
                 min_lr: list[float] | float = 0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError(f"Factor should be < 1.0, but got factor={factor}.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = [group["lr"] for group in optimizer.param_groups]
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        """Forget the best value and the bad-epoch and cooldown counters."""
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: SupportsFloat, epoch: int | None = None) -> None:  # type: ignore[override]
        """Record this epoch's ``metrics`` (a number or one-element tensor); reduce the lrs if it is time."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch

        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs during a cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                                   f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                                   "usually due to a new param group being added to the optimizer. Please "
                                   "modify the `min_lrs` field to match the length of the `optimizer` param "
                                   "groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode)


class OneCycleLR(LRScheduler):
    """The 1cycle policy: per batch, lr rises from max_lr / div_factor to ``max_lr``, then falls far below.

    In each phase, lr = anneal(start, end, pct) with pct the fraction of the phase done and anneal
    ``'cos'``: end + (start - end) / 2 * (1 + cos(π pct)), or ``'linear'``: (end - start) * pct + start.
    Phases: initial_lr → max_lr over ``pct_start`` of ``total_steps``, then max_lr → min_lr =
    initial_lr / final_div_factor (``three_phase``: max_lr → initial_lr symmetrically, then → min_lr).
    With ``cycle_momentum``, SGD's momentum (Adam's beta1) goes the opposite way, max_momentum ↔
    base_momentum.

    Args:
        optimizer: the optimizer whose learning rates it sets.
        max_lr: the peak learning rate (or a list, one per group).
        total_steps: the number of steps of the cycle; else ``epochs * steps_per_epoch``.
        epochs: with ``steps_per_epoch``, gives ``total_steps``.
        steps_per_epoch: with ``epochs``, gives ``total_steps``.
        pct_start: the fraction of the cycle spent rising.
        anneal_strategy: ``'cos'`` or ``'linear'``.
        cycle_momentum: move the momentum (Adam's β1) opposite to the learning rate.
        base_momentum: the momentum at the peak learning rate.
        max_momentum: the momentum at the start and end.
        div_factor: initial_lr = max_lr / div_factor.
        final_div_factor: min_lr = initial_lr / final_div_factor.
        three_phase: come back down to initial_lr symmetrically before the final fall.
        last_epoch: the index of the last batch done (-1: start).
    """

    def __init__(self, optimizer: Optimizer, max_lr: float | list[float], total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float | list[float] = 0.85, max_momentum: float | list[float] = 0.95,
                 div_factor: float = 25.0, final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = _one_cycle_phases(pct_start, self.total_steps, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy

        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, group_max_lr in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"] = group_max_lr / div_factor
                group["max_lr"] = group_max_lr
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option "
                                 "enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for group, top, bottom in zip(optimizer.param_groups, max_momentums, base_momentums):
                    self._set_momentum(group, top)
                    group["max_momentum"] = top
                    group["base_momentum"] = bottom
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group: dict[str, Any], momentum: float) -> None:
        if self.use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum

    def _anneal_func(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        """The learning rates at step ``last_epoch``; also sets each group's momentum (or beta1)."""
        self._warn_if_called_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total steps is "
                             f"{self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal_func(group[phase["start_momentum"]],
                                                                    group[phase["end_momentum"]], pct))
                    break
                start_step = phase["end_step"]
        return lrs


def _total_steps(total_steps: Any, epochs: Any, steps_per_epoch: Any) -> int:
    """OneCycleLR's cycle length: ``total_steps``, else ``epochs * steps_per_epoch`` (PyTorch's checks)."""
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is not None and steps_per_epoch is not None:
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
            raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
        return epochs * steps_per_epoch
    raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")


def _one_cycle_phases(pct_start: float, total_steps: int, three_phase: bool) -> list[dict[str, Any]]:
    """OneCycleLR's phases: the step each ends at and the group keys it anneals between."""
    def phase(end_step: float, lr: tuple[str, str], momentum: tuple[str, str]) -> dict[str, Any]:
        return {"end_step": end_step, "start_lr": lr[0], "end_lr": lr[1],
                "start_momentum": momentum[0], "end_momentum": momentum[1]}

    warm_up = phase(float(pct_start * total_steps) - 1, ("initial_lr", "max_lr"),
                    ("max_momentum", "base_momentum"))
    if three_phase:
        return [warm_up,
                phase(float(2 * pct_start * total_steps) - 2, ("max_lr", "initial_lr"),
                      ("base_momentum", "max_momentum")),
                phase(total_steps - 1, ("initial_lr", "min_lr"), ("max_momentum", "max_momentum"))]
    return [warm_up, phase(total_steps - 1, ("max_lr", "min_lr"), ("base_momentum", "max_momentum"))]


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """``param`` as one value per parameter group (a list or tuple must already have one per group)."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has "
                             f"{len(param)} values, param_groups has {len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


def _lambdas_per_group(optimizer: Optimizer, lr_lambda: Any) -> list[Any]:
    """One function for each parameter group: ``lr_lambda`` repeated, or the list checked for length."""
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
    return list(lr_lambda)


def _state_dict_with_lambdas(scheduler: LambdaLR | MultiplicativeLR) -> dict[str, Any]:
    """The scheduler's attributes, with ``lr_lambdas`` replaced by each callable object's ``__dict__``.

    Functions (``def`` or ``lambda``) are code, not state: their entries are ``None``.
    """
    state = {key: value for key, value in scheduler.__dict__.items()
             if key not in ("optimizer", "lr_lambdas")}
    state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                           for fn in scheduler.lr_lambdas]
    return state


def _load_state_dict_with_lambdas(scheduler: LambdaLR | MultiplicativeLR, state_dict: dict[str, Any]) -> None:
    """Restore the attributes and each saved callable object's ``__dict__`` (``state_dict`` is unchanged)."""
    scheduler.__dict__.update({key: value for key, value in state_dict.items() if key != "lr_lambdas"})
    for fn, saved in zip(scheduler.lr_lambdas, state_dict["lr_lambdas"]):
        if saved is not None:
            fn.__dict__.update(saved)


def _track_optimizer_steps(optimizer: Optimizer) -> None:
    """Wrap ``optimizer.step`` once so it records that it ran (for the call-order warning above)."""
    if getattr(optimizer.step, "_wrapped_by_lr_sched", False):
        return
    step = cast(types.MethodType, optimizer.step).__func__  # not wrapped yet: the class's method, bound
    optimizer_ref = weakref.ref(optimizer)  # no reference cycle through the instance attribute

    @wraps(step)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opt = optimizer_ref()
        if opt is not None:
            opt._opt_called = True
        return step(opt, *args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]  # mypy knows no function attributes
    optimizer.step = wrapper  # type: ignore[method-assign]  # on this instance only, as PyTorch's schedulers


from minigrad.compat.unsupported import module_getattr  # noqa: E402

__getattr__ = module_getattr("minigrad.optim.lr_scheduler")  # NotImplementedError: names left out on purpose
