"""Matrix products: ``matmul`` (with NumPy's 1-D and batch rules), ``mm``, ``mv``, ``dot``, ``outer``,
``bmm``, ``addmm`` and ``einsum``.

For C = A·B:  dA = dC·Bᵀ  and  dB = Aᵀ·dC; batch dimensions that were broadcast are
summed back by the engine.
"""

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.ops._util import (
    TORCH_TYPE_NAMES,
    as_operand,
    check_broadcast_shapes,
    check_tensor_arguments,
    first_tensor,
    not_implemented_for,
    product,
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
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"mm: both arguments must be 2-D matrices, got shapes {list(a.shape)} "
                           f"and {list(b.shape)}")
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
    check_tensor_arguments("dot", {"input": a, "tensor": b})
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
                           f"to have the same number of elements, but got {a.shape[0]} and {b.shape[0]} "
                           "elements respectively")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{TORCH_TYPE_NAMES[a.dtype.name]} and {TORCH_TYPE_NAMES[b.dtype.name]}")
    if a.dtype is _dtypes.bool:
        raise not_implemented_for("dot", a)
    return Dot.apply(a, b)


def mv(a: Tensor, b: Tensor) -> Tensor:
    """Matrix-vector product of an (n, m) matrix and an (m,) vector: an (n,) vector."""
    check_tensor_arguments("mv", {"input": a, "vec": b})
    if a.ndim != 2 or b.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {b.ndim}")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                           f"vec ({b.shape[0]})")
    _check_same_dtype(a, b, "mv")
    return Mv.apply(a, b)


