"""Matrix products: ``matmul`` (with NumPy's 1-D and batch rules), ``mm``, ``mv``, ``dot``, ``outer``,
``bmm``, ``addmm`` and ``einsum``.

For C = A·B:  dA = dC·Bᵀ  and  dB = Aᵀ·dC; batch dimensions that were broadcast are
summed back by the engine.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._checks import linalg as checks
from minigrad.ops._util import as_operand, check_broadcast_shapes, first_tensor, product
from minigrad.tensor import Tensor


class MatMul(Function):
    """C = A @ B;   dA = dC @ Bᵀ,  dB = Aᵀ @ dC  (1-D operands treated as a row / a column)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return Tensor(get_array_module(a).matmul(a.array, b.array))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        xp = get_array_module(grad)
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
            grad_a = Tensor(grad_a)
        if ctx.needs_input_grad[1]:
            grad_b = xp.matmul(xp.swapaxes(x, -1, -2), g)
            if b.ndim == 1:
                grad_b = grad_b.reshape(-1, b.shape[0]).sum(axis=0)
            grad_b = Tensor(grad_b)
        return grad_a, grad_b


def matmul(a: Any, b: Any) -> Tensor:
    like = first_tensor(a, b)
    a, b = as_operand(a, like), as_operand(b, like)
    checks.check_matmul(a, b)
    try:
        return _matmul_as_pytorch(a, b)
    except ValueError:  # the batch dimensions do not broadcast: say so as PyTorch does
        check_broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        raise


