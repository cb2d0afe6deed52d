"""Collation: turning a list of samples into one batch, as PyTorch's ``default_collate``.

The batch keeps the samples' structure and stacks their leaves along a new first dimension:

    [(x0, y0), (x1, y1)]          ->  [stack([x0, x1]), tensor([y0, y1])]
    [{'a': a0}, {'a': a1}]        ->  {'a': stack([a0, a1])}

Tensors are stacked; NumPy arrays with one ``numpy.stack``; strings stay as they came; a
tuple sample gives a list of fields, as in PyTorch. Python numbers become one tensor, typed as
PyTorch types them: float64 when the first number is a float; otherwise bool when all are
bools, the default float dtype when any is a float, else int64.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy
from numpy.typing import DTypeLike

from minigrad import dtypes
from minigrad.backend import get_array_module
from minigrad.creation import from_numpy
from minigrad.data.dataset import SampleBatch
from minigrad.functions import stack
from minigrad.ops.indexing import may_need_graph
from minigrad.tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_numeric_numpy(array: numpy.ndarray | numpy.generic) -> bool:
    return array.dtype.kind in "biuf"  # not strings, bytes or objects


def _from_numpy_leaves(batch: Sequence[numpy.ndarray | numpy.generic]) -> Any:
    if not _is_numeric_numpy(batch[0]):
        raise TypeError(_ERROR.format(batch[0].dtype))
    try:
        return from_numpy(numpy.stack(batch))
    except ValueError as error:  # arrays of different shapes
        shapes = sorted({numpy.shape(leaf) for leaf in batch})
        raise RuntimeError(f"default_collate: stack expects each array to be equal size, got shapes "
                           f"{shapes}") from error


def _number_kind(value: Any) -> str | None:
    """'b', 'i' or 'f' for a bool, an integer or a float (Python, NumPy, or a 0-d Tensor); else None."""
    if isinstance(value, Tensor):
        return {"u": "i"}.get(value.dtype.numpy.kind, value.dtype.numpy.kind) if value.ndim == 0 else None
    if isinstance(value, (bool, numpy.bool_)):
        return "b"
    if isinstance(value, (int, numpy.integer)):
        return "i"
    if isinstance(value, (float, numpy.floating)):
        return "f"
    return None


def _collate_numbers(batch: Sequence, starts_with_float: bool) -> Tensor:
    """A batch of numbers as one tensor, with PyTorch's dtype: float64 when the first is a float (every
    one must be a real number), else bool, the default float dtype or int64, from all of them."""
    kinds = set()
    for value in batch:
        kind = _number_kind(value)
        if kind is None:
            found = type(value).__name__
            if starts_with_float:
                raise TypeError(f"must be real number, not {found} (default_collate of a batch of floats "
                                f"found {value!r})")
            if value is None:
                raise RuntimeError("Could not infer dtype of NoneType (default_collate of a batch of numbers "
                                   "found None)")
            raise TypeError(f"new(): invalid data type '{found}' (default_collate of a batch of numbers "
                            f"found {value!r})")
        kinds.add(kind)
    dtype: DTypeLike
    if starts_with_float:
        dtype = numpy.float64
    elif kinds == {"b"}:
        dtype = numpy.bool_
    elif "f" in kinds:
        dtype = dtypes.get_default_dtype().numpy
    else:
        dtype = numpy.int64
    values = [value.item() if isinstance(value, Tensor) else value for value in batch]
    return from_numpy(numpy.array(values, dtype=dtype))


def _stack_samples(batch: Sequence[Tensor]) -> Tensor:
    """``stack(batch)``, made directly when no sample can need a gradient and all agree in shape,
    dtype and device (a DataLoader's samples); else the general ``stack``, with its checks, errors
    and graph. Made directly, it is the array module's ``array`` of the samples' arrays: for arrays
    of one shape and dtype the same as ``stack``, and quicker (NumPy's ``stack`` first adds a
    dimension to each). ``stack``'s look at each of its inputs made a batch twice as slow
    (docs/performance.md, "Per-sample access")."""
    first = batch[0]._array
    shape, dtype, array_type = first.shape, first.dtype, type(first)
    arrays = []
    for sample in batch:
        array = sample._array if isinstance(sample, Tensor) else None
        if (type(array) is not array_type or array.shape != shape or array.dtype != dtype
                or may_need_graph(sample)):
            return stack(list(batch))
        arrays.append(array)
    return Tensor(get_array_module(first).array(arrays))


def _transpose(batch: Sequence[Sequence]) -> list[tuple]:
    """[(a0, b0), (a1, b1)] -> [(a0, a1), (b0, b1)], checking every sample has as many fields."""
    sizes = {len(sample) for sample in batch}
    if len(sizes) > 1:
        raise RuntimeError("each element in list of batch should be of equal size, got sizes "
                           f"{sorted(sizes)}")
    return list(zip(*batch))


def default_collate(batch: Sequence) -> Any:
    """Merge a list of samples into a batch whose leaves have a new first dimension of ``len(batch)``."""
    if isinstance(batch, SampleBatch):  # fetched by __getitems__: collate whole arrays at once
        return batch.collate()
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack_samples(batch)
    if isinstance(elem, (numpy.ndarray, numpy.generic)) and not isinstance(elem, (numpy.str_, numpy.bytes_)):
        return _from_numpy_leaves(batch)
    if isinstance(elem, (int, float)):  # bool too: it is an int
        return _collate_numbers(batch, starts_with_float=isinstance(elem, float))
    if isinstance(elem, (str, bytes)):
        return batch  # as PyTorch: the strings themselves, in the sequence they came in
    if isinstance(elem, Mapping):
        collated = {key: default_collate([sample[key] for sample in batch]) for key in elem}
        try:
            return type(elem)(collated)  # type: ignore[call-arg]  # mypy sees the abstract Mapping's __init__
        except TypeError:  # a mapping type that cannot be built from a dict
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple keeps its type
        return type(elem)(*(default_collate(field) for field in _transpose(batch)))
    if isinstance(elem, Sequence):
        return [default_collate(field) for field in _transpose(batch)]
    raise TypeError(_ERROR.format(type(elem)))


def default_convert(data: Any) -> Any:
    """Turn the NumPy arrays in one sample into tensors, keeping its structure (no batching)."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, (numpy.ndarray, numpy.generic)) and _is_numeric_numpy(data):
        return from_numpy(numpy.asarray(data))
    if isinstance(data, Mapping):
        converted = {key: default_convert(value) for key, value in data.items()}
        try:
            return type(data)(converted)  # type: ignore[call-arg]  # mypy sees the abstract Mapping's __init__
        except TypeError:
            return converted
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(value) for value in data))
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(value) for value in data]
    return data
