"""Exercise 1 — the backward of elementwise operations, with broadcasting.

An elementwise op with broadcasting, ``z = a * b`` for ``a`` of shape (4, 1, 3) and
``b`` of shape (5, 1), first stretches both to the common shape (4, 5, 3), then works
element by element. Its backward therefore has two steps:

1. the elementwise derivative, in the broadcast shape:
   ``∂L/∂a = ∂L/∂z · ∂z/∂a`` — for ``z = a·b``: ``∂z/∂a = b`` and ``∂z/∂b = a``; for
   ``z = a/b``: ``∂z/∂a = 1/b`` and ``∂z/∂b = −a/b²``;
2. **sum back to the input's shape**: an element of ``a`` that was used at several
   positions of ``z`` receives the sum of their gradients. Sum over the leading
   dimensions that broadcasting added, then over every dimension where the input has
   size 1 (keeping that dimension).

What to write: ``sum_to_shape(grad, shape)``, and the backward of ``Mul`` and ``Div``.
``grad`` and the results are arrays (NumPy, or CuPy on a GPU: use only array methods or
the array module ``xp``). Shapes: each gradient has exactly its input's shape.
Hint: ``grad.sum(axis=..., keepdims=True)``.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd import Function
from minigrad.tensor import Tensor


def sum_to_shape(grad: Any, shape: tuple) -> Any:
    """Undo broadcasting: sum the array ``grad`` down to ``shape`` (which broadcasts to ``grad.shape``)."""
    # BEGIN SOLUTION: sum_to_shape: sum the extra leading axes, then (keepdims) the axes where shape is 1
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(axis for axis, size in enumerate(shape) if size == 1 and grad.shape[axis] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad
    # END SOLUTION


class Mul(Function):
    """z = a · b;   ∂z/∂a = b,  ∂z/∂b = a   (then summed back to each input's shape)."""

    @staticmethod
    def forward(ctx, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return Tensor(a.array * b.array)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        g = grad.array
        # BEGIN SOLUTION: grad_a, grad_b: g times each derivative, then sum_to_shape to each input's shape
        grad_a = sum_to_shape(g * b.array, a.shape)
        grad_b = sum_to_shape(g * a.array, b.shape)
        # END SOLUTION
        return Tensor(grad_a), Tensor(grad_b)


class Div(Function):
    """z = a / b;   ∂z/∂a = 1/b,  ∂z/∂b = −a/b²   (then summed back to each input's shape)."""

    @staticmethod
    def forward(ctx, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return Tensor(a.array / b.array)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        g = grad.array
        # BEGIN SOLUTION: grad_a, grad_b: g·(1/b) and g·(−a/b²), each summed back to its input's shape
        grad_a = sum_to_shape(g / b.array, a.shape)
        grad_b = sum_to_shape(-g * a.array / (b.array * b.array), b.shape)
        # END SOLUTION
        return Tensor(grad_a), Tensor(grad_b)
