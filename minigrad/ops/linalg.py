"""Matrix products: ``matmul`` (with NumPy's 1-D and batch rules) and ``mm``.

For C = A·B:  dA = dC·Bᵀ  and  dB = Aᵀ·dC; batch dimensions that were broadcast are
summed back by the engine.
"""

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.ops._util import (
    as_operand,
    check_broadcast_shapes,
    first_tensor,
    not_implemented_for,
    wrap,
    xp_of,
)
from minigrad.tensor import Tensor


def _check_same_dtype(a: Tensor, b: Tensor, name: str) -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{name}: expected both operands to have the same dtype, but got: "
                           f"{a.dtype.name} != {b.dtype.name}")


def _check_shapes(a: Tensor, b: Tensor) -> None:
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    inner_a = a.shape[-1]
    inner_b = b.shape[-2] if b.ndim >= 2 else b.shape[0]
    if inner_a != inner_b:
        rows_a = a.shape[-2] if a.ndim >= 2 else 1
        cols_b = b.shape[-1] if b.ndim >= 2 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows_a}x{inner_a} and "
                           f"{inner_b}x{cols_b}) (shapes {list(a.shape)} and {list(b.shape)})")


class MatMul(Function):
    """C = A @ B;   dA = dC @ Bᵀ,  dB = Aᵀ @ dC  (1-D operands treated as a row / a column)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return wrap(xp_of(a).matmul(a.array, b.array))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        xp = xp_of(grad)
        x = a.array if a.ndim > 1 else a.array[None, :]    # (n) -> (1, n)
        y = b.array if b.ndim > 1 else b.array[:, None]    # (n) -> (n, 1)
        g = grad.array  # put back the axes a 1-D operand dropped (b's first: 1-D @ 1-D gives 0-D)
        if b.ndim == 1:
            g = xp.expand_dims(g, -1)
        if a.ndim == 1:
            g = xp.expand_dims(g, -2)
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = xp.matmul(g, xp.swapaxes(y, -1, -2))
            if a.ndim == 1:
                grad_a = grad_a.reshape(-1, a.shape[0]).sum(axis=0)
            grad_a = wrap(grad_a)
        if ctx.needs_input_grad[1]:
            grad_b = xp.matmul(xp.swapaxes(x, -1, -2), g)
            if b.ndim == 1:
                grad_b = grad_b.reshape(-1, b.shape[0]).sum(axis=0)
            grad_b = wrap(grad_b)
        return grad_a, grad_b


def matmul(a: Any, b: Any) -> Tensor:
    like = first_tensor(a, b)
    a, b = as_operand(a, like), as_operand(b, like)
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError(f"unsupported operand type(s) for @: '{type(a).__name__}' and '{type(b).__name__}'")
    _check_same_dtype(a, b, "matmul")
    _check_shapes(a, b)
    if a.dtype is _dtypes.bool:  # PyTorch has no bool kernel: named as its error names it
        kernel = "dot" if a.ndim == b.ndim == 1 else "addmv_impl_cpu" if b.ndim == 1 else "addmm_impl_cpu_"
        raise not_implemented_for(kernel, a)
    try:
        return MatMul.apply(a, b)
    except ValueError:  # the batch dimensions do not broadcast: say so as PyTorch does
        check_broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        raise


def mm(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product of two 2-D tensors."""
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"mm: both arguments must be 2-D matrices, got shapes {list(a.shape)} "
                           f"and {list(b.shape)}")
    return matmul(a, b)
