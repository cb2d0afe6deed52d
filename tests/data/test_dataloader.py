"""DataLoader, samplers and splits: which samples come out, in which batches, in which order.

These use plain Python datasets and ``collate_fn=list`` so they test the batching alone;
collation into tensors is tested in test_collate.py.
"""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minigrad.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    random_split,
)
from minigrad.random import Generator, manual_seed


def batches(loader) -> list[list]:
    return [list(batch) for batch in loader]


def flat(loader) -> list:
    return [sample for batch in loader for sample in batch]


@given(n=st.integers(1, 40), batch_size=st.integers(1, 12), drop_last=st.booleans())
def test_batches_cover_the_dataset_in_order(n, batch_size, drop_last):
    loader = DataLoader(range(n), batch_size=batch_size, drop_last=drop_last, collate_fn=list)
    full, rest = divmod(n, batch_size)
    expected_len = full if drop_last or rest == 0 else full + 1
    out = batches(loader)
    assert len(loader) == expected_len == len(out)
    assert all(len(batch) == batch_size for batch in out[:full])
    kept = full * batch_size if drop_last else n
    assert flat(out) == list(range(kept))


def test_len_matches_pytorch_examples():
    assert len(DataLoader(range(10), batch_size=3)) == 4
    assert len(DataLoader(range(10), batch_size=3, drop_last=True)) == 3
    assert len(DataLoader(range(10), batch_size=5, drop_last=True)) == 2
    assert len(DataLoader(range(2), batch_size=5, drop_last=True)) == 0
    assert batches(DataLoader(range(2), batch_size=5, drop_last=True, collate_fn=list)) == []


def test_last_partial_batch_is_kept_or_dropped():
    assert batches(DataLoader(range(7), batch_size=3, collate_fn=list)) == [[0, 1, 2], [3, 4, 5], [6]]
    dropped = DataLoader(range(7), batch_size=3, drop_last=True, collate_fn=list)
    assert batches(dropped) == [[0, 1, 2], [3, 4, 5]]


def test_shuffle_with_a_seeded_generator_is_reproducible_and_a_permutation():
    first = flat(DataLoader(range(50), batch_size=8, shuffle=True, generator=Generator().manual_seed(3),
                            collate_fn=list))
    second = flat(DataLoader(range(50), batch_size=8, shuffle=True, generator=Generator().manual_seed(3),
                             collate_fn=list))
    assert first == second
    assert sorted(first) == list(range(50))
    assert first != list(range(50))
    # The generator's documented source: its PCG64 stream, one permutation per pass.
    expected = numpy.random.Generator(numpy.random.PCG64(3)).permutation(50).tolist()
    assert first == expected


def test_different_seeds_give_different_orders():
    orders = [flat(DataLoader(range(50), shuffle=True, generator=Generator().manual_seed(seed),
                              collate_fn=list)) for seed in (0, 1)]
    assert orders[0] != orders[1]


def test_each_pass_reshuffles():
    loader = DataLoader(range(50), batch_size=10, shuffle=True, generator=Generator().manual_seed(0),
                        collate_fn=list)
    epoch1, epoch2 = flat(loader), flat(loader)
    assert sorted(epoch1) == sorted(epoch2) == list(range(50))
    assert epoch1 != epoch2


def test_shuffle_without_generator_follows_manual_seed():
    loader = DataLoader(range(30), batch_size=4, shuffle=True, collate_fn=list)
    manual_seed(7)
    first = flat(loader)
    manual_seed(7)
    assert flat(loader) == first
    assert sorted(first) == list(range(30))


def test_workers_load_in_the_main_process_with_identical_results():
    plain = DataLoader(range(20), batch_size=6, shuffle=True, generator=Generator().manual_seed(1),
                       collate_fn=list)
    workers = DataLoader(range(20), batch_size=6, shuffle=True, generator=Generator().manual_seed(1),
                         collate_fn=list, num_workers=2, pin_memory=True, persistent_workers=True)
    assert workers.num_workers == 2
    assert batches(plain) == batches(workers)


def test_batch_size_none_yields_single_samples():
    loader = DataLoader(["a", "b", "c"], batch_size=None)
    assert list(loader) == ["a", "b", "c"]
    assert len(loader) == 3


def test_explicit_sampler_and_batch_sampler():
    assert flat(DataLoader(range(5), sampler=[4, 0, 2], batch_size=2, collate_fn=list)) == [4, 0, 2]
    loader = DataLoader(range(10), batch_sampler=[[9, 8], [1]], collate_fn=list)
    assert batches(loader) == [[9, 8], [1]]


