"""Collation into tensors, TensorDataset, and the batched fetch path, checked against PyTorch's
``default_collate`` where it is installed."""

from __future__ import annotations

from collections import namedtuple

import numpy
import pytest
from _reference import plain, reference

import minigrad
from minigrad.data import DataLoader, SampleBatch, TensorDataset, default_collate, default_convert
from minigrad.random import Generator

Point = namedtuple("Point", "x y")


def _batches():
    rng = numpy.random.default_rng(0)
    arrays32 = [rng.normal(size=(2, 3)).astype(numpy.float32) for _ in range(4)]
    return {
        "ints": [3, 1, 4],
        "floats": [0.5, 1.5],
        "bools": [True, False, True],
        "numpy-arrays": arrays32,
        "numpy-float64": [rng.normal(size=3) for _ in range(2)],
        "numpy-scalars": [numpy.float32(1.5), numpy.float32(2.5)],
        "numpy-int-scalars": [numpy.int32(7), numpy.int32(8)],
        "tuples": [(arrays32[i], i, float(i)) for i in range(3)],
        "lists": [[i, 2 * i] for i in range(3)],
        "dicts": [{"image": arrays32[i], "label": i, "name": f"n{i}"} for i in range(3)],
        "namedtuples": [Point(i, 10 * i) for i in range(2)],
        "nested": [{"pair": (i, [float(i)])} for i in range(2)],
        "strings-in-tuples": [(i, f"file{i}.png") for i in range(2)],  # the strings stay a tuple
    }


