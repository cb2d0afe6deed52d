"""The recorded PyTorch answers (``tests/_reference.py``): stored faithfully, compact, and from the
PyTorch the suite pins. (Every ``reference()`` call also checks its own record against live PyTorch.)"""

from __future__ import annotations

import math

import _reference
import numpy
import pytest
from _reference import RECORDS, assert_same, plain, record_key
from _torch import require_torch


def _round_trip(value):
    pool: dict = {}
    encoded = _reference._encode(plain(value), pool)
    buffers = {dtype: numpy.concatenate(arrays) for dtype, arrays in pool.items()}
    return _reference._decode(encoded, buffers)


def test_answers_survive_the_round_trip_exactly() -> None:
    rng = numpy.random.default_rng(0)
    value = {"out": rng.standard_normal((2, 3)), "f32": rng.standard_normal(4).astype(numpy.float32),
             "ints": numpy.arange(6).reshape(3, 2), "flags": numpy.array([True, False]),
             "empty": numpy.zeros((0, 3)), "scalar": numpy.array(2.5), "nan": math.nan, "inf": -math.inf,
             "none": None, "name": "ReluBackward0", "pair": (1, [2.0, "x"]), "same": rng.standard_normal(3)}
    back = _round_trip(value)
    assert_same(back, plain(value))
    assert back["f32"].dtype == numpy.float32 and back["ints"].dtype == numpy.int64
    assert back["scalar"].shape == () and back["empty"].shape == (0, 3)
    assert math.isnan(back["nan"]) and back["inf"] == -math.inf and back["pair"] == [1, [2.0, "x"]]


@pytest.mark.parametrize("change", [
    lambda v: {**v, "out": v["out"] * (1 + 1e-6)}, lambda v: {**v, "out": v["out"].astype(numpy.float32)},
    lambda v: {**v, "name": "other"}, lambda v: {**v, "extra": 1}, lambda v: {**v, "ints": v["ints"] + 1},
])
def test_a_changed_answer_is_told_apart(change) -> None:
    value = {"out": numpy.linspace(0.0, 1.0, 5), "name": "MulBackward0", "ints": numpy.arange(3)}
    with pytest.raises(AssertionError):
        assert_same(change(value), value)


def test_keys_leave_the_device_out() -> None:
    ops, layers = "tests/core/test_ops.py::test_op", "tests/nn/test_layers.py::test_linear"
    assert record_key(f"{ops}[standin-cuda-add]") == record_key(f"{ops}[cpu-add]") == f"{ops}[add]"
    assert record_key(f"{ops}[cpu]") == ops
    assert record_key(f"{layers}[float64]") == f"{layers}[float64]"


@pytest.fixture
def records_written() -> None:
    if _reference.recording():
        pytest.skip("the records are being rewritten in this run")


@pytest.mark.usefixtures("records_written")
def test_the_records_are_compact_and_name_their_versions() -> None:
    files = sorted(RECORDS.rglob("*.npz"))
    assert files, f"no records in {RECORDS}: run python tests/reference/record.py"
    assert sum(f.stat().st_size for f in files) < 5_000_000
    for path in files:
        module = "tests/" + path.relative_to(RECORDS).with_suffix(".py").as_posix()
        meta = _reference.metadata(module)
        assert set(meta) == {"torch", "numpy"}, path


@pytest.mark.usefixtures("records_written")
def test_the_records_were_made_with_the_installed_pytorch() -> None:
    """With PyTorch (CI): the records come from the same version, so a version bump re-records them."""
    torch = require_torch()
    for path in sorted(RECORDS.rglob("*.npz")):
        module = "tests/" + path.relative_to(RECORDS).with_suffix(".py").as_posix()
        assert _reference.metadata(module)["torch"] == torch.__version__, \
            f"{path} was recorded with another PyTorch: run python tests/reference/record.py"
