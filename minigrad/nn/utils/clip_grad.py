"""Gradient clipping: rescale (``clip_grad_norm_``) or clamp (``clip_grad_value_``) gradients in place.

    total = ‖(‖g₁‖ₚ, ‖g₂‖ₚ, ...)‖ₚ   (the p-norm of all gradients as one vector)
    every g ← g · min(1, max_norm / (total + 1e-6))

As in PyTorch, ``clip_grad_norm_`` is the two halves ``get_total_norm`` and
``clip_grads_with_norm_``. The scale is computed on the device; nothing is copied to the
host unless ``error_if_nonfinite`` asks to check the norm.
"""

from __future__ import annotations

import math
import types
import warnings
from collections.abc import Iterable
from typing import Any

from minigrad.autograd.grad_mode import no_grad
from minigrad.backend import get_array_module, to_device
from minigrad.ops._util import ieee_results
from minigrad.tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(tensors: Tensor | Iterable[Tensor]) -> list:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _gradients(parameters: Tensor | Iterable[Tensor]) -> list:
    return [p.grad for p in _as_list(parameters) if p.grad is not None]


def _norm(array: Any, norm_type: float) -> Any:
    """‖array‖ₚ over all elements, as a 0-d array on the array's device (``torch.linalg.vector_norm``).

    p = inf: the largest |x|;  p = −inf: the smallest;  p = 0: how many x are non-zero.
    """
    xp = get_array_module(array)
    magnitude = xp.abs(array)
    if norm_type == math.inf:
        return magnitude.max() if array.size else xp.zeros((), dtype=array.dtype)
    if norm_type == -math.inf:
        if not array.size:
            raise RuntimeError("linalg.vector_norm cannot compute the -inf norm on an empty tensor because "
                               "the operation does not have an identity")
        return magnitude.min()
    if norm_type == 0:
        return xp.asarray((magnitude != 0).sum()).astype(array.dtype)
    with ieee_results():  # a negative p turns a zero into inf (and the norm into 0), as in PyTorch
        return (magnitude**norm_type).sum() ** (1.0 / norm_type)


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: Any = None) -> Tensor:
    """The p-norm of all ``tensors`` (usually gradients) together, as one 0-d Tensor."""
    from minigrad.creation import tensor  # noqa: PLC0415 (creation imports the ops)

    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    xp = get_array_module(tensors[0].array)
    device = tensors[0].device
    norms = xp.stack([xp.asarray(to_device(_norm(t.array, norm_type), device)) for t in tensors])
    total = Tensor(_norm(norms, norm_type))
    if error_if_nonfinite and not bool(xp.isfinite(total.array)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and scale the "
                           "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor,
                          foreach: Any = None) -> None:
    """Scale every gradient by min(1, max_norm / (total_norm + 1e-6)), in place."""
    grads = _gradients(parameters)
    if not grads:
        return
    total = total_norm.array if isinstance(total_norm, Tensor) else total_norm
    xp = get_array_module(grads[0].array)
    scale = xp.minimum(float(max_norm) / (total + 1e-6), 1.0)
    with no_grad(), ieee_results():  # an infinite gradient times a zero scale is nan, without a warning
        for g in grads:
            g.mul_(Tensor(to_device(scale, g.device).astype(g.array.dtype)))


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: Any = None) -> Tensor:
    """Scale all gradients together so that their total p-norm is at most ``max_norm``.

    Returns the total norm before clipping, as a 0-d Tensor.
    """
    if not isinstance(parameters, Tensor):
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    total = get_total_norm(_gradients(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: Any = None) -> None:
    """Clamp every gradient element into [−clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _gradients(parameters):
            g.clamp_(-clip_value, clip_value)