def _to_plain(value):
    """A minigrad or torch result as nested Python: (dtype name, shape, values) at the leaves."""
    if hasattr(value, "numpy") and hasattr(value, "dtype") and not isinstance(value, numpy.generic):
        return (str(value.dtype).split(".")[-1], tuple(value.shape), value.numpy().tolist())
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, *map(_to_plain, value))
    if isinstance(value, dict):
        return {key: _to_plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return ["list", *map(_to_plain, value)]
    return value


@pytest.mark.parametrize("name", list(_batches()))
def test_default_collate_matches_pytorch(name):
    batch = _batches()[name]
    theirs = reference(lambda torch: _to_plain(torch.utils.data.default_collate(_batches()[name])))
    assert plain(_to_plain(default_collate(batch))) == theirs


def test_collate_of_tuples_gives_batched_tensors_with_pytorch_dtypes():
    images = [numpy.full((1, 2, 2), i, dtype=numpy.float32) for i in range(3)]
    x, label, weight = default_collate([(images[i], i, i / 2) for i in range(3)])
    assert x.shape == (3, 1, 2, 2) and x.dtype is minigrad.float32
    numpy.testing.assert_array_equal(x.numpy()[:, 0, 0, 0], [0, 1, 2])
    assert label.dtype is minigrad.int64 and label.tolist() == [0, 1, 2]
    assert weight.dtype is minigrad.float64 and weight.tolist() == [0.0, 0.5, 1.0]


def test_collate_stacks_tensors_and_keeps_strings():
    samples = [{"t": minigrad.tensor([1.0, 2.0]), "s": "a"}, {"t": minigrad.tensor([3.0, 4.0]), "s": "b"}]
    out = default_collate(samples)
    assert out["t"].tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert out["s"] == ["a", "b"]


def test_collate_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(RuntimeError, match=r"equal size.*\(2,\).*\(3,\)"):
        default_collate([numpy.zeros(2), numpy.zeros(3)])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([numpy.array(["a"]), numpy.array(["b"])])


def test_default_convert_turns_arrays_into_tensors_without_batching():
    out = default_convert({"a": numpy.arange(3), "b": (numpy.float32(2), "text")})
    assert out["a"].tolist() == [0, 1, 2] and out["a"].dtype is minigrad.int64
    assert out["b"][0].dtype is minigrad.float32 and out["b"][1] == "text"


# --- TensorDataset and the batched fetch --------------------------------------------------------

def _dataset(n=10):
    x = minigrad.tensor(numpy.arange(n * 3, dtype=numpy.float32).reshape(n, 3))
    y = minigrad.tensor(numpy.arange(n) % 3)
    return TensorDataset(x, y)


def test_tensor_dataset_rows():
    dataset = _dataset()
    assert len(dataset) == 10
    row_x, row_y = dataset[4]
    assert row_x.tolist() == [12.0, 13.0, 14.0] and row_y.item() == 1


def test_tensor_dataset_rejects_mismatched_or_non_tensors():
    with pytest.raises(AssertionError, match=r"Size mismatch between tensors.*\[3, 4\]"):
        TensorDataset(minigrad.zeros(3), minigrad.zeros(4))
    with pytest.raises(TypeError, match="expects tensors, got ndarray at position 1"):
        TensorDataset(minigrad.zeros(3), numpy.zeros(3))


def test_getitems_reads_as_samples_and_collates_in_one_step():
    dataset = _dataset()
    fetched = dataset.__getitems__([7, 2, 9])
    assert isinstance(fetched, SampleBatch) and len(fetched) == 3
    assert fetched[1][0].tolist() == [6.0, 7.0, 8.0]  # reads like dataset[2]
    fast_x, fast_y = default_collate(fetched)
    slow_x, slow_y = default_collate(list(fetched))  # the one-by-one path
    assert fast_x.tolist() == slow_x.tolist() == [[21.0, 22.0, 23.0], [6.0, 7.0, 8.0], [27.0, 28.0, 29.0]]
    assert fast_y.tolist() == slow_y.tolist() == [1, 2, 0]
    assert fast_x.dtype is slow_x.dtype is minigrad.float32
    assert fast_y.dtype is slow_y.dtype is minigrad.int64


def test_getitems_checks_bounds():
    dataset = _dataset()
    with pytest.raises(IndexError, match="index 10 is out of range for a dataset of size 10"):
        dataset.__getitems__([1, 10])


def test_loader_over_tensor_dataset_yields_every_row_once_per_epoch():
    dataset = _dataset(10)
    loader = DataLoader(dataset, batch_size=4, shuffle=True, generator=Generator().manual_seed(0))
    shapes = [(bx.shape, by.shape) for bx, by in loader]
    assert shapes == [((4, 3), (4,)), ((4, 3), (4,)), ((2, 3), (2,))]
    rows = numpy.concatenate([bx.numpy() for bx, _ in loader])
    numpy.testing.assert_array_equal(numpy.sort(rows[:, 0]), numpy.arange(0, 30, 3))


@pytest.fixture
def cuda_standin():
    """The strict CuPy stand-in serving 'cuda' for one test (see tests/standin_cupy.py)."""
    import standin_cupy

    standin_cupy.install()
    try:
        yield
    finally:
        standin_cupy.uninstall()


def test_loader_keeps_device_tensors_on_their_device(cuda_standin):
    x = minigrad.arange(12.0).reshape(6, 2).to("cuda")
    y = minigrad.arange(6).to("cuda")
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True, generator=Generator().manual_seed(0))
    seen = []
    for batch_x, batch_y in loader:
        assert batch_x.device.type == batch_y.device.type == "cuda"
        seen += batch_y.tolist()
        assert (batch_x.cpu().numpy()[:, 0] == 2 * numpy.array(batch_y.tolist())).all()
    assert sorted(seen) == list(range(6))
    stacked = default_collate([(x[0], 1), (x[1], 2)])
    assert stacked[0].device.type == "cuda" and stacked[0].tolist() == [[0.0, 1.0], [2.0, 3.0]]


def test_loader_with_custom_collate_sees_samples():
    dataset = _dataset(5)
    loader = DataLoader(dataset, batch_size=2, collate_fn=lambda samples: [int(s[1].item()) for s in samples])
    assert list(loader) == [[0, 1], [2, 0], [1]]


def test_utils_data_is_the_same_package():
    from minigrad.utils.data import DataLoader as Alias
    from minigrad.utils.data import TensorDataset as AliasDataset

    assert Alias is DataLoader and AliasDataset is TensorDataset
