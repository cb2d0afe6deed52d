"""Regression tests from an audit of ``mg.save``/``mg.load`` against PyTorch.

Pinned here: several objects saved one after another into one file object load back in
order, as with ``torch.save``/``torch.load`` (``mg.load`` used to return the last of them
for every call, silently); and saving to a directory's path raises a RuntimeError naming
that path (it used to fail late with an OSError naming the temporary file).
"""

import io
import os

import numpy
import pytest
from _torch import require_torch

import minigrad as mg

OBJECTS = [mg.arange(3), {"w": mg.ones(2, 2), "step": 4}, [1.5, "x", None]]


def _assert_same(loaded, expected):
    if isinstance(expected, mg.Tensor):
        assert loaded.dtype == expected.dtype
        numpy.testing.assert_array_equal(loaded.array, expected.array)
    elif isinstance(expected, dict):
        assert loaded.keys() == expected.keys()
        for key in expected:
            _assert_same(loaded[key], expected[key])
    else:
        assert loaded == expected


@pytest.mark.parametrize("prefix", [b"", b"MAGIC"])
def test_objects_saved_one_after_another_load_in_order(prefix):
    stream = io.BytesIO(prefix)
    stream.seek(len(prefix))
    for obj in OBJECTS:
        mg.save(obj, stream)
    stream.seek(len(prefix))
    for expected in OBJECTS:
        _assert_same(mg.load(stream), expected)
    assert stream.tell() == len(stream.getvalue())  # each load leaves the stream after its object


def test_objects_saved_one_after_another_load_in_order_as_in_torch():
    torch = require_torch()
    stream = io.BytesIO()
    torch.save(torch.arange(3), stream)
    torch.save(torch.ones(2), stream)
    stream.seek(0)
    assert torch.load(stream).tolist() == [0, 1, 2]  # the reference behaviour
    ours = io.BytesIO()
    mg.save(mg.arange(3), ours)
    mg.save(mg.ones(2), ours)
    ours.seek(0)
    assert mg.load(ours).tolist() == [0, 1, 2]
    assert mg.load(ours).tolist() == [1.0, 1.0]


def test_two_objects_in_one_file_on_disk_load_in_order(tmp_path):
    path = tmp_path / "two.mg"
    with open(path, "wb") as f:
        mg.save(mg.zeros(2), f)
        mg.save(mg.full((3,), 7.0), f)
    with open(path, "rb") as f:
        assert mg.load(f).tolist() == [0.0, 0.0]
        assert mg.load(f).tolist() == [7.0, 7.0, 7.0]


def test_a_lone_object_still_loads_and_the_stream_ends_after_it():
    stream = io.BytesIO()
    mg.save({"a": mg.tensor([1.0, 2.0])}, stream)
    stream.seek(0)
    assert mg.load(stream)["a"].tolist() == [1.0, 2.0]
    assert stream.tell() == len(stream.getvalue())


def test_a_truncated_second_object_is_reported_and_the_first_still_loads():
    stream = io.BytesIO()
    mg.save(mg.arange(3), stream)
    first_end = stream.tell()
    mg.save(mg.ones(4), stream)
    data = stream.getvalue()
    broken = io.BytesIO(data[: first_end + (len(data) - first_end) // 2])
    assert mg.load(broken).tolist() == [0, 1, 2]
    with pytest.raises(RuntimeError, match="corrupt or truncated"):
        mg.load(broken)


def test_saving_to_a_directory_raises_runtime_error_naming_it(tmp_path):
    torch = require_torch()
    with pytest.raises(RuntimeError) as theirs:
        torch.save(torch.ones(1), str(tmp_path))
    assert "directory" in str(theirs.value).lower()
    with pytest.raises(RuntimeError, match=r"it is a directory") as ours:
        mg.save(mg.ones(1), tmp_path)
    assert str(tmp_path) in str(ours.value)
    assert not [name for name in os.listdir(tmp_path.parent) if name.startswith(f".{tmp_path.name}.")]
