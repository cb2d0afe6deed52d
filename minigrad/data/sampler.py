"""Samplers decide the order of a dataset's indices; :class:`BatchSampler` groups them into batches."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, cast

from minigrad.random import generator_argument

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler"]


class Sampler:
    """Base class: an iterable over dataset indices (or over lists of them)."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Indices ``0, 1, ..., len(data_source) - 1`` in order.

    Args:
        data_source: the dataset (only its length is used).
    """

    def __init__(self, data_source: Any):
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A fresh random permutation of the indices on every pass (or draws with replacement).

    The numbers come from ``generator`` (a ``minigrad.Generator``), else from the global
    generator that ``minigrad.manual_seed`` seeds.

    Args:
        data_source: the dataset (only its length is used).
        replacement: draw with replacement instead of permuting.
        num_samples: how many indices per pass (default: the dataset's length).
        generator: a ``minigrad.Generator`` for the random numbers (default: the global one).
    """

    def __init__(self, data_source: Any, replacement: bool = False, num_samples: int | None = None,
                 generator: Any = None):
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:  # also an empty dataset
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        rng = generator_argument(self.generator, "randperm").rng
        n = len(self.data_source)
        if self.replacement:
            # in chunks of 32, as PyTorch draws them: num_samples may be huge (an "infinite" loader,
            # RandomSampler(ds, replacement=True, num_samples=int(1e10)), is a course idiom)
            for start in range(0, self.num_samples, 32):
                yield from rng.integers(0, n, size=min(32, self.num_samples - start)).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from rng.permutation(n).tolist()
        yield from rng.permutation(n)[: self.num_samples % n].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices``, in a fresh random order on every pass.

    Args:
        indices: the indices to shuffle.
        generator: a ``minigrad.Generator`` for the random numbers (default: the global one).
    """

    def __init__(self, indices: Sequence[int], generator: Any = None):
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        rng = generator_argument(self.generator, "randperm").rng
        for position in rng.permutation(len(self.indices)).tolist():
            yield self.indices[position]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``; the last may be shorter
    unless ``drop_last``.

    Args:
        sampler: yields the indices to group.
        batch_size: indices per list.
        drop_last: drop a last list shorter than ``batch_size``.
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        size = len(cast(Sized, self.sampler))  # a sampler without __len__: len's TypeError, as PyTorch's
        if self.drop_last:
            return size // self.batch_size
        return (size + self.batch_size - 1) // self.batch_size  # rounded up
