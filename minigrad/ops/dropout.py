"""Dropout: zero each element with probability p and scale the survivors by 1 / (1 − p).

The mask is drawn on the host from minigrad's seeded generator and copied to the
input's device, so ``mg.manual_seed(s)`` gives the same mask on CPU and GPU.
The backward lets the gradient through exactly where the forward let values through.
"""

# ruff: noqa: A001, A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

import warnings
from typing import Any

from minigrad import backend
from minigrad.autograd.function import Function
from minigrad.ops import inplace
from minigrad.ops._util import grad_where, ieee_results, wrap
from minigrad.random import Generator, default_generator
from minigrad.tensor import Tensor


def dropout_mask(shape: tuple, p: float, dtype: Any, device: backend.Device,
                 generator: Generator | None = None) -> Any:
    """m / (1 − p) with m ~ Bernoulli(1 − p) elementwise, as an array of ``dtype`` on ``device``."""
    keep = (generator or default_generator).rng.random(shape) >= p      # P(keep) = 1 − p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    return backend.from_host(keep.astype(dtype) * dtype.type(scale), device)


class Dropout(Function):
    """y = x ⊙ m / (1 − p);   dx = dy ⊙ m / (1 − p) where m = 1, exactly 0 where m = 0 (the same mask).

    ``per_channel``: one Bernoulli draw per (n, c), broadcast over the pixels (``dropout2d``).
    """

    node_name = "MulBackward0"  # PyTorch multiplies by a scaled mask: (input, mask)
    graph_inputs = (0, 1)  # the mask (here p stands for it) is the edge (None, 0)

    @staticmethod
    def forward(ctx, input, p, generator=None, per_channel=False):
        x = input.array
        shape = x.shape[:2] + (1,) * (x.ndim - 2) if per_channel else x.shape
        ctx.mask = dropout_mask(shape, p, x.dtype, input.device, generator)
        with ieee_results():  # inf · 0 = nan, as in PyTorch
            return wrap(x * ctx.mask)

    @staticmethod
    def backward(ctx, grad):
        # Selected, not multiplied: a dropped element gets exactly 0 even where δ is nan or inf.
        # (PyTorch multiplies here, so it gives nan there; minigrad follows its rule that masks select.)
        return wrap(grad_where(ctx.mask != 0, grad.array * ctx.mask)), None, None, None


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace_: bool = False, *,
            generator: Generator | None = None) -> Tensor:
    """``F.dropout``: identity unless ``training``; ``generator`` fixes the mask (minigrad's addition)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p != p:  # nan passes the check above in PyTorch too, and fails in its kernel
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:  # the identity, for any dtype
        return input
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"dropout expects a floating point input, got dtype {input.dtype.name}")
    if inplace_:
        return inplace.apply(input, "dropout_", lambda t: Dropout.apply(t, p, generator))
    return Dropout.apply(input, p, generator)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace_: bool = False, *,
              generator: Generator | None = None) -> Tensor:
    """``F.dropout2d`` on (N, C, H, W): whole channels dropped; a 3-D input is read as (N, C, L), as
    PyTorch does today (with its warning), other sizes warn as deprecated."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel "
                      "dim. This behavior will change in a future release to interpret the input as one "
                      "without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.", stacklevel=3)
    elif input.ndim != 4:
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and "
                      "will result in an error in a future release. To retain the behavior and silence this "
                      "warning, please use dropout instead. Note that dropout2d exists to provide "
                      "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and an "
                      "optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=3)
    if not training or p == 0:
        return input
    if input.ndim < 2:
        raise RuntimeError(f"Feature dropout requires at least 2 dimensions in the input, but got input of "
                           f"shape {list(input.shape)}")
    if inplace_:
        return inplace.apply(input, "dropout2d_", lambda t: Dropout.apply(t, p, generator, True))
    return Dropout.apply(input, p, generator, True)
