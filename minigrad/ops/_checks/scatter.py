"""Argument checks of gather, scatter, index_add and one_hot (``ops/scatter.py``), in PyTorch's order
and with its exceptions and messages."""

from __future__ import annotations

import math
import operator
from numbers import Number, Real
from typing import Any

import numpy  # dtype metadata only (iinfo, finfo), never tensor data

from minigrad import dtypes as _dtypes
from minigrad.tensor import Tensor, _normalize_dim


def size_along(t: Tensor, d: int) -> int:
    """t.size(d), with a 0-d tensor counted as one of size 1 (PyTorch's ensure_nonempty_size)."""
    return t.shape[d] if t.ndim else 1


def dim_argument(function: str, a: Tensor, dim: Any) -> int:
    """``dim`` as an axis of ``a``; a non-integer ``dim`` is PyTorch's TypeError naming ``function``."""
    try:
        dim = operator.index(dim)
    except TypeError:
        raise TypeError(f"{function}(): argument 'dim' must be int, not {type(dim).__name__}") from None
    return _normalize_dim(dim, a.ndim)


def check_index_type(function: str, index: Any) -> None:
    if not isinstance(index, Tensor):
        raise TypeError(f"{function}(): argument 'index' must be Tensor, not {type(index).__name__}")


def check_src_type(function: str, src: Any) -> None:
    if not isinstance(src, Tensor):
        raise TypeError(f"{function}(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")


def check_src_dtype(a: Tensor, src: Tensor | None) -> None:
    if src is not None and src.dtype is not a.dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype (self is "
                           f"{a.dtype.name}, src is {src.dtype.name})")


def check_index_dtype(function: str, index: Tensor) -> None:
    if index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(f"{function}(): Expected dtype int32/int64 for index (got {index.dtype.name}, "
                           f"index of shape {list(index.shape)})")


def check_gather_shapes(a: Tensor, dim: int, index: Tensor) -> None:
    ndim = max(a.ndim, 1)
    if max(index.ndim, 1) != ndim:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as input tensor (index "
                           f"{list(index.shape)}, input {list(a.shape)})")
    for d in range(ndim):
        if d != dim and size_along(index, d) > size_along(a, d):
            raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index.shape)} to "
                               f"be no larger than self {list(a.shape)} apart from dimension {dim}")


def check_scatter_shapes(a: Tensor, dim: int, index: Tensor, src: Tensor | None) -> None:
    """PyTorch's scatter_shape_check, in its order (a src with fewer dimensions can be an IndexError)."""
    ndim = max(a.ndim, 1)
    if max(index.ndim, 1) != ndim:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as self tensor (index "
                           f"{list(index.shape)}, self {list(a.shape)})")
    wrong = any(d != dim and size_along(index, d) > size_along(a, d) for d in range(ndim))
    if src is None:
        if wrong:
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                               f"{list(a.shape)} apart from dimension {dim}")
        return
    for d in range(ndim if not wrong else 0):
        if src.ndim and d >= src.ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-src.ndim}, "
                             f"{src.ndim - 1}], but got {d}) (src of shape {list(src.shape)})")
        if size_along(index, d) > size_along(src, d):
            wrong = True
            break
    if max(src.ndim, 1) != ndim:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as src tensor (index "
                           f"{list(index.shape)}, src {list(src.shape)})")
    if wrong:
        raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(a.shape)} "
                           f"apart from dimension {dim} and to be no larger size than src {list(src.shape)}")


def check_bounds(index: Tensor, size: int, dim: int) -> None:
    """Every index in [0, size): checked here, since CuPy would wrap an out-of-range index around."""
    array = index.array
    bad = (array < 0) | (array >= size)
    if bool(bad.any()):
        raise RuntimeError(f"index {int(array[bad].reshape(-1)[0])} is out of bounds for dimension {dim} "
                           f"with size {size}")


def src_or_value(function: str, src: Any, value: Any, reduce: str | None) -> tuple:
    """(src, None) for a Tensor src, (None, value) for a number (given as src or as ``value=``)."""
    if reduce is not None:
        raise NotImplementedError(f"{function}(reduce={reduce!r}) is not implemented in minigrad; use "
                                  f"scatter_add for reduce='add'")
    if src is not None and value is not None:
        raise TypeError(f"{function}() received an invalid combination of arguments: give src or value, "
                        f"not both")
    if isinstance(src, Tensor):
        return src, None
    if src is not None:
        value = src
    if isinstance(value, Tensor) and value.ndim == 0:  # a 0-d tensor is a number here, as in PyTorch
        value = value.item()
    if value is None or not isinstance(value, Number):
        raise TypeError(f"{function}() received an invalid combination of arguments: expected a Tensor src "
                        f"or a number value, got {type(value).__name__}")
    return None, value


