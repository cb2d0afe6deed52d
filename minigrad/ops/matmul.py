"""The matrix product as a Function: C = A·B,  dA = dC·Bᵀ,  dB = Aᵀ·dC.

``MatMul`` multiplies (on minigrad's thread pool, ``performance/parallel.py``); ``Mm``, ``Mv``,
``Dot`` and ``Bmm`` are the same Function under PyTorch's node names. The public functions
(``matmul`` with NumPy's 1-D and batch rules, ``mm``, ``bmm``, ...) are in ``linalg.py``.
The backward is written with these same products (and transposes), so that it can be
differentiated again; batch dimensions that were broadcast are summed back by the engine.
"""

from __future__ import annotations

from minigrad.autograd.function import Function
from minigrad.ops import shape
from minigrad.performance import parallel
from minigrad.tensor import Tensor


class MatMul(Function):
    """C = A @ B;   dA = dC @ Bᵀ,  dB = Aᵀ @ dC  (1-D operands treated as a row / a column)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return Tensor(parallel.matmul(a.array, b.array))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        # a 1-D operand took part as a row (a) or a column (b): put back the axes it dropped
        x = a if a.ndim > 1 else shape.unsqueeze(a, 0)
        y = b if b.ndim > 1 else shape.unsqueeze(b, 1)
        g = grad if b.ndim > 1 else shape.unsqueeze(grad, -1)
        g = g if a.ndim > 1 else shape.unsqueeze(g, -2)
        # the engine sums a gradient over the batch dimensions (and the row a 1-D ``a`` became)
        # that were broadcast in the forward
        grad_a = _product(g, _transposed(y)) if ctx.needs_input_grad[0] else None
        grad_b = _product(_transposed(x), g) if ctx.needs_input_grad[1] else None
        if grad_b is not None and b.ndim == 1:
            grad_b = shape.squeeze(grad_b, -1)
        return grad_a, grad_b


def _product(a: Tensor, b: Tensor) -> Tensor:
    """a @ b inside a backward, recorded as PyTorch's ``mm`` for matrices, else as a batched product."""
    return (Mm if a.ndim <= 2 and b.ndim <= 2 else Bmm).apply(a, b)


def _transposed(a: Tensor) -> Tensor:
    """a with its last two axes swapped (a view), as PyTorch's ``t`` or ``transpose``."""
    return shape.t(a) if a.ndim == 2 else shape.transpose(a, -2, -1)


class Mm(MatMul):  # PyTorch's node: MmBackward0
    """C = A B for matrices (PyTorch's kernel also for a batch or a vector times a matrix)."""


class Mv(MatMul):  # PyTorch's node: MvBackward0
    """c = A b, a matrix (or a batch of them) times a vector;   dA = dc bᵀ,  db = Aᵀ dc."""


class Dot(MatMul):  # PyTorch's node: DotBackward0
    """c = Σ aᵢ bᵢ;   dc/da = b,  dc/db = a  (MatMul's backward for two 1-D operands)."""


class Bmm(MatMul):  # PyTorch's node: BmmBackward0
    """C[n] = A[n] B[n] for each batch n;   dA = dC Bᵀ,  dB = Aᵀ dC per batch."""
