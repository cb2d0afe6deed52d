"""RMSprop, plain or centered, with momentum and weight decay (PyTorch's update rule and state)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from minigrad.backend import get_array_module
from minigrad.optim.optimizer import Optimizer, _Loss, advance_step, lerp_, new_step_count
from minigrad.tensor import Tensor

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop, as ``torch.optim.RMSprop``.

    For each parameter θ with gradient g (negated when ``maximize``), every step::

        g = g + weight_decay * θ                    (if weight_decay != 0)
        v = α v + (1 - α) g²                        running mean of g² (``square_avg``)
        m = α m + (1 - α) g;  v~ = v - m²           (if centered; m is ``grad_avg``)
        b = momentum * b + g / (sqrt(v~) + eps)     (if momentum > 0; b is ``momentum_buffer``)
        θ = θ - lr * b      (with momentum)   else   θ = θ - lr * g / (sqrt(v~) + eps)

    where v~ = v unless centered. The square root is taken before eps is added (TensorFlow
    does the opposite). ``state[p]`` holds ``step`` (a 0-d float tensor on the CPU, as in
    PyTorch), ``square_avg`` and, as needed, ``momentum_buffer`` and ``grad_avg``.
    ``foreach`` is accepted for compatibility and changes nothing; ``capturable`` and
    ``differentiable`` are not supported.

    Args:
        params: the parameters to optimise: an iterable of tensors (``model.parameters()``), of (name, tensor)
            pairs, or of dicts, each a parameter group with its own options.
        lr: the learning rate.
        alpha: α, the decay rate of the running means.
        eps: added to the denominator for numerical stability.
        weight_decay: the L2 penalty λ: λ·θ is added to the gradient (default 0).
        momentum: the momentum factor (0: none).
        centered: divide by the estimated variance of the gradient instead of its raw second moment.
        capturable: not supported: must be False (or None).
        foreach: accepted for PyTorch compatibility; changes nothing (minigrad has one implementation).
        maximize: maximise the objective instead of minimising it (the gradient is negated).
        differentiable: not supported: must be False (or None).
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if capturable or differentiable:
            raise NotImplementedError("minigrad's RMSprop does not support capturable=True or "
                                      "differentiable=True")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    _OPTIONS_OF_OLDER_DICTS = {"momentum": 0, "centered": False, "foreach": None, "maximize": False,
                               "differentiable": False, "capturable": False}


    def step(self, closure: Callable[[], _Loss] | None = None) -> _Loss | None:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group, p, grad, state in self._params_with_grad():
            if not state:
                _init_state(state, p, momentum=group["momentum"] > 0, centered=group["centered"])
            self._update(p, _rmsprop_update, p.array, grad.array, state, lr=float(group["lr"]),
                         alpha=group["alpha"], eps=group["eps"], weight_decay=group["weight_decay"],
                         momentum=group["momentum"], centered=group["centered"],
                         maximize=group["maximize"])
        return loss


def _init_state(state: dict, param: Tensor, *, momentum: bool, centered: bool) -> None:
    """Zero averages shaped like ``param`` (and a buffer, a mean gradient as needed); step on the CPU."""
    xp = get_array_module(param.array)
    state["step"] = new_step_count()
    state["square_avg"] = Tensor(xp.zeros_like(param.array))
    if momentum:
        state["momentum_buffer"] = Tensor(xp.zeros_like(param.array))
    if centered:
        state["grad_avg"] = Tensor(xp.zeros_like(param.array))


def _rmsprop_update(param: Any, grad: Any, state: dict, *, lr: float, alpha: float, eps: float,
                    weight_decay: float, momentum: float, centered: bool, maximize: bool) -> None:
    """Update the array ``param`` in place; the averages in ``state`` are updated in place too."""
    xp = get_array_module(param)
    advance_step(state)

    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad + weight_decay * param

    square_avg = state["square_avg"].array
    square_avg *= alpha
    square_avg += (1 - alpha) * grad * grad
    if centered:
        grad_avg = state["grad_avg"].array
        lerp_(grad_avg, grad, 1 - alpha)
        avg = xp.sqrt(square_avg - grad_avg * grad_avg) + eps  # the variance of g, not its raw 2nd moment
    else:
        avg = xp.sqrt(square_avg) + eps

    if momentum > 0:
        buffer = state["momentum_buffer"].array
        buffer *= momentum
        buffer += grad / avg
        param -= lr * buffer
    else:
        param -= lr * grad / avg