class RecordingDataset(Dataset):
    """Doubles its index; records whether samples were fetched one by one or in batches."""

    def __init__(self, n: int, batched: bool):
        self.n, self.calls = n, []
        if batched:
            self.__getitems__ = self._getitems

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> int:
        self.calls.append(index)
        return 2 * index

    def _getitems(self, indices: list[int]) -> list[int]:
        self.calls.append(list(indices))
        return [2 * index for index in indices]


@pytest.mark.parametrize("batched", [False, True])
def test_getitems_fetches_a_whole_batch_in_one_call(batched):
    dataset = RecordingDataset(5, batched)
    assert batches(DataLoader(dataset, batch_size=2, collate_fn=list)) == [[0, 2], [4, 6], [8]]
    assert dataset.calls == ([[0, 1], [2, 3], [4]] if batched else [0, 1, 2, 3, 4])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"batch_size": 0}, "batch_size should be a positive integer value"),
    ({"batch_size": -2}, "batch_size should be a positive integer value"),
    ({"num_workers": -1}, "num_workers option should be non-negative"),
    ({"shuffle": True, "sampler": [0, 1]}, "sampler option is mutually exclusive with shuffle"),
    ({"batch_sampler": [[0]], "batch_size": 2}, "batch_sampler option is mutually exclusive"),
    ({"batch_sampler": [[0]], "drop_last": True}, "batch_sampler option is mutually exclusive"),
    ({"batch_size": None, "drop_last": True}, "mutually exclusive with drop_last"),
    ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
])
def test_misuse_raises_value_error_like_pytorch(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DataLoader(range(4), **kwargs)


# --- samplers ------------------------------------------------------------------------------

def test_sequential_and_batch_sampler():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    assert list(BatchSampler(SequentialSampler(range(5)), 2, drop_last=False)) == [[0, 1], [2, 3], [4]]
    assert len(BatchSampler(range(5), 2, drop_last=True)) == 2
    with pytest.raises(ValueError, match="drop_last should be a boolean"):
        BatchSampler(range(5), 2, drop_last=1)


def test_random_sampler_with_replacement_and_more_samples():
    sampler = RandomSampler(range(4), replacement=True, num_samples=100, generator=Generator().manual_seed(0))
    drawn = list(sampler)
    assert len(drawn) == len(sampler) == 100
    assert set(drawn) == {0, 1, 2, 3}  # 100 draws from 4 values: all appear (chance of not: ~1e-12)
    longer = list(RandomSampler(range(4), num_samples=10, generator=Generator().manual_seed(0)))
    assert len(longer) == 10
    assert sorted(longer[:4]) == sorted(longer[4:8]) == [0, 1, 2, 3]  # whole permutations first


def test_random_sampler_rejects_empty_dataset_and_bad_arguments():
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler([])
    with pytest.raises(TypeError, match="replacement should be a boolean"):
        RandomSampler(range(3), replacement=1)


def test_subset_random_sampler_permutes_the_given_indices():
    drawn = list(SubsetRandomSampler([10, 20, 30, 40], generator=Generator().manual_seed(0)))
    assert sorted(drawn) == [10, 20, 30, 40]


# --- Subset and random_split ----------------------------------------------------------------

def test_subset_maps_indices():
    subset = Subset("abcdef", [5, 0, 3])
    assert len(subset) == 3
    assert [subset[i] for i in range(3)] == ["f", "a", "d"]
    assert batches(DataLoader(subset, batch_size=2, collate_fn=list)) == [["f", "a"], ["d"]]


def test_subset_passes_batches_to_the_datasets_getitems():
    dataset = RecordingDataset(10, batched=True)
    subset = Subset(dataset, [7, 1, 4])
    assert flat(DataLoader(subset, batch_size=3, collate_fn=list)) == [14, 2, 8]
    assert dataset.calls == [[7, 1, 4]]  # one call, already mapped to the dataset's indices


def test_random_split_lengths_are_disjoint_and_cover_everything():
    parts = random_split(range(10), [3, 7], generator=Generator().manual_seed(0))
    assert [len(part) for part in parts] == [3, 7]
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(10))


def test_random_split_fractions_like_pytorch():
    assert [len(part) for part in random_split(range(10), [0.3, 0.7])] == [3, 7]
    assert [len(part) for part in random_split(range(11), [0.5, 0.5])] == [6, 5]


def test_random_split_is_reproducible():
    first = [list(part) for part in random_split(range(20), [5, 15], generator=Generator().manual_seed(4))]
    again = [list(part) for part in random_split(range(20), [5, 15], generator=Generator().manual_seed(4))]
    assert first == again


def test_random_split_rejects_wrong_total():
    with pytest.raises(ValueError, match="does not equal the length of the input dataset"):
        random_split(range(10), [3, 3])
