"""Argument checks of the class losses (``ops/loss.py``: ``cross_entropy``, ``nll_loss``) and every
loss's ``reduction``, in PyTorch's order, with its exceptions and messages. The element-wise losses'
checks are in ``elementwise_losses.py``.

A warning's ``stacklevel`` counts the frames down to the user's call: this function, the loss in
``ops/loss.py``, ``nn.functional``'s entry, the user.
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

import warnings

from minigrad.ops._util import TORCH_TYPE_NAMES
from minigrad.tensor import Tensor

REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction: str) -> None:
    if reduction not in REDUCTIONS + ("elementwise_mean",):
        raise ValueError(f"{reduction} is not a valid value for reduction (expected 'none', 'mean' or 'sum')")


def resolve_reduction(reduction: str) -> str:
    """``reduction`` checked; PyTorch's deprecated 'elementwise_mean' is 'mean', with its warning."""
    check_reduction(reduction)
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=4)
        return "mean"
    return reduction


def check_class_target(input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int) -> None:
    """Shapes (input (N, C, *) with target (N, *), or (C,) with () or (1,)), dtype int64, classes in range.

    Checked in PyTorch's order, which decides the exception type when several are wrong: the input's
    rank and the batch sizes (ValueError), the target's shape, its dtype, the weight (RuntimeError),
    the class values (IndexError).
    """
    shapes = f"input of shape {list(input.shape)}, target of shape {list(target.shape)}"
    if input.ndim == 0:
        raise ValueError(f"Expected 1 or more dimensions (got 0) ({shapes})")
    if input.ndim > 1:
        batch = target.shape[0] if target.ndim else 0  # PyTorch counts a 0-d target as batch 0
        if batch != input.shape[0]:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                             f"({batch}) ({shapes}).")
    if input.ndim == 1:
        if target.ndim > 1:
            raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported ({shapes}: an "
                               f"unbatched input of shape (C,) takes a 0-dimensional target)")
        if target.ndim == 1 and target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{target.shape[0]} ({shapes})")
    elif input.ndim == 2:
        if target.ndim > 1:
            raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported ({shapes})")
    elif tuple(target.shape) != (input.shape[0],) + tuple(input.shape[2:]):
        raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}): "
                           f"the target must have the input's shape without its class dimension 1")
    if target.dtype.name not in ("int64", "uint8"):
        raise RuntimeError(f"expected target dtype to be Long (int64) class indices, but got "
                           f"{target.dtype.name} ({shapes})")
    classes = input.shape[-1] if input.ndim == 1 else input.shape[1]
    if weight is not None and tuple(weight.shape) != (classes,):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes "
                           f"but got weight tensor of shape: {list(weight.shape)}")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.name} but found {weight.dtype.name}: the "
                           f"class weights must have the input's dtype")
    t = target.array
    bad = (t != ignore_index) & ((t < 0) | (t >= classes))
    if t.size and bool(bad.any()):  # checked here: CuPy would silently wrap a bad index around
        value = int(t[bad].reshape(-1)[0])
        raise IndexError(f"Target {value} is out of bounds. (Class indices must lie in [0, {classes - 1}] "
                         f"for an input with {classes} classes, or equal ignore_index={ignore_index}.)")


def label_smoothing_argument(label_smoothing: float) -> float:
    """ε as cross_entropy uses it: at most 1, and 0 for ε ≤ 0 or nan."""
    if label_smoothing > 1.0:  # PyTorch checks only the upper end: ε ≤ 0 (or nan) means no smoothing
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    return label_smoothing if label_smoothing > 0 else 0.0


def check_floating_input(function: str, what: str, input: Tensor) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"{function} expects floating point {what}, got {input.dtype.name}")


def check_probability_target(input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int) -> None:
    """A target of the input's shape holds class probabilities: floating point, no ignore_index."""
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                           f"{TORCH_TYPE_NAMES[target.dtype.name]} (a target of the input's shape "
                           f"{list(input.shape)} holds probabilities; class indices have shape (N, *))")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    classes = input.shape[1 if input.ndim > 1 else 0]
    if weight is not None and tuple(weight.shape) != (classes,):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {classes} "
                           f"classes or no classes but got weight tensor of shape: {list(weight.shape)}")
