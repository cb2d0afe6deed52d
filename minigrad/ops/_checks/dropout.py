"""Argument checks of dropout (``ops/dropout.py``), with PyTorch's exceptions, warnings and messages.

A warning's ``stacklevel`` counts the frames down to the user's call: this function, the dropout in
``ops/dropout.py``, ``nn.functional``'s entry, the user.
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

import warnings

from minigrad.tensor import Tensor


def check_probability(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def check_not_nan(p: float) -> None:
    if p != p:  # nan passes the check above in PyTorch too, and fails in its kernel
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def check_floating(input: Tensor) -> None:
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"dropout expects a floating point input, got dtype {input.dtype.name}")


def warn_dropout2d_shape(input: Tensor) -> None:
    """PyTorch's warnings for a 3-D input (read as (N, C, L)) and for sizes other than 3-D and 4-D."""
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel "
                      "dim. This behavior will change in a future release to interpret the input as one "
                      "without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.", stacklevel=4)
    elif input.ndim != 4:
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and "
                      "will result in an error in a future release. To retain the behavior and silence this "
                      "warning, please use dropout instead. Note that dropout2d exists to provide "
                      "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and an "
                      "optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=4)


def check_features(input: Tensor) -> None:
    if input.ndim < 2:
        raise RuntimeError(f"Feature dropout requires at least 2 dimensions in the input, but got input of "
                           f"shape {list(input.shape)}")
