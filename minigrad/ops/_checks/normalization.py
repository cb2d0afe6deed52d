"""Argument checks of batch normalisation (``ops/normalization.py``), with PyTorch's exceptions and
messages."""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

import math

from minigrad.tensor import Tensor


def check_channel_vector(name: str, value: Tensor | None, channels: int) -> None:
    if value is not None and tuple(value.shape) != (channels,):
        raise RuntimeError(f"batch_norm: {name} should contain {channels} elements (one per channel of the "
                           f"input), but got a tensor of shape {list(value.shape)}")


def check_batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
                     weight: Tensor | None, bias: Tensor | None, training: bool) -> None:
    """Input (N, C, *); per-channel vectors of C elements; running statistics as the mode needs them."""
    if input.ndim < 2:
        raise ValueError(f"batch_norm expects an input of at least 2 dimensions (N, C, ...), but got "
                         f"input of shape {list(input.shape)}")
    channels = input.shape[1]
    for name, value in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                        ("bias", bias)):
        check_channel_vector(name, value, channels)
    if training:
        if input.shape[0] * math.prod(input.shape[2:]) == 1:   # one value per channel: no variance
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{input.shape}")
        if (running_mean is None) != (running_var is None):
            raise RuntimeError("batch_norm: running_mean and running_var must both be given or both be None")
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