def outer(a: Tensor, b: Tensor) -> Tensor:
    """out[i, j] = a[i] · b[j], as PyTorch computes it (a column times a row, broadcast)."""
    check_tensor_arguments("outer", {"input": a, "vec2": b})
    for argument, t in (("self", a), ("vec2", b)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {argument}, but got {t.ndim}-D")
    return a.reshape(-1, 1) * b


def bmm(a: Tensor, b: Tensor) -> Tensor:
    """Batched matrix product of (b, n, m) and (b, m, p) tensors (no broadcasting, as in PyTorch)."""
    check_tensor_arguments("bmm", {"input": a, "mat2": b})
    for argument, t in (("batch1", a), ("batch2", b)):
        if t.ndim != 3:
            raise RuntimeError(f"{argument} must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _check_same_dtype(a, b, "bmm")
    if a.dtype is _dtypes.bool:
        raise not_implemented_for("bmm", a)
    return Bmm.apply(a, b)


class Addmm(Function):
    """C = β·input + α·(A @ B);   dinput = β dC,  dA = α dC Bᵀ,  dB = α Aᵀ dC  (β = 0 ignores input).

    ``nn.Linear`` on a batch is ``addmm(bias, x, W.t())``, as in PyTorch.
    """

    @staticmethod
    def forward(ctx, input, a, b, beta, alpha):  # noqa: A002 (PyTorch's name)
        ctx.save_for_backward(a, b)
        ctx.beta, ctx.alpha = beta, alpha
        xp = xp_of(a)
        product = xp.matmul(a.array, b.array)
        if alpha != 1:
            product = product * alpha
        if beta == 0:  # PyTorch: input is ignored, so its nan and inf do not propagate
            return wrap(product.astype(a.array.dtype, copy=False))
        if beta == 1 and input.dtype is a.dtype:
            product += input.array  # a fresh array of the output's shape: add in place
            return wrap(product)
        scaled = input.array if beta == 1 else input.array * beta
        return wrap((scaled + product).astype(a.array.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        xp = xp_of(grad)
        g = grad.array
        grad_input = grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_input = wrap(g if ctx.beta == 1 else g * ctx.beta)  # the engine sums it to input's shape
        if ctx.needs_input_grad[1]:
            grad_a = _scaled(xp.matmul(g, b.array.T), ctx.alpha)
        if ctx.needs_input_grad[2]:
            # (Aᵀ dC) computed as (dCᵀ A)ᵀ: when B is Wᵀ (nn.Linear), the transpose back to W's
            # layout is then contiguous, and AccumulateGrad copies it at full speed.
            grad_b = _scaled(xp.matmul(g.T, a.array).T, ctx.alpha)
        return grad_input, grad_a, grad_b, None, None


def _scaled(array: Any, factor: Any) -> Tensor:
    return wrap(array if factor == 1 else array * factor)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """β·input + α·(mat1 @ mat2), with ``input`` broadcast to the product's (n, p) shape."""
    check_tensor_arguments("addmm", {"input": input, "mat1": mat1, "mat2": mat2})
    for argument, t in (("mat1", mat1), ("mat2", mat2)):
        if t.ndim != 2:
            raise RuntimeError(f"{argument} must be a matrix, got {t.ndim}-D tensor")
    _check_shapes(mat1, mat2)
    for t in (mat2, input):
        _check_same_dtype(mat1, t, "addmm")
    if mat1.dtype is _dtypes.bool:
        raise not_implemented_for("addmm_impl_cpu_", mat1)
    out_shape = (mat1.shape[0], mat2.shape[1])
    if input.ndim > 2 or any(n not in (1, m) for n, m in zip(reversed(input.shape), reversed(out_shape))):
        raise RuntimeError(f"The expanded size of the tensor ({out_shape[-1]}) must match the existing size "
                           f"of input (shape {list(input.shape)}) to the product of shape {list(out_shape)}")
    return Addmm.apply(input, mat1, mat2, beta, alpha)


# --- einsum -------------------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _explicit_equation(equation: str, operands: tuple) -> tuple[list[str], str]:
    """Each operand's subscripts and the output's, with ``...`` spelled out as letters and an implicit
    output made explicit (the ellipsis, then the letters used once, in alphabetical order)."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        more = "more" if len(operands) > len(terms) else "fewer"
        raise RuntimeError(f"einsum(): {more} operands were provided than specified in the equation "
                           f"({len(terms)} in {equation!r}, {len(operands)} given)")
    free = [c for c in _LETTERS if c not in equation]
    widest = 0
    for k, (term, t) in enumerate(zip(terms, operands)):
        letters = term.replace("...", "")
        if any(c not in _LETTERS for c in letters) or term.count("...") > 1:
            raise RuntimeError(f"einsum(): invalid subscript in operand {k}: {term!r} (letters a-z, A-Z and "
                               "at most one ... per operand)")
        if ("..." in term and len(letters) > t.ndim) or ("..." not in term and len(letters) != t.ndim):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) does "
                               f"not match the number of dimensions ({t.ndim}) for operand {k}"
                               + ("" if "..." in term else " and no ellipsis was given"))
        repeated = sorted({c for c in letters if letters.count(c) > 1})
        if repeated:
            raise NotImplementedError(f"einsum(): subscript {repeated[0]} repeated within operand {k} "
                                      f"({term!r}: a diagonal or trace) is not supported by minigrad; take "
                                      "the diagonal first")
        if "..." in term:
            widest = max(widest, t.ndim - len(letters))
    ellipsis = "".join(free[:widest])
    # an operand's ellipsis stands for its last dims, right-aligned with the widest one's (broadcasting)
    explicit = [term.replace("...", ellipsis[widest - (t.ndim - len(term.replace("...", ""))):])
                for term, t in zip(terms, operands)]
    if arrow:
        output = output.replace("...", ellipsis)
        for c in output:
            if output.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
            if not any(c in term for term in explicit):
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any "
                                   "input operand")
    else:
        joined = "".join(terms).replace("...", "")
        output = ellipsis + "".join(sorted(c for c in set(joined) if joined.count(c) == 1))
    return explicit, output


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
            return wrap(xp_of(operands[0]).einsum(f"{','.join(terms)}->{output}", *arrays))
        except ValueError:
            shapes = " ".join(str(list(t.shape)) for t in operands)
            raise RuntimeError(f"einsum(): operands do not broadcast: subscripts {','.join(terms)} with "
                               f"shapes {shapes}") from None

    @staticmethod
    def backward(ctx, grad):
        operands = ctx.saved_tensors
        xp = xp_of(grad)
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
            grads.append(wrap(xp.ascontiguousarray(xp.broadcast_to(g, t.shape))))
        return (None, *grads)


def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation, as ``torch.einsum('ij,jk->ik', a, b)`` (operands also as one list).

    A subscript repeated within one operand (a diagonal or a trace) is refused."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type(equation).__name__}")
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    check_tensor_arguments("einsum", {f"operands[{k}]": t for k, t in enumerate(operands)})
    for t in operands[1:]:
        _check_same_dtype(operands[0], t, "einsum")
    return Einsum.apply(_explicit_equation(equation, operands), *operands)


