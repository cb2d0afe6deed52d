"""Argument checks of ``F.linear`` (``ops/linear.py``), with PyTorch's exceptions and messages."""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from minigrad.tensor import Tensor


def check_linear(input: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """An input (*, in_features), a weight (out_features, in_features) and a bias, of one dtype."""
    if input.ndim == 0 or weight.ndim != 2:
        raise RuntimeError(f"linear: expected an input of at least 1 dimension and a 2-D weight, but got "
                           f"input of shape {list(input.shape)} and weight of shape {list(weight.shape)}")
    if input.shape[-1] != weight.shape[1]:
        rows = input.numel() // max(input.shape[-1], 1) if input.ndim > 1 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and "
                           f"{weight.shape[1]}x{weight.shape[0]}): the input of shape {list(input.shape)} "
                           f"has {input.shape[-1]} features but the weight of shape {list(weight.shape)} "
                           f"expects {weight.shape[1]} (in_features)")
    for name, other in (("weight", weight), ("bias", bias)):
        if other is not None and other.dtype is not input.dtype:
            raise RuntimeError(f"linear: expected input and {name} to have the same dtype, but got input of "
                               f"dtype {input.dtype.name} and {name} of dtype {other.dtype.name}")
    if bias is not None:
        check_bias_expands(bias, input.shape, weight.shape[0])


def check_bias_expands(bias: Tensor, input_shape: tuple, out_features: int) -> None:
    """The bias is added to the output, so it must expand to the output's shape (*, out_features)."""
    target = tuple(input_shape[:-1]) + (out_features,)
    if bias.ndim > len(target):
        raise RuntimeError(f"expand(bias of shape {list(bias.shape)}, size={list(target)}): the number of "
                           f"sizes provided ({len(target)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({bias.ndim}) (the bias must expand to the output)")
    lead = len(target) - bias.ndim
    for i in reversed(range(bias.ndim)):
        if bias.shape[i] not in (1, target[lead + i]):
            raise RuntimeError(f"The expanded size of the tensor ({target[lead + i]}) must match the "
                               f"existing size ({bias.shape[i]}) at non-singleton dimension {lead + i}.  "
                               f"Target sizes: {list(target)}.  Tensor sizes: {list(bias.shape)} (linear's "
                               f"bias must expand to its output)")
