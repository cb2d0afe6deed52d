"""Argument checks of the element-wise losses (``ops/elementwise_losses.py``: binary cross-entropy,
MSE, L1, smooth L1, Huber, KL divergence), in PyTorch's order, with its exceptions and messages.

A warning's ``stacklevel`` counts the frames down to the user's call: this function, the loss in
``ops/elementwise_losses.py``, ``nn.functional``'s entry, the user.
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

import warnings

from minigrad.ops._util import TORCH_TYPE_NAMES, check_broadcast, check_broadcast_shapes, not_implemented_for
from minigrad.tensor import Tensor


def check_weight_shape(name: str, weight: Tensor, input: Tensor) -> None:
    """``weight`` must broadcast to the input's shape without enlarging it (PyTorch multiplies in place)."""
    shape, given = tuple(input.shape), tuple(weight.shape)
    try:
        check_broadcast_shapes(shape, given)
    except RuntimeError as error:
        raise RuntimeError(f"{error}: {name} of shape {list(given)} does not broadcast to the input's "
                           f"shape {list(shape)}") from None
    ndim = max(len(shape), len(given))
    a, b = (1,) * (ndim - len(shape)) + shape, (1,) * (ndim - len(given)) + given
    broadcast = tuple(n if n != 1 else m for n, m in zip(a, b))
    if broadcast != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(broadcast)} ({name} of shape {list(given)} is larger than the input)")


def check_probabilities(input: Tensor, target: Tensor) -> None:
    """Every input and target element in [0, 1] (nan is not), as PyTorch's kernel checks them in turn."""
    x, y = input.array.reshape(-1), target.array.reshape(-1)
    bad_x, bad_y = ~((x >= 0) & (x <= 1)), ~((y >= 0) & (y <= 1))
    bad = bad_x | bad_y
    if bad.size and bool(bad.any()):
        first = int(bad.argmax())
        name, values = ("input", x) if bool(bad_x[first]) else ("target", y)
        raise RuntimeError(f"all elements of {name} should be between 0 and 1 (got {float(values[first])} at "
                           f"flat index {first} of the {name} of shape {list(input.shape)})")


def check_bce_with_logits(input: Tensor, target: Tensor, weight: Tensor | None,
                          pos_weight: Tensor | None) -> None:
    """Floating logits, a floating target of their shape, weights that broadcast to it."""
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    if not input.dtype.is_floating_point:
        raise not_implemented_for("log_sigmoid_cpu", input)
    if target.dtype.name == "bool":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                           "`^` or `logical_xor()` operator instead. (binary_cross_entropy_with_logits "
                           "computes 1 - target; give a floating point target)")
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"result type {TORCH_TYPE_NAMES[input.dtype.name]} can't be cast to the desired "
                           f"output type {TORCH_TYPE_NAMES[target.dtype.name]} (the target of dtype "
                           f"{target.dtype.name} must be floating point, as the input of dtype "
                           f"{input.dtype.name})")
    if pos_weight is not None:
        check_weight_shape("pos_weight", pos_weight, input)
    if weight is not None:
        check_weight_shape("weight", weight, input)


def check_bce(input: Tensor, target: Tensor, weight: Tensor | None) -> None:
    """Probabilities in [0, 1] and a target of their shape and dtype, a weight that broadcasts to it."""
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        check_weight_shape("weight", weight, input)
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {TORCH_TYPE_NAMES[target.dtype.name]} but expected "
                           f"{TORCH_TYPE_NAMES[input.dtype.name]} (binary_cross_entropy needs a target of "
                           f"the input's dtype: input {input.dtype.name}, target {target.dtype.name})")
    if not input.dtype.is_floating_point:
        raise not_implemented_for("binary_cross_entropy", input)
    check_probabilities(input, target)


def check_mse(input: Tensor, target: Tensor) -> None:
    """A floating operand, and a warning (then broadcasting) when the shapes differ."""
    if not (input.dtype.is_floating_point or target.dtype.is_floating_point):
        raise NotImplementedError(f"mse_loss is not implemented for integer tensors (got {input.dtype.name} "
                                  f"and {target.dtype.name})")
    check_shapes(input, target, stacklevel=5)


def check_mse_weight(weight: Tensor, input: Tensor) -> None:
    if weight.shape != input.shape:
        raise ValueError(f"Weights and input must have the same size (weight of shape "
                         f"{list(weight.shape)}, input of shape {list(input.shape)}).")


def check_regression(kernel: str, input: Tensor, target: Tensor) -> None:
    """A floating operand (PyTorch's ``kernel`` has none for integers), and a warning (then broadcasting)
    when the shapes differ, as ``mse_loss``."""
    if not (input.dtype.is_floating_point or target.dtype.is_floating_point):
        raise not_implemented_for(kernel, input)
    check_shapes(input, target, stacklevel=5)


def check_shapes(input: Tensor, target: Tensor, stacklevel: int = 4) -> None:
    """``stacklevel`` counts the frames down to the user's call (through ``F``)."""
    if input.shape != target.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=stacklevel)
    check_broadcast(input, target)


def check_loss_weight(weight: Tensor, losses: Tensor) -> None:
    if weight.shape != losses.shape:
        raise ValueError(f"Weights and input must have the same size. (weight of shape {list(weight.shape)}, "
                         f"input of shape {list(losses.shape)})")


def check_l1(input: Tensor, target: Tensor, reduction: str) -> None:
    """Integers are fine unless averaged: |x − y| summed or not reduced stays integer."""
    if not (input.dtype.is_floating_point or target.dtype.is_floating_point) and reduction == "mean":
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {TORCH_TYPE_NAMES[input.dtype.name]} (l1_loss of "
                           f"integer tensors: use reduction='sum' or 'none', or floating point tensors)")
    check_shapes(input, target, stacklevel=5)


def check_beta(beta: float) -> None:
    if beta < 0:
        raise RuntimeError(f"smooth_l1_loss does not support negative values for beta. (got beta={beta})")


def check_delta(delta: float) -> None:
    if delta <= 0:
        raise RuntimeError(f"huber_loss does not support non-positive values for delta. (got delta={delta})")


def check_kl_div(input: Tensor, target: Tensor) -> None:
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError(f"kl_div: Integral inputs not supported. (input of dtype {input.dtype.name}, "
                           f"target of dtype {target.dtype.name})")
    check_broadcast(input, target)
