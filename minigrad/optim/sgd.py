"""Stochastic gradient descent, with momentum, dampening, Nesterov and weight decay (PyTorch's rule)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from minigrad.backend import get_array_module
from minigrad.optim.optimizer import Optimizer, _Loss
from minigrad.performance.parallel import in_pieces
from minigrad.tensor import Tensor

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Stochastic gradient descent, as ``torch.optim.SGD``.

    For each parameter θ with gradient g (negated when ``maximize``), every step::

        g = g + weight_decay * θ                        (if weight_decay != 0)
        b = g            on the first step,             (if momentum != 0)
        b = momentum * b + (1 - dampening) * g          afterwards
        g = g + momentum * b  if nesterov  else  b
        θ = θ - lr * g

    ``foreach`` and ``fused`` are accepted for PyTorch compatibility and change nothing:
    minigrad has one implementation. ``differentiable=True`` is not supported.

    Args:
        params: the parameters to optimise: an iterable of tensors (``model.parameters()``), of (name, tensor)
            pairs, or of dicts, each a parameter group with its own options.
        lr: the learning rate.
        momentum: the momentum factor (0: none).
        dampening: damping for the momentum: the new gradient enters with weight 1 − dampening.
        weight_decay: the L2 penalty λ: λ·θ is added to the gradient (default 0).
        nesterov: use Nesterov momentum (needs momentum > 0 and dampening 0).
        maximize: maximise the objective instead of minimising it (the gradient is negated).
        foreach: accepted for PyTorch compatibility; changes nothing (minigrad has one implementation).
        differentiable: not supported: must be False (or None).
        fused: accepted for PyTorch compatibility; changes nothing (minigrad has one implementation).
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        if differentiable:
            raise NotImplementedError("minigrad's optimizers do not support differentiable=True")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)

    _OPTIONS_OF_OLDER_DICTS = {"nesterov": False, "maximize": False, "foreach": None, "differentiable": False,
                               "fused": False}

    def step(self, closure: Callable[[], _Loss] | None = None) -> _Loss | None:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                # Only optimizers with momentum keep per-parameter state (as in PyTorch).
                state = self.state[p] if group["momentum"] != 0 else None
                self._update(p, _sgd_update, p.array, p.grad.array, state, lr=float(group["lr"]),
                             momentum=group["momentum"], dampening=group["dampening"],
                             weight_decay=group["weight_decay"], nesterov=group["nesterov"],
                             maximize=group["maximize"])
        return loss


def _sgd_update(param: Any, grad: Any, state: dict | None, *, lr: float, momentum: float, dampening: float,
                weight_decay: float, nesterov: bool, maximize: bool) -> None:
    """Update the array ``param`` in place from ``grad``; ``state`` holds the momentum buffer.

    The arithmetic is element by element, so a large parameter is updated in pieces on minigrad's
    threads (``minigrad/performance/parallel.py``), with the same numbers.
    """
    buffer, first_step = None, False
    if state is not None:  # SGD keeps a state (the momentum buffer) only with momentum
        first_step = state.get("momentum_buffer") is None
        if first_step:
            state["momentum_buffer"] = Tensor(get_array_module(grad).empty_like(grad))   # filled below
        buffer = state["momentum_buffer"].array

    def update(param: Any, grad: Any, buffer: Any) -> None:
        direction = -grad if maximize else grad
        if weight_decay != 0:
            direction = direction + weight_decay * param
        if buffer is not None:
            if first_step:
                # The first step starts the running average at the gradient itself (no dampening).
                buffer[...] = direction
            else:
                buffer *= momentum
                buffer += (1 - dampening) * direction
            direction = direction + momentum * buffer if nesterov else buffer
        param -= lr * direction

    in_pieces(update, param, grad, buffer, passes=6)
