"""``RandomSampler(ds, replacement=True, num_samples=int(1e10))`` — the "infinite" training loader
of makemore.py — draws lazily instead of allocating all its indices."""

from __future__ import annotations

import minigrad as mg


def test_a_huge_sample_with_replacement_is_drawn_lazily():
    dataset = mg.data.TensorDataset(mg.arange(10))
    sampler = mg.utils.data.RandomSampler(dataset, replacement=True, num_samples=int(1e10),
                                          generator=mg.Generator().manual_seed(0))
    loader = mg.utils.data.DataLoader(dataset, batch_size=4, sampler=sampler, pin_memory=True, num_workers=0)
    assert len(loader) == 2_500_000_000
    batches = iter(loader)
    drawn = [next(batches)[0] for _ in range(50)]
    values = mg.cat(drawn)
    assert values.shape == (200,) and int(values.min()) >= 0 and int(values.max()) <= 9
    assert len(set(values.tolist())) == 10  # 200 draws from 10: every index shows up


def test_draws_with_replacement_are_seeded_and_sized():
    dataset = list(range(7))
    first = list(mg.utils.data.RandomSampler(dataset, replacement=True, num_samples=75,
                                             generator=mg.Generator().manual_seed(3)))
    again = list(mg.utils.data.RandomSampler(dataset, replacement=True, num_samples=75,
                                             generator=mg.Generator().manual_seed(3)))
    assert first == again and len(first) == 75 and set(first) <= set(dataset)
