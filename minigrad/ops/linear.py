"""``F.linear`` (the affine map of ``nn.Linear``), built as PyTorch builds it: y = x Wᵀ + b.

For a batch of rows x (N, in), W (out, in) and b (out), ``linear`` is one ``addmm(b, x, Wᵀ)``:

    dx = dy W,     dW = (xᵀ dy)ᵀ = dyᵀ x,     db = Σ dy over the rows

so the graph shows PyTorch's nodes: ``AddmmBackward0`` with ``TBackward0`` (the transpose of W,
a view) before it, or ``MmBackward0`` without a bias. Other shapes of x are flattened to rows
and back, with PyTorch's ``ViewBackward0`` / ``UnsafeViewBackward0`` nodes (views: no copy).
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from minigrad.ops.linalg import Addmm, Mm
from minigrad.ops.shape import _reshape, t
from minigrad.tensor import Tensor


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``F.linear``: y = input @ weight.T + bias, for input (*, in), weight (out, in), bias (out)."""
    _check_linear(input, weight, bias)
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


def _check_linear(input: Tensor, weight: Tensor, bias: Tensor | None) -> None:
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
        _check_bias_expands(bias, input.shape, weight.shape[0])


def _check_bias_expands(bias: Tensor, input_shape: tuple, out_features: int) -> None:
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
