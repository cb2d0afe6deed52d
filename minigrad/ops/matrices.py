"""More matrix algebra: ``trace``, ``det``, ``inverse``, ``cross``; the fused products ``addmv`` and
``baddbmm``; and ``vdot``, ``inner``, ``tensordot`` (products over chosen dimensions).

The derivatives, in matrix form (G the incoming gradient, Aᵀ the transpose of the last two axes):

    trace:    y = Σᵢ Aᵢᵢ              dA = G on the diagonal, 0 elsewhere
    det:      y = det A               dA = G · det(A) · A⁻ᵀ      (Jacobi's formula: the adjugate, transposed)
    inverse:  Y = A⁻¹                 dA = −Yᵀ · G · Yᵀ
    cross:    y = a × b               da = b × G,  db = G × a
    addmv:    y = β·c + α·(M v)       dc = β G,  dM = α G vᵀ,  dv = α Mᵀ G
    baddbmm:  Y = β·C + α·(A₁ A₂)     dC = β G,  dA₁ = α G A₂ᵀ,  dA₂ = α A₁ᵀ G   (per batch)

Each backward is written in the same operations, so it can be differentiated again.
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

import warnings
from typing import Any

import numpy  # its LinAlgError class only, never tensor data

from minigrad import dtypes as _dtypes
from minigrad._arguments import int_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._checks.linalg import check_bmm, check_dot, check_mv
from minigrad.ops._checks.shape import expanded_shape
from minigrad.ops._util import (
    TORCH_TYPE_NAMES,
    check_broadcast_shapes,
    check_tensor_arguments,
    not_implemented_for,
)
from minigrad.ops.elementwise import where
from minigrad.ops.linalg import matmul, mm, scaled_gradients, scaled_sum
from minigrad.ops.matmul import Bmm, Dot, Mv
from minigrad.performance import parallel
from minigrad.tensor import Tensor, _normalize_dim


class LinAlgError(RuntimeError):
    """A matrix the operation cannot handle (a singular one for ``inverse``), as PyTorch's
    ``torch.linalg.LinAlgError``, a RuntimeError."""


def _square_matrices(function: str, a: Tensor) -> None:
    """PyTorch's checks of ``linalg.det``/``linalg.inv``: floating point batches of square matrices."""
    check_tensor_arguments(function.split(".")[-1], {"A": a})
    if a.ndim < 2:
        raise RuntimeError(f"{function}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{function}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")
    if not a.dtype.is_floating_point or a.dtype is _dtypes.float16:
        raise RuntimeError(f"{function}: Expected a floating point or complex tensor as input. Got "
                           f"{TORCH_TYPE_NAMES[a.dtype.name]}")


def _mT(a: Tensor) -> Tensor:  # noqa: N802 (PyTorch's name)
    """The last two axes swapped (``A.mT``)."""
    return a.transpose(-2, -1)


# --- trace, det, inverse --------------------------------------------------------------------------

