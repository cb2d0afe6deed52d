"""Per-sample access (issue 29, item 5): ``x[i]`` for an int ``i`` on a tensor that records nothing
takes a short path (``ops/indexing.py``'s ``select_row``), and ``default_collate`` stacks such
samples with one array stack. Both must give what the general path gives: the same values, a
view sharing storage and version counter, PyTorch's errors, and the same view record (so a later
in-place change is recorded, or refused, as before). Timings are a benchmark, not a test:
``python benchmarks/indexing.py``.
"""

import pytest
from _torch import raises_like_torch

import minigrad as mg
from minigrad.data.collate import default_collate
from minigrad.ops import indexing

from .helpers import to_numpy


def _general(a, i):
    return indexing.getitem(a, (i,))  # a tuple key takes the general path


def _record(t):
    view = t._view
    remade = view is not None and mg.Tensor(view.fn(view.base.array)).tolist()
    return (t.shape, t.dtype, to_numpy(t).tolist(), t._base is not None and id(t._base), t.requires_grad,
            t.grad_fn, view is not None and (id(view.base), view.creation, remade))


@pytest.mark.parametrize("make", [
    lambda: mg.arange(12.0).view(3, 4),
    lambda: mg.arange(5),
    lambda: mg.arange(24.0).view(4, 3, 2)[1:],   # a view of a view
    lambda: mg.arange(12.0).view(3, 4).t(),
    lambda: mg.arange(12.0).view(3, 4).detach(),
], ids=["matrix", "vector", "view-of-view", "transposed", "detached"])
@pytest.mark.parametrize("i", [0, 1, -1])
def test_the_short_path_gives_what_the_general_path_gives(make, i):
    a = make()
    assert _record(a[i]) == _record(_general(a, i))
    with mg.no_grad():
        assert _record(a[i]) == _record(_general(a, i))


def test_a_sample_shares_storage_and_version_with_its_dataset():
    x = mg.zeros(3, 4)
    sample = x[1]
    sample[2] = 5.0
    assert to_numpy(x)[1, 2] == 5.0 and x._version == sample._version == 1
    x.add_(1.0)
    assert to_numpy(sample).tolist() == [1.0, 1.0, 6.0, 1.0] and sample._version == 2


def test_out_of_range_and_0d_raise_as_pytorch():
    raises_like_torch(lambda m: m.zeros(3, 4)[3], IndexError, "index 3 is out of bounds for dimension 0",
                      "size 3")
    raises_like_torch(lambda m: m.zeros(3, 4)[-4], IndexError, "index -4", "size 3")
    raises_like_torch(lambda m: m.tensor(1.0)[0], IndexError, "dimension 0")


def test_a_tensor_in_the_graph_still_takes_the_general_path():
    x = mg.ones(3, 2, requires_grad=True)
    assert x[1].grad_fn.name() == "SelectBackward0"
    base = mg.zeros(3, 2)
    row = base[0]
    base.copy_(x)  # the base now has a history: its earlier view catches up with it
    (row * 2).sum().backward()
    assert to_numpy(x.grad).tolist() == [[2.0, 2.0], [0.0, 0.0], [0.0, 0.0]]


def test_a_no_grad_sample_changed_in_place_in_the_graph_is_refused_as_before():
    base = mg.zeros(3, 2) * mg.ones(1, requires_grad=True)
    with mg.no_grad():
        row = base[0]
    with pytest.raises(RuntimeError, match="no_grad"):
        row.mul_(mg.ones(2, requires_grad=True))


def test_collate_stacks_samples_and_falls_back_for_the_rest():
    x, y = mg.arange(12.0).view(4, 3), mg.arange(4)
    images, labels = default_collate([(x[i], y[i]) for i in range(4)])
    assert to_numpy(images).tolist() == to_numpy(x).tolist() and to_numpy(labels).tolist() == [0, 1, 2, 3]
    assert images._base is None and not images.requires_grad
    w = mg.ones(3, requires_grad=True)
    stacked = default_collate([x[0] * w, x[1] * w])  # samples in the graph keep it
    assert stacked.grad_fn.name() == "StackBackward0"
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        default_collate([x[0], y])
