"""Argument checks of ``F.embedding`` (``ops/embedding.py``), with PyTorch's exceptions and messages."""

from __future__ import annotations

from minigrad.tensor import Tensor


def padding_index(padding_idx: int | None, num_embeddings: int) -> int | None:
    """``padding_idx`` in [0, num_embeddings) (negative counts from the end); PyTorch asserts the range."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError(f"Padding_idx must be within num_embeddings (got padding_idx={padding_idx} for "
                             f"num_embeddings={num_embeddings})")
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


def check_indices(input: Tensor, weight: Tensor) -> None:  # noqa: A002 (PyTorch's name)
    """int64/int32 indices, each a row of the 2-D ``weight``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding(): argument 'indices' (position 2) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.dtype.numpy.name not in ("int64", "int32"):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar "
                           f"types: Long, Int; but got {input.dtype} instead (while checking arguments for "
                           f"embedding)")
    if weight.ndim != 2:
        raise RuntimeError(f"'weight' must be 2-D, but got weight of size {list(weight.shape)}")
    index, size = input.array, weight.shape[0]
    # CuPy would wrap an out-of-range index around instead of raising: check it here.
    if index.size and bool(((index < 0) | (index >= size)).any()):
        bad = index[(index < 0) | (index >= size)].reshape(-1)[0]
        raise IndexError(f"index out of range in self: index {int(bad)} for an embedding of "
                         f"{size} rows (weight of size {list(weight.shape)})")
