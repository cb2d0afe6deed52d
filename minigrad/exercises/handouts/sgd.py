"""Exercise 8 — SGD with momentum, dampening, Nesterov and weight decay, step for step as PyTorch's.

For each parameter θ with gradient g, every ``step()`` does, in this order:

    g = g + weight_decay · θ                          (if weight_decay ≠ 0)
    if momentum ≠ 0:
        b = g                                         on the parameter's first step (a copy!)
        b = momentum · b + (1 − dampening) · g        on every later step
        g = g + momentum · b   if nesterov,   else  g = b
    θ = θ − lr · g

The momentum buffer b lives in ``self.state[p]["momentum_buffer"]`` (that is where PyTorch
keeps it, so ``state_dict()`` saves it). The order matters: weight decay enters the
buffer; Nesterov looks ahead with the *updated* buffer; the first step starts the
buffer at g itself, without dampening.

Write it with tensor operations inside ``no_grad()`` (an update is not part of the
graph): ``p.add_(d, alpha=-lr)`` is θ ← θ − lr·d; ``buf.mul_(m).add_(g, alpha=1 - dampening)``
updates a buffer in place; ``g.add(p, alpha=wd)`` makes a new tensor.
Hint: never change ``p.grad`` itself; ``g.clone()`` when the buffer starts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from minigrad.autograd import enable_grad, no_grad
from minigrad.optim.optimizer import Optimizer


class SGD(Optimizer):
    """θ ← θ − lr · (momentum buffer, Nesterov's look-ahead, or the gradient), with L2 weight decay."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False) -> None:
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov})

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:  # as PyTorch's: re-evaluate the loss (and its gradients) first
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
                weight_decay, nesterov = group["weight_decay"], group["nesterov"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = p.grad
                    state = self.state[p]
                    if weight_decay != 0:
                        raise NotImplementedError('weight decay: it joins the gradient as a new tensor (p.grad stays)')
                    if momentum != 0:
                        raise NotImplementedError("momentum: the buffer (first a copy of g), Nesterov's look-ahead")
                    raise NotImplementedError('the step: θ ← θ − lr·g, in place')
        return loss
