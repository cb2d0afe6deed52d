"""Regression tests from an audit of misuse in ``minigrad.data`` against ``torch.utils.data``.

Pinned here: DataLoader's ``timeout`` and ``prefetch_factor`` checks (and PyTorch's positional
``multiprocessing_context``); a generator that is not a Generator (a TypeError, not an AttributeError);
TensorDataset of a 0-d tensor, of no tensors, of a list; a sampler that yields floats or strings (floats
used to be truncated to ints, silently); and ``default_collate`` of Python numbers, whose dtype follows
``torch.tensor(batch)`` (``[1, 2.5]`` used to become int64 ``[1, 2]``, ``[True, 2]`` bool ``[True, True]``).
"""

from __future__ import annotations

import numpy
import pytest
from _reference import reference
from _torch import raises_like_torch, require_torch

import minigrad as mg


def _rows(m, n=4):
    return m.utils.data.TensorDataset(m.arange(n))


def _cases(*rows):
    return [pytest.param(call, error, list(fragments), id=name) for name, call, error, fragments in rows]


MISUSE = _cases(
    ("timeout-negative", lambda m: m.utils.data.DataLoader(_rows(m), timeout=-1), ValueError,
     ["timeout", "-1"]),
    ("prefetch-without-workers", lambda m: m.utils.data.DataLoader(_rows(m), prefetch_factor=2), ValueError,
     ["prefetch_factor", "num_workers > 0", "2"]),
    ("prefetch-negative", lambda m: m.utils.data.DataLoader(_rows(m), num_workers=1, prefetch_factor=-1),
     ValueError, ["prefetch_factor", "non-negative", "-1"]),
    ("loader-generator-int", lambda m: list(m.utils.data.DataLoader(_rows(m), shuffle=True, generator=3)),
     TypeError, ["generator", "int"]),
    ("random-sampler-generator", lambda m: list(m.utils.data.RandomSampler(range(3), generator="seed")),
     TypeError, ["generator", "str"]),
    ("subset-sampler-generator", lambda m: list(m.utils.data.SubsetRandomSampler([1, 2], generator=3)),
     TypeError, ["generator", "int"]),
    ("random-split-generator", lambda m: m.utils.data.random_split(range(10), [5, 5], generator=3), TypeError,
     ["generator", "int"]),
    ("tensor-dataset-0d", lambda m: m.utils.data.TensorDataset(m.tensor(1.0)), IndexError,
     ["Dimension specified as 0", "position 0"]),
    ("tensor-dataset-empty-len", lambda m: len(m.utils.data.TensorDataset()), IndexError, ["tuple index"]),
    ("tensor-dataset-list", lambda m: m.utils.data.TensorDataset([1, 2, 3]), AttributeError,
     ["list", "position 0"]),
    ("tensor-dataset-numpy", lambda m: m.utils.data.TensorDataset(numpy.ones(3)), TypeError,
     ["ndarray", "position 0"]),
    ("sampler-floats", lambda m: list(m.utils.data.DataLoader(_rows(m), batch_size=2, sampler=[0.0, 1.5])),
     IndexError, ["1.5"]),
    ("sampler-strings", lambda m: list(m.utils.data.DataLoader(_rows(m), batch_size=2, sampler="ab")),
     TypeError, ["'a'"]),
    ("collate-int-none", lambda m: m.utils.data.default_collate([1, None]), RuntimeError, ["NoneType"]),
    ("collate-float-none", lambda m: m.utils.data.default_collate([1.5, None]), TypeError, ["NoneType"]),
    ("collate-int-str", lambda m: m.utils.data.default_collate([1, "a"]), TypeError, ["str", "'a'"]),
    ("collate-float-str", lambda m: m.utils.data.default_collate([1.5, "a"]), TypeError, ["str", "'a'"]),
    ("collate-int-list", lambda m: m.utils.data.default_collate([1, [2]]), TypeError, ["list"]),
)


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence for multidimensional indexing")  # PyTorch's
@pytest.mark.parametrize("call, error, fragments", MISUSE)
def test_data_misuse_raises_like_torch(call, error, fragments):
    raises_like_torch(call, error, *fragments)


@pytest.mark.parametrize("batch", [[1, 2.5], [True, 2], [True, 2.5], [1, numpy.float32(2.5)], [True, False],
                                   [1.5, True], [1, True], [2.5, 1]])
def test_collating_numbers_gives_torchs_dtype_and_values(batch):
    ours = mg.utils.data.default_collate(batch)
    theirs = reference(lambda torch: torch.utils.data.default_collate(batch))
    assert str(ours.dtype).rsplit(".", 1)[-1] == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()


def test_loader_takes_multiprocessing_context_by_position_as_torch():
    """PyTorch's positional order puts multiprocessing_context before generator."""
    torch = require_torch()
    generator = mg.Generator().manual_seed(0)
    loader = mg.utils.data.DataLoader(_rows(mg), 2, True, None, None, 0, None, False, False, 0, None, None,
                                      generator)
    assert loader.generator is generator and loader.multiprocessing_context is None
    reference = torch.utils.data.DataLoader(_rows(torch), 2, True, None, None, 0, None, False, False, 0, None,
                                            None, torch.Generator())
    assert isinstance(reference.generator, torch.Generator)
    assert sorted(value for batch in loader for value in batch[0].tolist()) == [0, 1, 2, 3]


def test_worker_options_are_kept_as_torch():
    torch = require_torch()
    ours = mg.utils.data.DataLoader(_rows(mg), num_workers=2, persistent_workers=True, in_order=False)
    theirs = torch.utils.data.DataLoader(_rows(torch), num_workers=2, persistent_workers=True, in_order=False)
    assert (ours.prefetch_factor, ours.in_order, ours.pin_memory_device) == \
        (theirs.prefetch_factor, theirs.in_order, theirs.pin_memory_device) == (2, False, "")