class Trace(Function):
    """y = Σᵢ Aᵢᵢ (an (n, m) matrix);   dA = G on the diagonal, 0 elsewhere (G · I, selected)."""

    @staticmethod
    def forward(ctx, a):
        ctx.input_shape = tuple(a.shape)
        x = a.array
        dtype = _dtypes.int64.numpy if not a.dtype.is_floating_point else x.dtype
        return Tensor(x.trace(dtype=dtype))

    @staticmethod
    def backward(ctx, grad):
        xp = get_array_module(grad)
        diagonal = Tensor(xp.eye(*ctx.input_shape, dtype=bool))
        return where(diagonal, grad, 0.0)  # selected: a nan or inf gradient stays on the diagonal


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a 2-D tensor (integers sum in int64)."""
    check_tensor_arguments("trace", {"input": input})
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input.dtype is _dtypes.bool:
        raise not_implemented_for("trace", input)
    return Trace.apply(input)


def _cofactors(a: Tensor) -> Tensor:
    """The cofactor matrix C = adj(A)ᵀ: Cᵢⱼ = (−1)^{i+j} · det(A without row i and column j). Defined (and
    differentiable, through ``det`` of the minors) also where A is singular and A⁻¹ is not."""
    xp = get_array_module(a.array)
    n = a.shape[-1]
    if n == 1:
        return Tensor(xp.ones(a.shape, dtype=a.array.dtype))
    k, i = xp.arange(n - 1)[None, :], xp.arange(n)[:, None]
    others = k + (k >= i)  # row i of it: 0 … n−1 without i
    minors = a[..., others[:, None, :, None], others[None, :, None, :]]  # (..., n, n, n−1, n−1)
    signs = Tensor(1.0 - 2.0 * ((i + i.T) % 2)).to(a.dtype)
    return Det.apply(minors) * signs


class Det(Function):
    """y = det A (per matrix of a batch);   dA = G · adj(A)ᵀ (Jacobi's formula): G · det(A) · A⁻ᵀ where A is
    invertible, the cofactors where it is not."""

    node_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        out = Tensor(xp.linalg.det(a.array).astype(a.array.dtype, copy=False))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        xp = get_array_module(a.array)
        g = grad.unsqueeze(-1).unsqueeze(-1)
        if a.shape[-1] == 0:
            return Tensor(xp.zeros(a.shape, dtype=grad.array.dtype))
        if bool((out.array != 0).all()):
            return g * out.unsqueeze(-1).unsqueeze(-1) * _mT(Inverse.apply(a))
        return g * _cofactors(a)


def det(input: Tensor) -> Tensor:
    """The determinant of a square matrix, or of each matrix of a batch (..., n, n)."""
    _square_matrices("linalg.det", input)
    return Det.apply(input)


class Inverse(Function):
    """Y = A⁻¹ (per matrix of a batch);   dA = −Yᵀ · G · Yᵀ."""

    node_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        try:
            inverse = xp.linalg.inv(a.array)
        except numpy.linalg.LinAlgError:  # NumPy's error (CuPy's too), as PyTorch's
            inverse = None
        # CuPy may answer a singular matrix with infinities instead of raising
        if inverse is None or not bool(xp.isfinite(inverse).all()) and bool(xp.isfinite(a.array).all()):
            raise LinAlgError("linalg.inv: The input matrix is singular: the inversion could not be "
                               "completed (a zero pivot in its LU factorisation).")
        out = Tensor(inverse)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        y_t = _mT(out)
        return -matmul(matmul(y_t, grad), y_t)


def inverse(input: Tensor) -> Tensor:
    """A⁻¹ of a square matrix, or of each matrix of a batch; a singular one is PyTorch's RuntimeError."""
    _square_matrices("linalg.inv", input)
    return Inverse.apply(input)


# --- the cross product ----------------------------------------------------------------------------

class Cross(Function):
    """y = a × b along ``axis`` (of size 3);   da = b × G,  db = G × a."""

    node_name = "LinalgCrossBackward0"

    @staticmethod
    def forward(ctx, a, b, axis):
        xp = get_array_module(a)
        dtype = _dtypes.result_type(a, b).numpy
        ctx.axis = axis
        ctx.save_for_backward(a, b)
        x, y = a.array.astype(dtype, copy=False), b.array.astype(dtype, copy=False)
        return Tensor(xp.cross(x, y, axis=axis))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = Cross.apply(b, grad, ctx.axis) if ctx.needs_input_grad[0] else None
        grad_b = Cross.apply(grad, a, ctx.axis) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None


def _cross_operands(function: str, input: Tensor, other: Tensor) -> tuple:
    check_tensor_arguments(function, {"input": input, "other": other})
    if input.ndim != other.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions (got shapes "
                           f"{list(input.shape)} and {list(other.shape)})")
    check_broadcast_shapes(tuple(input.shape), tuple(other.shape))
    if input.dtype is _dtypes.bool or other.dtype is _dtypes.bool:
        raise not_implemented_for("cross", input if input.dtype is _dtypes.bool else other)
    shape = tuple(max(m, n) for m, n in zip(input.shape, other.shape))
    return input.expand(shape), other.expand(shape)


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """``linalg.cross``: a × b along ``dim`` (default the last), which must have size 3; broadcast."""
    a, b = _cross_operands("linalg.cross", input, other)
    axis = _normalize_dim(int_argument(dim, "linalg.cross", "dim"), a.ndim)
    if a.shape[axis] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{list(input.shape)} and {list(other.shape)}")
    return Cross.apply(a, b, axis)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """``torch.cross``: ``linalg.cross``, except that without ``dim`` the first dimension of size 3 is used
    (with PyTorch's deprecation warning)."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass "
                      "the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will "
                      "change to agree with that of linalg.cross in a future release.", UserWarning,
                      stacklevel=3)
        a, _ = _cross_operands("cross", input, other)
        sizes = [axis for axis, n in enumerate(a.shape) if n == 3]
        if not sizes:
            raise RuntimeError(f"no dimension of size 3 in input (shape {list(input.shape)})")
        dim = sizes[0]
    return linalg_cross(input, other, dim=dim)


# --- fused and generalised products ---------------------------------------------------------------

class Addmv(Function):
    """y = β·c + α·(M v);   dc = β G,  dM = α G vᵀ,  dv = α Mᵀ G: as ``addmm``, the product's
    gradients (here ``Mv``'s), scaled. Arguments in addmm's order (M, v, c), edges to c, M, v."""

    product: type[Function] = Mv  # the Function whose backward gives the product's gradients
    graph_inputs = (2, 0, 1)

    @staticmethod
    def forward(ctx, a, b, input, beta, alpha):
        ctx.save_for_backward(a, b)
        ctx.beta, ctx.alpha = beta, alpha
        return scaled_sum(input, beta, parallel.matmul(a.array, b.array), alpha)

    @staticmethod
    def backward(ctx, grad):
        grad_a, grad_b = ctx._forward_cls.product.backward(ctx, grad)
        return scaled_gradients(ctx, grad_a, grad_b, grad if ctx.needs_input_grad[2] else None)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """β·input + α·(mat @ vec), input broadcast to the product's length."""
    check_tensor_arguments("addmv", {"input": input, "mat": mat, "vec": vec})
    check_mv(mat, vec)
    if input.dtype is not mat.dtype:
        raise RuntimeError(f"expected scalar type {TORCH_TYPE_NAMES[mat.dtype.name]} but found "
                           f"{TORCH_TYPE_NAMES[input.dtype.name]}")
    check_broadcast_shapes(tuple(input.shape), (mat.shape[0],))
    if input.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, 2, 1")
    return Addmv.apply(mat, vec, input, beta, alpha)


class Baddbmm(Addmv):
    """Y = β·C + α·(A₁ A₂) for each batch;   dC = β G,  dA₁ = α G A₂ᵀ,  dA₂ = α A₁ᵀ G  (Bmm's, scaled)."""

    product = Bmm


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """β·input + α·bmm(batch1, batch2), input broadcast to (b, n, p)."""
    check_tensor_arguments("baddbmm", {"input": input, "batch1": batch1, "batch2": batch2})
    check_bmm(batch1, batch2)
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {TORCH_TYPE_NAMES[input.dtype.name]}, "
                           f"batch1: {TORCH_TYPE_NAMES[batch1.dtype.name]}, batch2: "
                           f"{TORCH_TYPE_NAMES[batch2.dtype.name]}")
    expanded_shape(input, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))  # PyTorch expands input
    return Baddbmm.apply(batch1, batch2, input, beta, alpha)


