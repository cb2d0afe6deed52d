"""Adadelta, with weight decay (PyTorch's update rule and state)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from minigrad.backend import get_array_module
from minigrad.optim.optimizer import Optimizer, _Loss, advance_step, new_step_count
from minigrad.tensor import Tensor

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta, as ``torch.optim.Adadelta``.

    For each parameter θ with gradient g (negated when ``maximize``), every step::

        g = g + weight_decay * θ                    (if weight_decay != 0)
        v = ρ v + (1 - ρ) g²                        running mean of g² (``square_avg``)
        Δ = sqrt(u + eps) / sqrt(v + eps) * g       the step, in the units of θ
        u = ρ u + (1 - ρ) Δ²                        running mean of Δ² (``acc_delta``)
        θ = θ - lr * Δ

    ``state[p]`` holds ``step`` (a 0-d float tensor on the CPU, as in PyTorch),
    ``square_avg`` and ``acc_delta``. ``foreach`` is accepted for compatibility and changes
    nothing; ``capturable`` and ``differentiable`` are not supported.

    Args:
        params: the parameters to optimise: an iterable of tensors (``model.parameters()``), of (name, tensor)
            pairs, or of dicts, each a parameter group with its own options.
        lr: scales the step Δ (1 in the original method).
        rho: ρ, the decay rate of the running means.
        eps: added to the denominator for numerical stability.
        weight_decay: the L2 penalty λ: λ·θ is added to the gradient (default 0).
        foreach: accepted for PyTorch compatibility; changes nothing (minigrad has one implementation).
        capturable: not supported: must be False (or None).
        maximize: maximise the objective instead of minimising it (the gradient is negated).
        differentiable: not supported: must be False (or None).
    """

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if capturable or differentiable:
            raise NotImplementedError("minigrad's Adadelta does not support capturable=True or "
                                      "differentiable=True")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    _OPTIONS_OF_OLDER_DICTS = {"foreach": None, "maximize": False, "differentiable": False,
                               "capturable": False}


    def step(self, closure: Callable[[], _Loss] | None = None) -> _Loss | None:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group, p, grad, state in self._params_with_grad():
            if not state:
                _init_state(state, p)
            self._update(p, _adadelta_update, p.array, grad.array, state, lr=float(group["lr"]),
                         rho=group["rho"], eps=group["eps"], weight_decay=group["weight_decay"],
                         maximize=group["maximize"])
        return loss


def _init_state(state: dict, param: Tensor) -> None:
    """Zero averages shaped like ``param``; the step count lives on the CPU, as in PyTorch."""
    xp = get_array_module(param.array)
    state["step"] = new_step_count()
    state["square_avg"] = Tensor(xp.zeros_like(param.array))
    state["acc_delta"] = Tensor(xp.zeros_like(param.array))


def _adadelta_update(param: Any, grad: Any, state: dict, *, lr: float, rho: float, eps: float,
                     weight_decay: float, maximize: bool) -> None:
    """Update the array ``param`` in place; the averages in ``state`` are updated in place too."""
    xp = get_array_module(param)
    advance_step(state)

    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad + weight_decay * param

    square_avg, acc_delta = state["square_avg"].array, state["acc_delta"].array
    square_avg *= rho
    square_avg += (1 - rho) * grad * grad
    delta = xp.sqrt(acc_delta + eps) / xp.sqrt(square_avg + eps) * grad
    acc_delta *= rho
    acc_delta += (1 - rho) * delta * delta
    param -= lr * delta
