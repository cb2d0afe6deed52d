"""Adam and AdamW (PyTorch's update rules, bias correction and state)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from minigrad.backend import get_array_module
from minigrad.optim.optimizer import Optimizer, _Loss, advance_step, lerp_, new_step_count
from minigrad.performance.parallel import in_pieces
from minigrad.tensor import Tensor

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    r"""Adam, as ``torch.optim.Adam``.

    For each parameter θ with gradient g (negated when ``maximize``), at step t = 1, 2, ...::

        g = g + weight_decay * θ         (L2 penalty; AdamW instead shrinks θ *= 1 - lr * weight_decay)
        m = β1 m + (1 - β1) g            first moment (``exp_avg``)
        v = β2 v + (1 - β2) g²           second moment (``exp_avg_sq``; with amsgrad, v_max = max(v_max, v))
        θ = θ - lr / (1 - β1^t) * m / (sqrt(v) / sqrt(1 - β2^t) + eps)

    ``state[p]`` holds ``step`` (a 0-d float tensor on the CPU, as in PyTorch), ``exp_avg``,
    ``exp_avg_sq`` and, with amsgrad, ``max_exp_avg_sq``. ``foreach`` and ``fused`` are
    accepted for compatibility and change nothing; ``capturable`` and ``differentiable``
    are not supported.

    Args:
        params: the parameters to optimise: an iterable of tensors (``model.parameters()``), of (name, tensor)
            pairs, or of dicts, each a parameter group with its own options.
        lr: the learning rate.
        betas: (β1, β2): the decay rates of the running means of the gradient and of its square.
        eps: added to the denominator for numerical stability.
        weight_decay: the L2 penalty λ: λ·θ is added to the gradient (default 0). With
            ``decoupled_weight_decay``: AdamW's shrinking instead.
        amsgrad: use the largest second moment so far (AMSGrad).
        foreach: accepted for PyTorch compatibility; changes nothing (minigrad has one implementation).
        maximize: maximise the objective instead of minimising it (the gradient is negated).
        capturable: not supported: must be False (or None).
        differentiable: not supported: must be False (or None).
        fused: accepted for PyTorch compatibility; changes nothing (minigrad has one implementation).
        decoupled_weight_decay: shrink θ by lr·weight_decay each step (AdamW) instead of adding the L2 term to
            the gradient.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if capturable or differentiable:
            raise NotImplementedError("minigrad's Adam does not support capturable=True or "
                                      "differentiable=True")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], _Loss] | None = None) -> _Loss | None:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._evaluate(closure)
        for group, p, grad, state in self._params_with_grad():
            if not state:
                _init_state(state, p, group["amsgrad"])
            self._update(p, _adam_update, p.array, grad.array, state, lr=float(group["lr"]),
                         betas=group["betas"], eps=group["eps"], weight_decay=group["weight_decay"],
                         amsgrad=group["amsgrad"], maximize=group["maximize"],
                         decoupled=group["decoupled_weight_decay"])
        return loss

    _OPTIONS_OF_OLDER_DICTS = {"amsgrad": False, "maximize": False, "foreach": None, "capturable": False,
                               "differentiable": False, "decoupled_weight_decay": False, "fused": None}



class AdamW(Adam):
    """Adam with decoupled weight decay, as ``torch.optim.AdamW``: θ *= 1 - lr * weight_decay each step.

    Args:
        params: the parameters to optimise: an iterable of tensors (``model.parameters()``), of (name, tensor)
            pairs, or of dicts, each a parameter group with its own options.
        lr: the learning rate.
        betas: (β1, β2): the decay rates of the running means of the gradient and of its square.
        eps: added to the denominator for numerical stability.
        weight_decay: the decoupled decay: θ *= 1 − lr·weight_decay each step.
        amsgrad: use the largest second moment so far (AMSGrad).
        maximize: maximise the objective instead of minimising it (the gradient is negated).
        foreach: accepted for PyTorch compatibility; changes nothing (minigrad has one implementation).
        capturable: not supported: must be False (or None).
        differentiable: not supported: must be False (or None).
        fused: accepted for PyTorch compatibility; changes nothing (minigrad has one implementation).
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        for group in self.param_groups:  # AdamW always decays decoupled, whatever the dict says
            group["decoupled_weight_decay"] = True


def _init_state(state: dict, param: Tensor, amsgrad: bool) -> None:
    """Zero moments shaped like ``param``; the step count lives on the CPU, as in PyTorch."""
    xp = get_array_module(param.array)
    state["step"] = new_step_count()
    state["exp_avg"] = Tensor(xp.zeros_like(param.array))
    state["exp_avg_sq"] = Tensor(xp.zeros_like(param.array))
    if amsgrad:
        state["max_exp_avg_sq"] = Tensor(xp.zeros_like(param.array))


def _adam_update(param: Any, grad: Any, state: dict, *, lr: float, betas: tuple[float, float], eps: float,
                 weight_decay: float, amsgrad: bool, maximize: bool, decoupled: bool) -> None:
    """Update the array ``param`` in place; the moments in ``state`` are updated in place too.

    The arithmetic is element by element, so a large parameter is updated in pieces on minigrad's
    threads (``minigrad/performance/parallel.py``), with the same numbers.
    """
    beta1, beta2 = betas
    step = advance_step(state)
    step_size = lr / (1 - beta1**step)
    bias_correction2_sqrt = (1 - beta2**step) ** 0.5

    def update(param: Any, grad: Any, exp_avg: Any, exp_avg_sq: Any, max_exp_avg_sq: Any) -> None:
        xp = get_array_module(param)
        if maximize:
            grad = -grad
        if weight_decay != 0:
            if decoupled:
                param *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * param

        lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += (1 - beta2) * grad * grad

        if amsgrad:
            xp.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
            denom = xp.sqrt(max_exp_avg_sq) / bias_correction2_sqrt + eps
        else:
            denom = xp.sqrt(exp_avg_sq) / bias_correction2_sqrt + eps
        param += -step_size * exp_avg / denom

    max_exp_avg_sq = state["max_exp_avg_sq"].array if amsgrad else None
    in_pieces(update, param, grad, state["exp_avg"].array, state["exp_avg_sq"].array, max_exp_avg_sq,
              passes=12)
