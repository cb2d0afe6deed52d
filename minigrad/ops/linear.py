"""``F.linear`` (the affine map of ``nn.Linear``), built as PyTorch builds it: y = x Wᵀ + b.

For a batch of rows x (N, in), W (out, in) and b (out), ``linear`` is one ``addmm(b, x, Wᵀ)``:

    dx = dy W,     dW = (xᵀ dy)ᵀ = dyᵀ x,     db = Σ dy over the rows

so the graph shows PyTorch's nodes: ``AddmmBackward0`` with ``TBackward0`` (the transpose of W,
a view) before it, or ``MmBackward0`` without a bias. Other shapes of x are flattened to rows
and back, with PyTorch's ``ViewBackward0`` / ``UnsafeViewBackward0`` nodes (views: no copy).
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from minigrad.ops._checks import linear as checks
from minigrad.ops.linalg import Addmm, Mm
from minigrad.ops.shape import _reshape, t
from minigrad.tensor import Tensor


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``F.linear``: y = input @ weight.T + bias, for input (*, in), weight (out, in), bias (out)."""
    checks.check_linear(input, weight, bias)
    weight_t = t(weight)
    if input.ndim == 2:
        return Mm.apply(input, weight_t) if bias is None else Addmm.apply(bias, input, weight_t, 1, 1)
    out_shape = tuple(input.shape[:-1]) + (weight.shape[0],)
    if input.ndim == 1 and bias is None:  # PyTorch: a row, a matrix product, the row squeezed out
        rows = _reshape(input, (1, input.shape[0]), "UnsqueezeBackward0")
        return _reshape(Mm.apply(rows, weight_t), out_shape, "SqueezeBackward4")
    rows = _reshape(input, (-1, input.shape[-1]) if input.numel() else (0, input.shape[-1]))
    if bias is None:
        return _reshape(Mm.apply(rows, weight_t), out_shape, "UnsafeViewBackward0")
    return _reshape(Addmm.apply(bias, rows, weight_t, 1, 1), out_shape, "ViewBackward0")
