"""Matrix products: ``matmul`` (with NumPy's 1-D and batch rules), ``mm``, ``mv``, ``dot``, ``outer``,
``bmm``, ``addmm``, ``einsum`` and ``matrix_power``. The product itself, forward and backward, is
``MatMul`` in ``matmul.py``.

For C = A·B:  dA = dC·Bᵀ  and  dB = Aᵀ·dC; batch dimensions that were broadcast are
summed back by the engine. The backwards are written with these same products (and
transposes), so that they can be differentiated again.
"""

from __future__ import annotations

from typing import Any

from minigrad._arguments import int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import shape
from minigrad.ops._checks import linalg as checks
from minigrad.ops._util import as_operand, check_broadcast_shapes, first_tensor, product
from minigrad.ops.linear import Linear
from minigrad.ops.matmul import Bmm, Dot, Mm, Mv
from minigrad.ops.shape import Expand, SqueezeDim_, UnsafeView, View, expand, reshape_to, reshaped
from minigrad.performance import parallel
from minigrad.tensor import Tensor


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
    docs/compatibility.md).
    """
    if a.ndim <= 2 and b.ndim <= 2:
        if b.ndim == 1:
            return (Dot if a.ndim == 1 else Mv).apply(a, b)
        if a.ndim == 1:
            # PyTorch: the vector as a row, its product, the row squeezed out in place
            return reshaped(Mm.apply(shape.unsqueeze(a, 0), b), (b.shape[1],), SqueezeDim_)
        return Mm.apply(a, b)
    if b.ndim <= 2:
        rows = reshape_to(a, (product(a.shape[:-1]), a.shape[-1]))
        out = (Mv if b.ndim == 1 else Mm).apply(rows, b)
        return reshaped(out, a.shape[:-1] + b.shape[1:], UnsafeView)
    if a.ndim == 1 or a.ndim == 2:
        return Bmm.apply(a, b)
    batch = _broadcast(a.shape[:-2], b.shape[:-2])
    size = product(batch)
    a3 = reshape_to(expand(a, batch + a.shape[-2:]), (size,) + a.shape[-2:])
    b3 = reshape_to(expand(b, batch + b.shape[-2:]), (size,) + b.shape[-2:])
    return reshaped(Bmm.apply(a3, b3), batch + (a.shape[-2], b.shape[-1]), UnsafeView)


def _broadcast(first: tuple, second: tuple) -> tuple:
    check_broadcast_shapes(first, second)
    ndim = max(len(first), len(second))
    first, second = (1,) * (ndim - len(first)) + first, (1,) * (ndim - len(second)) + second
    return tuple(max(n, m) if min(n, m) != 0 else 0 for n, m in zip(first, second))


def mm(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product of two 2-D tensors."""
    checks.check_mm(a, b)
    return matmul(a, b)


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


class Addmm(Linear):
    """C = β·input + α·(A @ B): ``nn.Linear``'s y = x Wᵀ + b (x = A, Wᵀ = B, b = input) with two
    scale factors, and so Linear's gradients, scaled:  dA = α δ Bᵀ,  dB = α Aᵀ δ,  dinput = β δ.

    Its arguments are in Linear's order (A, B, input), with Linear's edges to input, A, B. β = 0
    ignores input, so its nan and inf do not propagate (as in PyTorch).
    """

    @staticmethod
    def forward(ctx, a, b, input, beta, alpha):  # noqa: A002 (PyTorch's name)
        ctx.save_for_backward(a, b)
        ctx.beta, ctx.alpha = beta, alpha
        ctx.bias_is_vector = False  # Linear's db is then δ, which the engine sums to input's shape
        return scaled_sum(input, beta, parallel.matmul(a.array, b.array), alpha)

    @staticmethod
    def backward(ctx, grad):
        return scaled_gradients(ctx, *Linear.backward(ctx, grad))


