"""topk among equal values picks the indices PyTorch's CPU kernel picks (issue 12, section 5), and its
gradient goes to them; sort and argsort stay stable."""

from __future__ import annotations

import numpy
import pytest
from _torch import require_torch

import minigrad as mg

from .helpers import to_numpy

nan = float("nan")


def test_issue_example():
    """Four equal values, k = 2: PyTorch returns indices [2, 3]."""
    torch = require_torch()
    values = [1.0, 1.0, 1.0, 1.0]
    assert torch.tensor(values).topk(2).indices.tolist() == [2, 3]
    assert to_numpy(mg.tensor(values).topk(2).indices).tolist() == [2, 3]


def _cases(count: int, seed: int):
    """Lines drawn from a few values (ties everywhere), sometimes with nans; random shape, dim and k."""
    rng = numpy.random.default_rng(seed)
    for _ in range(count):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(n) for n in rng.integers(1, 7, ndim))
        dim = int(rng.integers(-ndim, ndim))
        if rng.random() < 0.3:  # a long line, where PyTorch switches to partial_sort for small k
            shape = shape[:dim % ndim] + (int(rng.integers(64, 200)),) + shape[dim % ndim + 1:]
        values = rng.integers(0, int(rng.integers(1, 5)), shape).astype(numpy.float64)
        if rng.random() < 0.3:
            values[rng.random(shape) < 0.25] = nan
        k = int(rng.integers(0, shape[dim] + 1))
        yield values, k, dim, bool(rng.integers(2)), bool(rng.integers(2))


@pytest.mark.parametrize("seed", range(4))
def test_ties_pick_torchs_indices(seed):
    torch = require_torch()
    for values, k, dim, largest, sorted_ in _cases(60, seed):
        theirs = torch.tensor(values).topk(k, dim=dim, largest=largest, sorted=sorted_)
        ours = mg.tensor(values).topk(k, dim=dim, largest=largest, sorted=sorted_)
        what = f"topk(k={k}, dim={dim}, largest={largest}, sorted={sorted_}) of {values.tolist()}"
        numpy.testing.assert_array_equal(to_numpy(ours.indices), theirs.indices.numpy(), err_msg=what)
        numpy.testing.assert_array_equal(to_numpy(ours.values), theirs.values.numpy(), err_msg=what)


def test_integer_ties_and_the_gradient_follow_the_indices():
    torch = require_torch()
    values = numpy.array([[3, 1, 3, 2, 3, 3], [0, 0, 0, 0, 0, 0]])
    for lib in (torch, mg):
        picked = lib.tensor(values).topk(3, dim=1).indices
        floats = lib.tensor(values.astype(numpy.float64), requires_grad=True)
        floats.topk(3, dim=1).values.sum().backward()
        if lib is torch:
            expected, expected_grad = picked.tolist(), floats.grad.tolist()
        else:
            assert to_numpy(picked).tolist() == expected
            assert to_numpy(floats.grad).tolist() == expected_grad


def test_sort_and_argsort_stay_stable():
    values = mg.tensor([2.0, 1.0, 2.0, 1.0, 2.0])
    assert to_numpy(values.sort().indices).tolist() == [1, 3, 0, 2, 4]
    assert to_numpy(values.sort(descending=True).indices).tolist() == [0, 2, 4, 1, 3]
    assert to_numpy(values.argsort(stable=True)).tolist() == [1, 3, 0, 2, 4]
