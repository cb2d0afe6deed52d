"""Module-level functions that mirror Tensor methods, as PyTorch's ``torch.sum`` ... ``torch.where``."""

from __future__ import annotations

from typing import Any

from minigrad.ops import arithmetic, comparison, elementwise, linalg, reduction, softmax
from minigrad.ops import shape as shape_ops
from minigrad.ops.conversion import to
from minigrad.tensor import Tensor

add, sub, mul, div, pow, neg = (arithmetic.add, arithmetic.sub, arithmetic.mul, arithmetic.div,  # noqa: A001
                                arithmetic.pow, arithmetic.neg)
subtract, multiply, divide = arithmetic.sub, arithmetic.mul, arithmetic.div
floor_divide, remainder = arithmetic.floor_divide, arithmetic.remainder
abs, exp, log, sqrt, sin, cos, tanh = (elementwise.abs, elementwise.exp, elementwise.log,  # noqa: A001
                                       elementwise.sqrt, elementwise.sin, elementwise.cos, elementwise.tanh)
sigmoid, relu, clamp, clip = elementwise.sigmoid, elementwise.relu, elementwise.clamp, elementwise.clamp
maximum, minimum, where = elementwise.maximum, elementwise.minimum, elementwise.where
sum, mean, var, std = reduction.sum, reduction.mean, reduction.var, reduction.std  # noqa: A001
max, min, amax, amin = reduction.max, reduction.min, reduction.amax, reduction.amin  # noqa: A001
argmax, argmin = reduction.argmax, reduction.argmin
softmax, log_softmax = softmax.softmax, softmax.log_softmax
matmul, mm = linalg.matmul, linalg.mm
reshape, flatten, squeeze, unsqueeze = shape_ops.reshape, shape_ops.flatten, shape_ops.squeeze, shape_ops.unsqueeze
permute, transpose, t, cat, stack = (shape_ops.permute, shape_ops.transpose, shape_ops.t, shape_ops.cat,
                                     shape_ops.stack)
concat = concatenate = cat
eq, ne, lt, le, gt, ge = comparison.eq, comparison.ne, comparison.lt, comparison.le, comparison.gt, comparison.ge
equal, allclose, isclose, isnan, isfinite = (comparison.equal, comparison.allclose, comparison.isclose,
                                             comparison.isnan, comparison.isfinite)
logical_not, nonzero = comparison.logical_not, comparison.nonzero


def view_as(a: Tensor, other: Tensor) -> Tensor:
    return shape_ops.reshape(a, other.shape)


def reshape_as(a: Tensor, other: Tensor) -> Tensor:
    return shape_ops.reshape(a, other.shape)


def type_as(a: Tensor, other: Tensor) -> Tensor:
    return to(a, dtype=other.dtype)


def clone(a: Tensor) -> Tensor:
    return a.clone()


def numel(a: Tensor) -> int:
    return a.numel()


def is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


def expand(a: Tensor, *sizes: Any) -> Tensor:
    return shape_ops.expand(a, *sizes)


__all__ = [name for name in dir() if not name.startswith("_")
           and name not in ("annotations", "Any", "Tensor", "to", "arithmetic", "comparison", "elementwise",
                            "linalg", "reduction", "shape_ops")]
