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
from minigrad.ops._checks import dropout as checks
from minigrad.ops._util import grad_where, ieee_results
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
            return Tensor(x * ctx.mask)

    @staticmethod
    def backward(ctx, grad):
        return MaskBackward.apply(grad, ctx.mask), None, None, None


class MaskBackward(Function):
    """dropout's backward, dx = dy ⊙ m / (1 − p) for its mask (an array, a constant): linear in dy, so
    d(dx)/d(dy) is the same product.

    Selected, not multiplied: a dropped element gets exactly 0 even where dy is nan or inf.
    (PyTorch multiplies here, so it gives nan there; minigrad follows its rule that masks select.)
    """

    node_name = "MulBackward0"  # PyTorch's: its backward multiplies by the mask again
    graph_inputs = (0,)

    @staticmethod
    def forward(ctx, grad, mask):
        ctx.mask = mask
        with ieee_results():
            return Tensor(grad_where(mask != 0, grad.array * mask))

    @staticmethod
    def backward(ctx, grad_grad):
        return MaskBackward.apply(grad_grad, ctx.mask), None


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace_: bool = False, *,
            generator: Generator | None = None) -> Tensor:
    """``F.dropout``: identity unless ``training``; ``generator`` fixes the mask (minigrad's addition)."""
    checks.check_probability(p)
    checks.check_not_nan(p)
    if not training or p == 0:  # the identity, for any dtype
        return input
    checks.check_floating(input)
    if inplace_:
        return inplace.apply(input, "dropout_", lambda t: Dropout.apply(t, p, generator))
    return Dropout.apply(input, p, generator)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace_: bool = False, *,
              generator: Generator | None = None) -> Tensor:
    """``F.dropout2d`` on (N, C, H, W): whole channels dropped; a 3-D input is read as (N, C, L), as
    PyTorch does today (with its warning), other sizes warn as deprecated."""
    checks.check_probability(p)
    checks.warn_dropout2d_shape(input)
    if not training or p == 0:
        return input
    checks.check_features(input)
    if inplace_:
        return inplace.apply(input, "dropout2d_", lambda t: Dropout.apply(t, p, generator, True))
    return Dropout.apply(input, p, generator, True)
