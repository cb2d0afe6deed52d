"""Module-level functions that mirror Tensor methods, as PyTorch's ``torch.sum`` ... ``torch.where``.

Each name is the function a Tensor method calls, from :mod:`minigrad.ops`; those whose first
argument must be a Tensor check it, so ``mg.exp(2.0)`` is PyTorch's TypeError.
"""
# ruff: noqa: A001  (PyTorch's names: sum, max, min, abs, pow shadow builtins here on purpose)

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from minigrad.ops import arithmetic, comparison, elementwise, linalg, reduction
from minigrad.ops import shape as shape_ops
from minigrad.ops import softmax as softmax_ops
from minigrad.tensor import Tensor, _required_dim, numpy_keywords


def _on_tensor(function: Callable) -> Callable:
    """``function`` with PyTorch's TypeError when its first argument (``input``) is not a Tensor."""
    @functools.wraps(function)
    def checked(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 (PyTorch's name)
        if not isinstance(input, Tensor):
            raise TypeError(f"{function.__name__}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return function(input, *args, **kwargs)
    return checked


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
abs = _on_tensor(elementwise.abs)
exp = _on_tensor(elementwise.exp)
log = _on_tensor(elementwise.log)
sqrt = _on_tensor(elementwise.sqrt)
sin = _on_tensor(elementwise.sin)
cos = _on_tensor(elementwise.cos)
tanh = _on_tensor(elementwise.tanh)
sigmoid = _on_tensor(elementwise.sigmoid)
relu = _on_tensor(elementwise.relu)
clamp = clip = _on_tensor(elementwise.clamp)
maximum = elementwise.maximum
minimum = elementwise.minimum
where = elementwise.where

# reductions
sum = numpy_keywords(_on_tensor(reduction.sum))
mean = numpy_keywords(_on_tensor(reduction.mean))
var = numpy_keywords(_on_tensor(reduction.var))
std = numpy_keywords(_on_tensor(reduction.std))
max = numpy_keywords(_on_tensor(reduction.max))
min = numpy_keywords(_on_tensor(reduction.min))
amax = numpy_keywords(_on_tensor(reduction.amax))
amin = numpy_keywords(_on_tensor(reduction.amin))
argmax = numpy_keywords(_on_tensor(reduction.argmax))
argmin = numpy_keywords(_on_tensor(reduction.argmin))


@numpy_keywords
@_on_tensor
def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:  # noqa: A002 (no implicit dim, as PyTorch)
    return softmax_ops.softmax(input, _required_dim(dim, "softmax"), dtype)


@numpy_keywords
@_on_tensor
def log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:  # noqa: A002
    return softmax_ops.log_softmax(input, _required_dim(dim, "log_softmax"), dtype)


# matrices and shapes
matmul = _on_tensor(linalg.matmul)
mm = _on_tensor(linalg.mm)
reshape = _on_tensor(shape_ops.reshape)
flatten = _on_tensor(shape_ops.flatten)
squeeze = numpy_keywords(_on_tensor(shape_ops.squeeze))
unsqueeze = numpy_keywords(_on_tensor(shape_ops.unsqueeze))
permute = _on_tensor(shape_ops.permute)
transpose = _on_tensor(shape_ops.transpose)
t = _on_tensor(shape_ops.t)
cat = concat = concatenate = numpy_keywords(shape_ops.cat)
stack = numpy_keywords(shape_ops.stack)

# comparisons (bool results, no gradient)
eq = _on_tensor(comparison.eq)
ne = _on_tensor(comparison.ne)
lt = _on_tensor(comparison.lt)
le = _on_tensor(comparison.le)
gt = _on_tensor(comparison.gt)
ge = _on_tensor(comparison.ge)
equal = comparison.equal
allclose = comparison.allclose
isclose = comparison.isclose
isnan = comparison.isnan
isfinite = comparison.isfinite
logical_not = comparison.logical_not
nonzero = comparison.nonzero


def view_as(a: Tensor, other: Tensor) -> Tensor:
    return a.view_as(other)


def reshape_as(a: Tensor, other: Tensor) -> Tensor:
    return a.reshape_as(other)


def type_as(a: Tensor, other: Tensor) -> Tensor:
    return a.type_as(other)


def expand(a: Tensor, *sizes: Any) -> Tensor:
    return shape_ops.expand(a, *sizes)


def clone(a: Tensor) -> Tensor:
    return a.clone()


def numel(a: Tensor) -> int:
    return a.numel()


def is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


__all__ = [name for name in dir() if not name.startswith("_")
           and name not in ("annotations", "Any", "Callable", "Tensor", "arithmetic", "comparison",
                            "elementwise", "functools", "linalg", "numpy_keywords", "reduction", "shape_ops",
                            "softmax_ops")]
