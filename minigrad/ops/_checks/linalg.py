"""Argument checks of the matrix products (``ops/linalg.py``), with PyTorch's exceptions and messages."""

from __future__ import annotations

from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.ops._util import TORCH_TYPE_NAMES, check_tensor_arguments, not_implemented_for
from minigrad.tensor import Tensor


def check_same_dtype(a: Tensor, b: Tensor, name: str) -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{name}: expected both operands to have the same dtype, but got: "
                           f"{a.dtype.name} != {b.dtype.name}")


def check_shapes(a: Tensor, b: Tensor) -> None:
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


def check_matmul(a: Any, b: Any) -> None:
    """Two tensors of one dtype (not bool), at least 1-D, whose inner sizes agree."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError(f"unsupported operand type(s) for @: '{type(a).__name__}' and '{type(b).__name__}'")
    check_same_dtype(a, b, "matmul")
    check_shapes(a, b)
    if a.dtype is _dtypes.bool:  # PyTorch has no bool kernel: named as its error names it
        kernel = "dot" if a.ndim == b.ndim == 1 else "addmv_impl_cpu" if b.ndim == 1 else "addmm_impl_cpu_"
        raise not_implemented_for(kernel, a)


def check_mm(a: Tensor, b: Tensor) -> None:
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"mm: both arguments must be 2-D matrices, got shapes {list(a.shape)} "
                           f"and {list(b.shape)}")


def check_dot(a: Any, b: Any) -> None:
    """Two 1-D tensors of one size and one dtype (not bool)."""
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


def check_mv(a: Any, b: Any) -> None:
    """An (n, m) matrix and an (m,) vector of one dtype."""
    check_tensor_arguments("mv", {"input": a, "vec": b})
    if a.ndim != 2 or b.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {b.ndim}")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                           f"vec ({b.shape[0]})")
    check_same_dtype(a, b, "mv")


def check_outer(a: Any, b: Any) -> None:
    check_tensor_arguments("outer", {"input": a, "vec2": b})
    for argument, t in (("self", a), ("vec2", b)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {argument}, but got {t.ndim}-D")


def check_bmm(a: Any, b: Any) -> None:
    """(b, n, m) and (b, m, p) tensors of one dtype (not bool): no broadcasting, as in PyTorch."""
    check_tensor_arguments("bmm", {"input": a, "mat2": b})
    for argument, t in (("batch1", a), ("batch2", b)):
        if t.ndim != 3:
            raise RuntimeError(f"{argument} must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    check_same_dtype(a, b, "bmm")
    if a.dtype is _dtypes.bool:
        raise not_implemented_for("bmm", a)


def check_addmm(input: Any, mat1: Any, mat2: Any) -> None:  # noqa: A002 (PyTorch's name)
    """Two matrices that multiply, and an input of their dtype that broadcasts to the product."""
    check_tensor_arguments("addmm", {"input": input, "mat1": mat1, "mat2": mat2})
    for argument, t in (("mat1", mat1), ("mat2", mat2)):
        if t.ndim != 2:
            raise RuntimeError(f"{argument} must be a matrix, got {t.ndim}-D tensor")
    check_shapes(mat1, mat2)
    for t in (mat2, input):
        check_same_dtype(mat1, t, "addmm")
    if mat1.dtype is _dtypes.bool:
        raise not_implemented_for("addmm_impl_cpu_", mat1)
    out_shape = (mat1.shape[0], mat2.shape[1])
    if input.ndim > 2 or any(n not in (1, m) for n, m in zip(reversed(input.shape), reversed(out_shape))):
        raise RuntimeError(f"The expanded size of the tensor ({out_shape[-1]}) must match the existing size "
                           f"of input (shape {list(input.shape)}) to the product of shape {list(out_shape)}")


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def explicit_equation(equation: str, operands: tuple) -> tuple[list[str], str]:
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


def check_einsum(equation: Any, operands: tuple) -> None:
    """A string equation and at least one tensor operand, all of one dtype."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type(equation).__name__}")
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    check_tensor_arguments("einsum", {f"operands[{k}]": t for k, t in enumerate(operands)})
    for t in operands[1:]:
        check_same_dtype(operands[0], t, "einsum")
