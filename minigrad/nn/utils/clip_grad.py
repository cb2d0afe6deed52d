"""Gradient clipping: rescale (``clip_grad_norm_``) or clamp (``clip_grad_value_``) gradients in place.

    total = ‖(‖g₁‖ₚ, ‖g₂‖ₚ, ...)‖ₚ   (the p-norm of all gradients as one vector)
    every g ← g · min(1, max_norm / (total + 1e-6))

The scale is computed on the device; nothing is copied to the host unless
``error_if_nonfinite`` asks to check the norm.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from minigrad.autograd.grad_mode import no_grad
from minigrad.backend import get_array_module, to_device
from minigrad.tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _gradients(parameters: Tensor | Iterable[Tensor]) -> list:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _norm(array: Any, norm_type: float) -> Any:
    """‖array‖ₚ over all elements, as a 0-d array on the array's device."""
    xp = get_array_module(array)
    magnitude = xp.abs(array)
    if math.isinf(norm_type):
        return magnitude.max() if array.size else xp.zeros((), dtype=array.dtype)
    return (magnitude**norm_type).sum() ** (1.0 / norm_type)


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: Any = None) -> Tensor:
    """Scale all gradients together so that their total p-norm is at most ``max_norm``.

    Returns the total norm before clipping, as a 0-d Tensor.
    """
    from minigrad.creation import tensor  # noqa: PLC0415 (creation imports the ops)

    grads = _gradients(parameters)
    norm_type = float(norm_type)
    if not grads:
        return tensor(0.0)
    xp = get_array_module(grads[0].array)
    device = grads[0].device
    norms = xp.stack([xp.asarray(to_device(_norm(g.array, norm_type), device)) for g in grads])
    total = Tensor(_norm(norms, norm_type))
    if error_if_nonfinite and not bool(xp.isfinite(total.array)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and scale the "
                           "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    scale = xp.minimum(max_norm / (total.array + 1e-6), 1.0)
    with no_grad():
        for g in grads:
            g.mul_(Tensor(to_device(scale, g.device).astype(g.array.dtype)))
    return total


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: Any = None) -> None:
    """Clamp every gradient element into [−clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _gradients(parameters):
            g.clamp_(-clip_value, clip_value)