def _matmul_as_pytorch(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` through the kernel PyTorch's ``matmul`` picks, with the view nodes it records around
    it (views: nothing is copied unless broadcasting needs it), so the graph is PyTorch's:

    - 1-D/2-D operands: ``dot``, ``mv``, ``mm`` (a vector times a matrix as a one-row ``mm``);
    - a batch times a matrix or vector: the batch folded into rows, one ``mm``/``mv``, unfolded;
    - a batch times a batch: both expanded to the common batch, viewed as 3-D, one ``bmm``.

    A matrix or vector times a batch runs as one ``bmm`` node (PyTorch transposes; see
    docs/_graph_differences.md).
    """
    from minigrad.ops.shape import _reshape, expand  # noqa: PLC0415 (shape imports this module's peers)

    if a.ndim <= 2 and b.ndim <= 2:
        if b.ndim == 1:
            return (Dot if a.ndim == 1 else Mv).apply(a, b)
        if a.ndim == 1:
            row = _reshape(a, (1, a.shape[0]), "UnsqueezeBackward0")
            return _reshape(Mm.apply(row, b), (b.shape[1],), "SqueezeBackward4")
        return Mm.apply(a, b)
    if b.ndim <= 2:
        rows = _reshape(a, (product(a.shape[:-1]), a.shape[-1]))
        out = (Mv if b.ndim == 1 else Mm).apply(rows, b)
        return _reshape(out, a.shape[:-1] + b.shape[1:], "UnsafeViewBackward0")
    if a.ndim == 1 or a.ndim == 2:
        return Bmm.apply(a, b)
    batch = _broadcast(a.shape[:-2], b.shape[:-2])
    size = product(batch)
    a3 = _reshape(expand(a, batch + a.shape[-2:]), (size,) + a.shape[-2:])
    b3 = _reshape(expand(b, batch + b.shape[-2:]), (size,) + b.shape[-2:])
    return _reshape(Bmm.apply(a3, b3), batch + (a.shape[-2], b.shape[-1]), "UnsafeViewBackward0")


def _broadcast(first: tuple, second: tuple) -> tuple:
    check_broadcast_shapes(first, second)
    ndim = max(len(first), len(second))
    first, second = (1,) * (ndim - len(first)) + first, (1,) * (ndim - len(second)) + second
    return tuple(max(n, m) if min(n, m) != 0 else 0 for n, m in zip(first, second))


def mm(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product of two 2-D tensors."""
    checks.check_mm(a, b)
    return matmul(a, b)


class Mm(MatMul):  # PyTorch's node: MmBackward0
    """C = A B for matrices (PyTorch's kernel also for a batch or a vector times a matrix)."""


class Mv(MatMul):  # PyTorch's node: MvBackward0
    """c = A b, a matrix (or a batch of them) times a vector;   dA = dc bᵀ,  db = Aᵀ dc."""


class Dot(MatMul):  # PyTorch's node: DotBackward0
    """c = Σ aᵢ bᵢ;   dc/da = b,  dc/db = a  (MatMul's backward for two 1-D operands)."""


class Bmm(MatMul):  # PyTorch's node: BmmBackward0
    """C[n] = A[n] B[n] for each batch n;   dA = dC Bᵀ,  dB = Aᵀ dC per batch."""


def dot(a: Tensor, b: Tensor) -> Tensor:
    """The inner product of two 1-D tensors of one size and one dtype."""
    checks.check_dot(a, b)
    return Dot.apply(a, b)


def mv(a: Tensor, b: Tensor) -> Tensor:
    """Matrix-vector product of an (n, m) matrix and an (m,) vector: an (n,) vector."""
    checks.check_mv(a, b)
    return Mv.apply(a, b)


def outer(a: Tensor, b: Tensor) -> Tensor:
    """out[i, j] = a[i] · b[j], as PyTorch computes it (a column times a row, broadcast)."""
    checks.check_outer(a, b)
    return a.reshape(-1, 1) * b


def bmm(a: Tensor, b: Tensor) -> Tensor:
    """Batched matrix product of (b, n, m) and (b, m, p) tensors (no broadcasting, as in PyTorch)."""
    checks.check_bmm(a, b)
    return Bmm.apply(a, b)


class Addmm(Function):
    """C = β·input + α·(A @ B);   dinput = β dC,  dA = α dC Bᵀ,  dB = α Aᵀ dC  (β = 0 ignores input).

    ``nn.Linear`` on a batch is ``addmm(bias, x, W.t())``, as in PyTorch.
    """

    @staticmethod
    def forward(ctx, input, a, b, beta, alpha):  # noqa: A002 (PyTorch's name)
        ctx.save_for_backward(a, b)
        ctx.beta, ctx.alpha = beta, alpha
        xp = get_array_module(a)
        product = xp.matmul(a.array, b.array)
        if alpha != 1:
            product = product * alpha
        if beta == 0:  # PyTorch: input is ignored, so its nan and inf do not propagate
            return Tensor(product.astype(a.array.dtype, copy=False))
        if beta == 1 and input.dtype is a.dtype:
            product += input.array  # a fresh array of the output's shape: add in place
            return Tensor(product)
        scaled = input.array if beta == 1 else input.array * beta
        return Tensor((scaled + product).astype(a.array.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        xp = get_array_module(grad)
        g = grad.array
        grad_input = grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_input = Tensor(g if ctx.beta == 1 else g * ctx.beta)  # the engine sums it to input's shape
        if ctx.needs_input_grad[1]:
            grad_a = _scaled(xp.matmul(g, b.array.T), ctx.alpha)
        if ctx.needs_input_grad[2]:
            # (Aᵀ dC) computed as (dCᵀ A)ᵀ: when B is Wᵀ (nn.Linear), the transpose back to W's
            # layout is then contiguous, and AccumulateGrad copies it at full speed.
            grad_b = _scaled(xp.matmul(g.T, a.array).T, ctx.alpha)
        return grad_input, grad_a, grad_b, None, None


def _scaled(array: Any, factor: Any) -> Tensor:
    return Tensor(array if factor == 1 else array * factor)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """β·input + α·(mat1 @ mat2), with ``input`` broadcast to the product's (n, p) shape."""
    checks.check_addmm(input, mat1, mat2)
    return Addmm.apply(input, mat1, mat2, beta, alpha)


# --- einsum -------------------------------------------------------------------------------------

class Einsum(Function):
    """y = the sum over the indices missing from the output of the product of the operands;
    d y / d operandₖ = einsum of dy with the other operands, onto operandₖ's indices."""

    @staticmethod
    def forward(ctx, equation, *operands):
        terms, output = equation
        ctx.terms, ctx.output = terms, output
        ctx.save_for_backward(*operands)
        arrays = [t.array for t in operands]
        try:
            return Tensor(get_array_module(operands[0]).einsum(f"{','.join(terms)}->{output}", *arrays))
        except ValueError:
            shapes = " ".join(str(list(t.shape)) for t in operands)
            raise RuntimeError(f"einsum(): operands do not broadcast: subscripts {','.join(terms)} with "
                               f"shapes {shapes}") from None

    @staticmethod
    def backward(ctx, grad):
        operands = ctx.saved_tensors
        xp = get_array_module(grad)
        grads = []
        for k, (term, t) in enumerate(zip(ctx.terms, operands)):
            if not ctx.needs_input_grad[k + 1]:
                grads.append(None)
                continue
            others = [(s, o.array) for j, (s, o) in enumerate(zip(ctx.terms, operands)) if j != k]
            # indices of this operand found only in it were summed in the forward: broadcast back over them
            kept = "".join(c for c in term if c in ctx.output or any(c in s for s, _ in others))
            equation = ",".join([ctx.output, *(s for s, _ in others)]) + "->" + kept
            g = xp.einsum(equation, grad.array, *(o for _, o in others))
            g = g.reshape([g.shape[kept.index(c)] if c in kept else 1 for c in term])
            summed = tuple(i for i, (n, m) in enumerate(zip(t.shape, g.shape)) if n == 1 and m != 1)
            if summed:  # a size-1 dim that broadcast in the forward
                g = g.sum(axis=summed, keepdims=True)
            grads.append(Tensor(xp.ascontiguousarray(xp.broadcast_to(g, t.shape))))
        return (None, *grads)


def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation, as ``torch.einsum('ij,jk->ik', a, b)`` (operands also as one list).

    A subscript repeated within one operand (a diagonal or a trace) is refused."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    checks.check_einsum(equation, operands)
    return Einsum.apply(checks.explicit_equation(equation, operands), *operands)


