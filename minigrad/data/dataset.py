"""Datasets: anything with ``__len__`` and ``__getitem__(index) -> sample``, as in PyTorch.

A dataset may also offer ``__getitems__(indices)``, PyTorch's batched fetch: the
:class:`DataLoader` then asks for a whole batch at once. The datasets here answer with a
:class:`SampleBatch`, which reads as the list of samples but lets ``default_collate``
build the batch from whole arrays, with no Python loop over the samples.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy

from minigrad.backend import from_host
from minigrad.random import generator_argument
from minigrad.tensor import Tensor

__all__ = ["ConcatDataset", "Dataset", "SampleBatch", "Subset", "TensorDataset", "random_split"]


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__(index)`` and ``__len__()``."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Any) -> ConcatDataset:
        """``a + b``: the samples of ``a`` followed by those of ``b``."""
        return ConcatDataset([self, other])


class SampleBatch(Sequence):
    """The samples at ``indices`` of a dataset, fetched together by its ``__getitems__``.

    ``batch[i]`` is ``get_sample(indices[i])``, so it reads as a list of samples;
    ``batch.collate()`` is ``collate(indices)``, the collated batch built in one step.

    Args:
        indices: the samples' indices in the dataset.
        get_sample: index -> one sample.
        collate: indices -> the collated batch, built in one step.
    """

    def __init__(self, indices: numpy.ndarray, get_sample: Callable[[int], Any],
                 collate: Callable[[numpy.ndarray], Any]):
        self.indices = indices
        self._get_sample = get_sample
        self._collate = collate

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, position: int | slice) -> Any:
        if isinstance(position, slice):
            return [self._get_sample(int(index)) for index in self.indices[position]]
        return self._get_sample(int(self.indices[position]))

    def collate(self) -> Any:
        return self._collate(self.indices)


def _index_array(indices: Sequence[int], length: int) -> numpy.ndarray:
    """``indices`` as an int64 array, checked against ``length`` (negative ones count from the end).

    Anything but integers is refused, as indexing one sample with it would be: a float with an
    IndexError (it is not truncated), a string or another object with a TypeError.
    """
    given = numpy.asarray(indices)
    if given.size and given.dtype.kind not in "iu":
        error = IndexError if given.dtype.kind in "fb" else TypeError
        raise error(f"only integers are valid dataset indices, but the sampler gave {list(indices)!r} "
                    f"(dtype {given.dtype})")
    array = given.astype(numpy.int64).reshape(-1)
    if array.size and (array.min() < -length or array.max() >= length):
        bad = array[(array < -length) | (array >= length)][0]
        raise IndexError(f"index {bad} is out of range for a dataset of size {length}")
    return array


class TensorDataset(Dataset):
    """Samples are the rows of tensors of equal first dimension: ``ds[i] = (t[i] for t in tensors)``."""

    def __init__(self, *tensors: Any):
        for position, tensor in enumerate(tensors):
            if not isinstance(tensor, Tensor):  # PyTorch calls tensor.size(0): its error is one of these
                error = TypeError if hasattr(tensor, "size") else AttributeError
                raise error(f"TensorDataset expects tensors, got {type(tensor).__name__} at position "
                            f"{position} (convert it with minigrad.tensor or minigrad.from_numpy)")
            if tensor.ndim == 0:
                raise IndexError(f"Dimension specified as 0 but tensor has no dimensions (TensorDataset's "
                                 f"tensor at position {position} is 0-dimensional: its samples are its rows)")
        sizes = [tensor.shape[0] for tensor in tensors]
        if len(set(sizes)) > 1:  # PyTorch asserts this, so its exception type is AssertionError
            raise AssertionError(f"Size mismatch between tensors: first dimensions {sizes}")
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple:
        return tuple(tensor[index] for tensor in self.tensors)

    def __getitems__(self, indices: Sequence[int]) -> SampleBatch:
        return SampleBatch(_index_array(indices, len(self)), self.__getitem__, self._rows)

    def _rows(self, indices: numpy.ndarray) -> list:
        """The collated batch: each tensor indexed once with the whole index array (copied to its device)."""
        return [tensor[from_host(indices, tensor.device)] for tensor in self.tensors]

    def __len__(self) -> int:
        if not self.tensors:  # as PyTorch's tensors[0]
            raise IndexError("tuple index out of range: a TensorDataset of no tensors has no length")
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``: ``subset[i] = dataset[indices[i]]``.

    Args:
        dataset: the dataset to take samples from.
        indices: which samples, in order.
    """

    def __init__(self, dataset: Any, indices: Sequence[int]):
        self.dataset = dataset
        self.indices = indices
        self._index_map = numpy.asarray(indices, dtype=numpy.int64)  # for __getitems__

    def __getitem__(self, index: int | list) -> Any:
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices: Sequence[int]) -> Any:
        mapped = self._index_map[_index_array(indices, len(self))].tolist()
        if hasattr(self.dataset, "__getitems__"):
            return self.dataset.__getitems__(mapped)
        return [self.dataset[index] for index in mapped]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Datasets one after another: index ``i`` falls in the first dataset whose cumulative size exceeds it.

    ``cumulative_sizes[k]`` is the number of samples in datasets ``0..k``, so dataset ``k`` holds
    the indices ``cumulative_sizes[k-1] <= i < cumulative_sizes[k]``.

    Args:
        datasets: the datasets, in order.
    """

    def __init__(self, datasets: Iterable[Any]):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")  # PyTorch asserts this
        self.cumulative_sizes = numpy.cumsum([len(d) for d in self.datasets]).tolist()

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


def _split_lengths(lengths: Sequence[int | float], total: int) -> list[int]:
    """Turn fractions summing to 1 into sizes, giving the remainder out one by one from the front."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for fraction in lengths:
            if not 0 <= fraction <= 1:
                raise ValueError(f"Fraction {fraction} is not between 0 and 1")
        sizes = [math.floor(total * fraction) for fraction in lengths]
        for i in range(total - sum(sizes)):
            sizes[i % len(sizes)] += 1
        return sizes
    if sum(lengths) != total:
        raise ValueError(f"Sum of input lengths {list(lengths)} does not equal the length of the input "
                         f"dataset ({total})!")
    return [int(length) for length in lengths]


def random_split(dataset: Any, lengths: Sequence[int | float], generator: Any = None) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random :class:`Subset` s of the given lengths or fractions."""
    rng = generator_argument(generator, "randperm").rng
    sizes = _split_lengths(lengths, len(dataset))
    order = rng.permutation(sum(sizes)).tolist()
    starts = numpy.cumsum([0, *sizes]).tolist()
    return [Subset(dataset, order[start:start + size]) for start, size in zip(starts, sizes)]