def _is_real(value: Any) -> bool:
    return isinstance(value, Real)


def value_argument(value: Any, a: Tensor) -> Any:
    """``value`` converted to ``a``'s dtype, with PyTorch's error where it does not fit."""
    if not _is_real(value):  # not inline: mypy gives numbers.Real no comparisons, so value stays Any
        raise RuntimeError(f"value cannot be converted to type {a.dtype.name} without overflow (got {value})")
    if a.dtype is _dtypes.bool:
        return bool(value)
    if a.dtype.is_floating_point:
        fits = not math.isfinite(value) or abs(value) <= float(numpy.finfo(a.dtype.numpy).max)
    else:
        limits = numpy.iinfo(a.dtype.numpy)
        fits = math.isfinite(value) and limits.min <= value <= limits.max
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {a.dtype.name} without overflow (got {value})")
    return float(value) if a.dtype.is_floating_point else int(value)


def check_index_add(input: Tensor, dim: Any, index: Tensor, source: Tensor) -> int:  # noqa: A002
    """PyTorch's checks of ``index_add``, in its order; returns ``dim`` as an axis of ``input``."""
    check_index_type("index_add", index)
    check_src_type("index_add", source)
    dim = dim_argument("index_add", input, dim)
    if index.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim} with "
                         f"size: {list(index.shape)}")
    check_index_dtype("index_add_", index)
    count = index.numel()
    along = source.shape[dim] if source.ndim > dim else 1
    if along != count:
        raise RuntimeError(f"index_add_(): Number of indices ({count}) should be equal to "
                           f"source.size(dim): ({along}), for dim: {dim}")
    others_differ = any(source.shape[d] != input.shape[d] for d in range(input.ndim) if d != dim)
    if source.ndim != input.ndim or others_differ:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified "
                           f"dimension. Got self.shape = {list(input.shape)} source.shape = "
                           f"{list(source.shape)}")
    if count:
        positions = index.array.reshape(-1)
        low, high = int(positions.min()), int(positions.max())
        if low < 0 or high >= input.shape[dim]:
            bad = low if low < 0 else high
            message = f"index {bad} is out of bounds for dimension {dim} with size {input.shape[dim]}"
            # PyTorch's 1-D kernel reports it as an indexing error, the others as a RuntimeError
            if input.ndim == 1:
                raise IndexError(f"index out of range in self: {message}")
            raise RuntimeError(message)
    return dim


def one_hot_classes(tensor: Any, num_classes: Any) -> int:
    """``one_hot``'s arguments checked as PyTorch checks them; returns the number of classes
    (``tensor.max() + 1`` for ``num_classes=-1``)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"one_hot(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if isinstance(num_classes, bool) or not isinstance(num_classes, (int, numpy.integer, Tensor)):
        raise TypeError(f"one_hot(): argument 'num_classes' (position 2) must be int, not "
                        f"{type(num_classes).__name__}")
    num_classes = int(num_classes)
    if tensor.dtype is not _dtypes.int64:
        raise RuntimeError(f"one_hot is only applicable to index tensor of type LongTensor "
                           f"(got a {tensor.dtype.name} tensor)")
    classes = tensor.array
    if classes.size == 0:
        if num_classes <= 0:
            raise RuntimeError(f"Can not infer total number of classes from empty tensor (shape "
                               f"{list(tensor.shape)}, num_classes={num_classes}).")
        return num_classes
    low, high = int(classes.min()), int(classes.max())
    if low < 0:
        raise RuntimeError(f"Class values must be non-negative (got {low}).")
    if num_classes == -1:
        num_classes = high + 1
    elif num_classes <= high:
        raise RuntimeError(f"Class values must be smaller than num_classes (got {high} with "
                           f"num_classes={num_classes}).")
    return num_classes


def check_scatter(function: str, a: Tensor, dim: Any, index: Tensor, src: Any) -> int:
    """scatter's, scatter_add's and scatter_reduce's checks in PyTorch's order; the dim, normalised."""
    dim = dim_argument(function, a, dim)
    check_index_type(function, index)
    if index.numel():
        check_index_dtype(function, index)
    check_src_dtype(a, src)
    if index.numel():
        check_scatter_shapes(a, dim, index, src)
        check_bounds(index, size_along(a, dim), dim)
    return dim