def scaled_sum(input: Tensor, beta: Any, product: Any, alpha: Any) -> Tensor:  # noqa: A002
    """β·input + α·product in the product's dtype (``product`` a fresh array: input is added into it)."""
    dtype = product.dtype
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return Tensor(product.astype(dtype, copy=False))
    if beta == 1 and input.dtype.numpy == dtype:
        product += input.array  # input expands to the product's shape (checked)
        return Tensor(product.astype(dtype, copy=False))
    scaled = input.array if beta == 1 else input.array * beta
    return Tensor((scaled + product).astype(dtype, copy=False))


def scaled_gradients(ctx: Any, grad_a: Any, grad_b: Any, grad_input: Any) -> tuple:
    """A fused product's gradients from its product's: α times those of A and B, β times input's."""
    return _scaled(grad_a, ctx.alpha), _scaled(grad_b, ctx.alpha), _scaled(grad_input, ctx.beta), None, None


def _scaled(t: Tensor | None, factor: Any) -> Tensor | None:
    return t if t is None or factor == 1 else t * factor


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """β·input + α·(mat1 @ mat2), with ``input`` broadcast to the product's (n, p) shape."""
    checks.check_addmm(input, mat1, mat2)
    return Addmm.apply(mat1, mat2, input, beta, alpha)


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
        from minigrad.ops.reduction import SumDims  # noqa: PLC0415 (reduction builds on the shape ops)

        operands = ctx.saved_tensors
        grads = []
        for k, (term, t) in enumerate(zip(ctx.terms, operands)):
            if not ctx.needs_input_grad[k + 1]:
                grads.append(None)
                continue
            others = [(s, o) for j, (s, o) in enumerate(zip(ctx.terms, operands)) if j != k]
            # indices of this operand found only in it were summed in the forward: broadcast back over them
            kept = "".join(c for c in term if c in ctx.output or any(c in s for s, _ in others))
            equation = ((ctx.output, *(s for s, _ in others)), kept)
            g = Einsum.apply(equation, grad, *(o for _, o in others))
            restored = tuple(g.shape[kept.index(c)] if c in kept else 1 for c in term)
            g = View.apply(g, restored)
            summed = tuple(i for i, (n, m) in enumerate(zip(t.shape, g.shape)) if n == 1 and m != 1)
            if summed:  # a size-1 dim that broadcast in the forward
                g = SumDims.apply(g, summed, True, None)
            grads.append(g if g.shape == t.shape else Expand.apply(g, t.shape))
        return (None, *grads)


def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation, as ``torch.einsum('ij,jk->ik', a, b)`` (operands also as one list).

    A subscript repeated within one operand (a diagonal or a trace) is refused."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    checks.check_einsum(equation, operands)
    return Einsum.apply(checks.explicit_equation(equation, operands), *operands)


def matrix_power(a: Tensor, n: int) -> Tensor:
    """Aⁿ for a square matrix (or a batch of them), by repeated squaring: A⁵ = A · (A²)², so
    about log₂ n products, each differentiated as ``matmul``. A⁰ is the identity (no gradient
    reaches A), A¹ a copy, and A⁻ⁿ = (A⁻¹)ⁿ (``linalg.inv`` first, as PyTorch)."""
    from minigrad.ops import conversion  # noqa: PLC0415 (conversion imports the shape ops)

    n = int_argument(n, "matrix_power", "n", position=1)
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    rows, columns = a.shape[-2:]
    if rows != columns:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{rows} by {columns} matrices")
    if n < 0:  # A⁻ⁿ = (A⁻¹)ⁿ, as PyTorch computes it
        from minigrad.ops.matrices import inverse  # noqa: PLC0415 (matrices imports this module)

        a, n = inverse(a), -n
    if n == 0:  # as PyTorch: the identity copied into a clone of A
        identity = get_array_module(a).eye(rows, dtype=a.array.dtype)
        return conversion.copy_into(conversion.Clone.apply(a), Tensor(identity))
    if n == 1:
        return conversion.Clone.apply(a)
    square = a  # A^(2^k) for the k-th bit of n
    while not n & 1:  # up to n's lowest set bit
        square, n = matmul(square, square), n >> 1
    result, n = square, n >> 1  # then the product of the powers for n's other set bits
    while n:
        square = matmul(square, square)
        if n & 1:
            result = matmul(result, square)
        n >>= 1
    return result
