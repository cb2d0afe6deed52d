"""Norms, similarities and distances of vectors along one dimension, composed of differentiable ops
(``norm``, division, ``sum``), so their gradients are the chain rule through those, as PyTorch's:

    normalize:          v / max(‖v‖_p, ε)
    cosine_similarity:  Σ (x₁ / max(‖x₁‖, ε)) · (x₂ / max(‖x₂‖, ε))     (x₁, x₂ broadcast together)
    pairwise_distance:  ‖x₁ − x₂ + ε‖_p over the last dimension
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

import math
from typing import Any

import numpy

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.dtypes import result_type
from minigrad.ops._util import (
    TORCH_TYPE_NAMES,
    check_broadcast,
    check_broadcast_shapes,
    ieee_results,
    opmath,
    reduction_axes,
)
from minigrad.ops.elementwise import Where
from minigrad.ops.reduction import _expand_back, _remember_shapes
from minigrad.tensor import Tensor


def normalize(input: Tensor, p: float = 2.0, dim: Any = 1, eps: float = 1e-12) -> Tensor:
    """v / max(‖v‖_p, ε) for each vector v along ``dim``; the clamp's gradient is 0 where ‖v‖_p < ε."""
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)


class ClampMinUntracked(Function):
    """y = max(x, ε), but dy/dx = 1: PyTorch's cosine_similarity clamps the norms in place under
    ``no_grad``, so its autograd differentiates as if no clamp were there."""

    @staticmethod
    def forward(ctx, a, eps):
        return Tensor(get_array_module(a).maximum(a.array, a.array.dtype.type(eps)))

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """cos θ = ⟨x₁, x₂⟩ / (‖x₁‖‖x₂‖) along ``dim``, as Σ (x₁ / max(‖x₁‖, ε)) · (x₂ / max(‖x₂‖, ε)):
    each vector is scaled first, so |cos θ| ≤ 1 and nothing overflows."""
    common = result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{TORCH_TYPE_NAMES[common.name]} (x1 of dtype {x1.dtype.name}, x2 of dtype "
                           f"{x2.dtype.name})")
    x1, x2 = (x if x.dtype.is_floating_point else x.to(common) for x in (x1, x2))
    check_broadcast(x1, x2)
    shape = numpy.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    x1, x2 = x1.expand(shape), x2.expand(shape)
    norm1 = ClampMinUntracked.apply(x1.norm(2, dim, keepdim=True), eps)
    norm2 = ClampMinUntracked.apply(x2.norm(2, dim, keepdim=True), eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """‖x₁ − x₂ + ε‖_p over the last dimension of the broadcast operands (ε keeps the gradient finite)."""
    last = max(x1.ndim, x2.ndim) - 1
    return (x1 - x2 + eps).norm(p, last, keepdim)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between every row of x1 (..., P, M) and every row of x2 (..., R, M):
    out[..., i, j] = ‖x1[..., i, :] − x2[..., j, :]‖_p, shape (..., P, R) (batch dimensions broadcast).

    Written as the norm of the (..., P, R, M) differences, so its gradient is the norm's (0 where a
    distance is 0, as PyTorch's). ``compute_mode`` is accepted; the differences are always formed."""
    for name, x in (("X1", x1), ("X2", x2)):
        if not isinstance(x, Tensor):
            raise TypeError(f"cdist(): argument '{name.lower()}' must be Tensor, not {type(x).__name__}")
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    if not x1.dtype.is_floating_point or not x2.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: "
                           f"{TORCH_TYPE_NAMES[x1.dtype.name]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    check_broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))  # the batch dimensions
    differences = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return differences.norm(p, dim=-1)


class LinalgVectorNorm(Function):  # PyTorch's node: LinalgVectorNormBackward0
    """y = (Σ |a|ᵖ)^(1/p) over ``dim`` (max |a| for p = inf, min for -inf, the count of non-zeros for 0);
    dy/da = sign(a) |a|ᵖ⁻¹ / yᵖ⁻¹ (a / y for p = 2), 0 where y = 0; for ±inf shared among the extremes."""

    @staticmethod
    def forward(ctx, a, p, axes, keepdim):
        _remember_shapes(ctx, a, axes, keepdim)
        ctx.p = p
        xp = get_array_module(a)
        x = opmath(xp.abs(a.array))  # float16 in float32, as PyTorch's
        with ieee_results():
            if p == math.inf or p == -math.inf:
                reduced = x.shape if axes is None else [x.shape[axis] for axis in axes]
                if 0 in reduced:  # an empty tensor reduced over non-empty dims is fine: nothing to do
                    raise RuntimeError(f"linalg.vector_norm cannot compute the {p} norm on an empty tensor "
                                       f"because the operation does not have an identity")
                out = x.max(axis=axes, keepdims=keepdim) if p > 0 else x.min(axis=axes, keepdims=keepdim)
            elif p == 0:
                out = (x != 0).sum(axis=axes, keepdims=keepdim).astype(x.dtype)
            elif p == 1:
                out = x.sum(axis=axes, keepdims=keepdim)
            elif p == 2:
                out = xp.sqrt((x * x).sum(axis=axes, keepdims=keepdim))
            else:
                out = (x ** p).sum(axis=axes, keepdims=keepdim) ** (1 / p)
            out = Tensor(xp.asarray(out).astype(a.array.dtype, copy=False))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        xp = get_array_module(a)
        x, p = a.array, ctx.p
        y = _expand_back(out, ctx)
        g = _expand_back(grad, ctx)
        if p == math.inf or p == -math.inf:  # piecewise linear: the slope is constant
            hits = xp.abs(x) == y.array
            axes = tuple(i for i, n in enumerate(ctx.kept_shape) if n == 1 and ctx.input_shape[i] != 1)
            count = hits.sum(axis=axes, keepdims=True) if axes else 1
            slope = Tensor(xp.sign(x) * hits / count)
        elif p == 0:  # a count is flat (PyTorch leaves the gradient undefined: None)
            slope = Tensor(xp.zeros_like(x))
        elif p == 1:
            slope = Tensor(xp.sign(x))
        elif p == 2:
            slope = Where.apply(Tensor(y.array == 0), 0, a / y)
        else:
            power = Tensor(xp.sign(x)) * a.abs() ** (p - 1) / y ** (p - 1)
            slope = Where.apply(Tensor(y.array == 0), 0, power)
        return g * slope, None, None, None


def norm(a: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """The vector p-norm of all elements or over ``dim`` (``'fro'``: the 2-norm; over two dims, the
    Frobenius norm of those matrices)."""
    if dtype is not None:
        a = a.to(_dtypes.dtype_argument(dtype, "norm"))
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{TORCH_TYPE_NAMES[a.dtype.name]}")
    if isinstance(p, str):
        if p != "fro":
            raise RuntimeError(f"norm(): p={p!r} is not supported by minigrad (only numbers and 'fro')")
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
        p = 2
    return LinalgVectorNorm.apply(a, float(p), reduction_axes(dim, a.ndim), keepdim)