class Vdot(Dot):
    """y = Σᵢ conj(aᵢ)·bᵢ, for real numbers a · b (``Dot``'s forward and backward);   da = dy·b,
    db = dy·a."""

    node_name = "VdotBackward0"


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """Σᵢ conj(aᵢ)·bᵢ of two 1-D tensors: minigrad's numbers are real, so it is ``dot``."""
    check_dot(input, other)
    return Vdot.apply(input, other)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """Σ over paired dimensions of a and b: ``dims`` = n pairs a's last n with b's first n; a pair of lists
    ([a's dims], [b's dims]) names them. Computed as one matrix product: a's free dimensions × the summed
    ones, times the summed ones × b's free ones."""
    check_tensor_arguments("tensordot", {"a": a, "b": b})
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError(f"both dimension lists should have same length (got {len(dims_a)} and "
                           f"{len(dims_b)})")
    dims_a = [_normalize_dim(d, a.ndim) for d in dims_a]
    dims_b = [_normalize_dim(d, b.ndim) for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in "
                               f"dim {da} and second has size {b.shape[db]} in dim {db}")
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    summed = 1
    for d in dims_a:
        summed *= a.shape[d]
    left = a.permute(*free_a, *dims_a).reshape(-1, summed)
    right = b.permute(*dims_b, *free_b).reshape(summed, -1)
    shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    return mm(left, right).reshape(shape)


def inner(input: Tensor, other: Tensor) -> Tensor:
    """Σ over the last dimension of both: out[i…, j…] = Σₖ a[i…, k]·b[j…, k] (a number: the product)."""
    check_tensor_arguments("inner", {"input": input, "other": other})
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))

