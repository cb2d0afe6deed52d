"""Adagrad, with learning-rate decay and weight decay (PyTorch's update rule and state)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from minigrad.backend import get_array_module
from minigrad.optim.optimizer import Optimizer, _Loss, advance_step, new_step_count
from minigrad.tensor import Tensor

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad, as ``torch.optim.Adagrad``.

    For each parameter θ with gradient g (negated when ``maximize``), at step t = 1, 2, ...::

        lr_t = lr / (1 + (t - 1) * lr_decay)
        g = g + weight_decay * θ                  (if weight_decay != 0)
        s = s + g²                                sum of squared gradients (``sum``), s_0 = τ
        θ = θ - lr_t * g / (sqrt(s) + eps)

    τ is ``initial_accumulator_value``. As in PyTorch, ``state[p]`` (``step``, a 0-d float
    tensor on the CPU, and ``sum``) is created for every parameter when the optimizer is
    built, and τ is the constructor's value for every group: a group's own
    ``initial_accumulator_value`` is stored but not used. ``foreach`` and ``fused`` are
    accepted for compatibility and change nothing; ``differentiable`` is not supported.

    Args:
        params: the parameters to optimise: an iterable of tensors (``model.parameters()``), of (name, tensor)
            pairs, or of dicts, each a parameter group with its own options.
        lr: the learning rate.
        lr_decay: lr_t = lr / (1 + (t − 1)·lr_decay).
        weight_decay: the L2 penalty λ: λ·θ is added to the gradient (default 0).
        initial_accumulator_value: τ, the starting value of the sum of squared gradients.
        eps: added to the denominator for numerical stability.
        foreach: accepted for PyTorch compatibility; changes nothing (minigrad has one implementation).
        maximize: maximise the objective instead of minimising it (the gradient is negated).
        differentiable: not supported: must be False (or None).
        fused: accepted for PyTorch compatibility; changes nothing (minigrad has one implementation).
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if differentiable:
            raise NotImplementedError("minigrad's Adagrad does not support differentiable=True")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                _init_state(self.state[p], p, initial_accumulator_value)

    _OPTIONS_OF_OLDER_DICTS = {"foreach": None, "maximize": False, "differentiable": False, "fused": None}


    def step(self, closure: Callable[[], _Loss] | None = None) -> _Loss | None:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group, p, grad, state in self._params_with_grad():
            if not state:  # a group added later: PyTorch starts it from the default τ
                _init_state(state, p, self.defaults["initial_accumulator_value"])
            self._update(p, _adagrad_update, p.array, grad.array, state, lr=float(group["lr"]),
                         lr_decay=group["lr_decay"], eps=group["eps"],
                         weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss


def _init_state(state: dict, param: Tensor, initial_accumulator_value: float) -> None:
    """The sum starts at τ everywhere, shaped like ``param``; the step count lives on the CPU."""
    xp = get_array_module(param.array)
    state["step"] = new_step_count()
    state["sum"] = Tensor(xp.full_like(param.array, initial_accumulator_value))


def _adagrad_update(param: Any, grad: Any, state: dict, *, lr: float, lr_decay: float, eps: float,
                    weight_decay: float, maximize: bool) -> None:
    """Update the array ``param`` in place; the sum of squares in ``state`` grows in place too."""
    xp = get_array_module(param)
    step = advance_step(state)

    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad + weight_decay * param
    decayed_lr = lr / (1 + (step - 1) * lr_decay)

    state_sum = state["sum"].array
    state_sum += grad * grad
    param -= decayed_lr * grad / (xp.sqrt(state_sum) + eps)
