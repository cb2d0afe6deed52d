"""Module-level functions that mirror Tensor methods, as PyTorch's ``torch.sum`` ... ``torch.where``.

Each name is the same function a Tensor method calls, from :mod:`minigrad.ops`.
"""
# ruff: noqa: A001  (PyTorch's names: sum, max, min, abs, pow shadow builtins here on purpose)

from __future__ import annotations

from typing import Any

from minigrad.ops import arithmetic, comparison, elementwise, linalg, reduction
from minigrad.ops import shape as shape_ops
from minigrad.ops import softmax as softmax_ops
from minigrad.ops.conversion import to
from minigrad.tensor import Tensor

# arithmetic
add = arithmetic.add
sub = subtract = arithmetic.sub
mul = multiply = arithmetic.mul
div = divide = arithmetic.div
pow = arithmetic.pow
neg = arithmetic.neg
floor_divide = arithmetic.floor_divide
remainder = arithmetic.remainder

# elementwise functions
abs = elementwise.abs
exp = elementwise.exp
log = elementwise.log
sqrt = elementwise.sqrt
sin = elementwise.sin
cos = elementwise.cos
tanh = elementwise.tanh
sigmoid = elementwise.sigmoid
relu = elementwise.relu
clamp = clip = elementwise.clamp
maximum = elementwise.maximum
minimum = elementwise.minimum
where = elementwise.where

# reductions
sum = reduction.sum
mean = reduction.mean
var = reduction.var
std = reduction.std
max = reduction.max
min = reduction.min
amax = reduction.amax
amin = reduction.amin
argmax = reduction.argmax
argmin = reduction.argmin
softmax = softmax_ops.softmax
log_softmax = softmax_ops.log_softmax

# matrices and shapes
matmul = linalg.matmul
mm = linalg.mm
reshape = shape_ops.reshape
flatten = shape_ops.flatten
squeeze = shape_ops.squeeze
unsqueeze = shape_ops.unsqueeze
permute = shape_ops.permute
transpose = shape_ops.transpose
t = shape_ops.t
cat = concat = concatenate = shape_ops.cat
stack = shape_ops.stack

# comparisons (bool results, no gradient)
eq = comparison.eq
ne = comparison.ne
lt = comparison.lt
le = comparison.le
gt = comparison.gt
ge = comparison.ge
equal = comparison.equal
allclose = comparison.allclose
isclose = comparison.isclose
isnan = comparison.isnan
isfinite = comparison.isfinite
logical_not = comparison.logical_not
nonzero = comparison.nonzero


def view_as(a: Tensor, other: Tensor) -> Tensor:
    return shape_ops.reshape(a, other.shape)


def reshape_as(a: Tensor, other: Tensor) -> Tensor:
    return shape_ops.reshape(a, other.shape)


def type_as(a: Tensor, other: Tensor) -> Tensor:
    return to(a, dtype=other.dtype)


def expand(a: Tensor, *sizes: Any) -> Tensor:
    return shape_ops.expand(a, *sizes)


def clone(a: Tensor) -> Tensor:
    return a.clone()


def numel(a: Tensor) -> int:
    return a.numel()


def is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


__all__ = [name for name in dir() if not name.startswith("_")
           and name not in ("annotations", "Any", "Tensor", "to", "arithmetic", "comparison", "elementwise",
                            "linalg", "reduction", "shape_ops", "softmax_ops")]
