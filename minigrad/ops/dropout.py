"""Dropout: zero each element with probability p and scale the survivors by 1 / (1 − p).

The mask is drawn on the host from minigrad's seeded generator and copied to the
input's device, so ``mg.manual_seed(s)`` gives the same mask on CPU and GPU.
The backward lets the gradient through exactly where the forward let values through.
"""

# ruff: noqa: A001, A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from typing import Any

from minigrad import backend
from minigrad.autograd.function import Function
from minigrad.ops import inplace
from minigrad.ops._util import ieee_results, wrap
from minigrad.random import Generator, default_generator
from minigrad.tensor import Tensor


def dropout_mask(shape: tuple, p: float, dtype: Any, device: backend.Device,
                 generator: Generator | None = None) -> Any:
    """m / (1 − p) with m ~ Bernoulli(1 − p) elementwise, as an array of ``dtype`` on ``device``."""
    keep = (generator or default_generator).rng.random(shape) >= p      # P(keep) = 1 − p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    return backend.from_host(keep.astype(dtype) * dtype.type(scale), device)


class Dropout(Function):
    """y = x ⊙ m / (1 − p);   dx = dy ⊙ m / (1 − p)   (the same mask)."""

    @staticmethod
    def forward(ctx, input, p, generator=None):
        x = input.array
        ctx.mask = dropout_mask(x.shape, p, x.dtype, input.device, generator)
        with ieee_results():  # inf · 0 = nan, as in PyTorch
            return wrap(x * ctx.mask)

    @staticmethod
    def backward(ctx, grad):
        with ieee_results():
            return wrap(grad.array * ctx.mask), None, None


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
