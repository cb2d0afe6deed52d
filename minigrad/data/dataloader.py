"""DataLoader: iterate over a dataset in (shuffled) batches, as ``torch.utils.data.DataLoader``.

One pass is three steps per batch:

    indices = next(batch_sampler)              # which samples, e.g. [17, 3, 42, ...]
    samples = dataset.__getitems__(indices)    # or [dataset[i] for i in indices]
    batch   = collate_fn(samples)              # stack them into tensors

Everything runs in the main process: ``num_workers`` (and the options that go with workers:
``prefetch_factor``, ``multiprocessing_context``, ``persistent_workers`` ...) are accepted and
checked as PyTorch checks them, for compatibility, and change nothing but the attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sized
from typing import Any, cast

from minigrad.data.collate import default_collate, default_convert
from minigrad.data.dataset import SampleBatch
from minigrad.data.sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]


class DataLoader:
    """Batches of ``batch_size`` samples of ``dataset``, reshuffled on every pass when ``shuffle``.

    ``generator`` (a ``minigrad.Generator``) makes the shuffling reproducible; without one
    it follows ``minigrad.manual_seed``. ``batch_size=None`` yields single samples.
    ``len(loader)`` is the number of batches: ``ceil(N / batch_size)``, or
    ``N // batch_size`` with ``drop_last``.

    Args:
        dataset: what to load: anything with ``__getitem__`` and ``__len__`` (or an iterable).
        batch_size: samples per batch; None yields single samples.
        shuffle: a fresh random order on every pass.
        sampler: the order of the indices instead (an iterable of indices); excludes ``shuffle``.
        batch_sampler: yields whole lists of indices; excludes ``batch_size``, ``shuffle``, ``sampler`` and
            ``drop_last``.
        num_workers: accepted and checked for compatibility; everything runs in the main process.
        collate_fn: turns a list of samples into a batch (default: stack them into tensors).
        pin_memory: accepted for compatibility; no effect.
        drop_last: drop a last batch smaller than ``batch_size``.
        timeout: accepted and checked for compatibility (non-negative).
        worker_init_fn: accepted for compatibility (there are no workers).
        multiprocessing_context: accepted for compatibility (there are no workers).
        generator: a ``minigrad.Generator`` that makes the shuffling reproducible.
        prefetch_factor: accepted and checked for compatibility (only with workers).
        persistent_workers: accepted for compatibility (there are no workers).
        pin_memory_device: accepted for compatibility; no effect.
        in_order: accepted for compatibility: batches always come in order.
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool = False,
                 sampler: Iterable | None = None, batch_sampler: Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context: Any = None, generator: Any = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True):
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             f"multiprocessing (got {num_workers!r})")
        if timeout < 0:
            raise ValueError(f"timeout option should be non-negative (got {timeout!r})")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let "
                             "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to "
                             f"None (got prefetch_factor={prefetch_factor!r})")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError(f"prefetch_factor option should be non-negative (got {prefetch_factor!r})")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive "
                             "with drop_last")

        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert

        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.collate_fn = collate_fn
        self.pin_memory = pin_memory  # no effect: there is no pinned host memory to use
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn  # never called: there are no worker processes
        self.multiprocessing_context = multiprocessing_context  # no processes, so no context either
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.pin_memory_device = pin_memory_device
        self.in_order = in_order  # batches always come in order: there is one process

    def _fetch(self, indices: list[int]) -> Any:
        """The samples at ``indices``: in one call when the dataset offers ``__getitems__``."""
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems is None:
            return [self.dataset[index] for index in indices]
        samples = getitems(indices)
        if isinstance(samples, SampleBatch) and self.collate_fn is not default_collate:
            return list(samples)  # a user's collate_fn gets the plain list of samples, as in PyTorch
        return samples

    def __iter__(self) -> Iterator:
        if self.batch_sampler is None:  # no automatic batching: one converted sample at a time
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        for indices in self.batch_sampler:
            yield self.collate_fn(self._fetch(indices))

    def __len__(self) -> int:
        # a sampler without __len__: len's TypeError, as PyTorch's
        if self.batch_sampler is None:
            return len(cast(Sized, self.sampler))
        return len(cast(Sized, self.batch_sampler))
