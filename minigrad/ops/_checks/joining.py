"""Argument checks of joining and cutting into pieces (``ops/joining.py``: narrow, split, chunk,
unbind, cat, stack), with PyTorch's exceptions and messages."""

from __future__ import annotations

from typing import Any

from minigrad._arguments import int_argument
from minigrad.tensor import Tensor, _normalize_dim


def narrow_arguments(a: Tensor, dim: Any, start: Any, length: Any) -> tuple[int, int, int]:
    """(axis, start, length) of ``a.narrow(dim, start, length)``, ``start`` made non-negative."""
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _normalize_dim(int_argument(dim, "narrow", "dim"), a.ndim)
    start, length = int_argument(start, "narrow", "start"), int_argument(length, "narrow", "length")
    size = a.shape[dim]
    if length < 0:
        raise RuntimeError(f"narrow(): length must be non-negative (got {length}).")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start %= size if size else 1
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return dim, start, length


def split_dim(a: Tensor, dim: Any) -> int:
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    return _normalize_dim(int_argument(dim, "split", "dim"), a.ndim)


def split_sizes(sections: Any, size: int, dim: int) -> list:
    """The listed sizes of ``split``: non-negative ints that add up to the dimension's ``size``."""
    sizes = [int_argument(n, "split", "split_size") for n in sections]
    if any(n < 0 for n in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, "
                           f"but got split_sizes={sizes}")
    if sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={sizes}")
    return sizes


def split_size(split_size: Any, size: int) -> int:
    """The piece size of ``split``: non-negative, and 0 only for a dimension of size 0."""
    step = int_argument(split_size, "split", "split_size")
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                           f"{size}")
    return step


def chunks_argument(a: Tensor, chunks: Any) -> int:
    chunks = int_argument(chunks, "chunk", "chunks")
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    return chunks


def unbind_dim(a: Tensor, dim: Any) -> int:
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return _normalize_dim(int_argument(dim, "unbind", "dim"), a.ndim)


def check_cat(tensors: list, axis: int) -> None:
    """The tensors have one number of dimensions (at least 1) and one size except along ``axis``."""
    reference = tensors[0]
    for number, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {number}) cannot be concatenated")
        if t.ndim != reference.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {reference.ndim} "
                               f"and {t.ndim}")
        for i, (n, m) in enumerate(zip(reference.shape, t.shape)):
            if i != axis and n != m:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {axis}. Expected "
                                   f"size {n} but got size {m} for tensor number {number} in the list.")


def check_stack(tensors: list) -> None:
    """The tensors have one shape."""
    shape = tensors[0].array.shape
    for number, t in enumerate(tensors):
        if t.array.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at entry {number}")
