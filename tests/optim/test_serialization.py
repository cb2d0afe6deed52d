"""mg.save / mg.load: every supported type round-trips, and writing to a path is atomic.

Damaged files, foreign files and ``map_location`` are tested in test_serialization_errors.py.
"""

import io
import math
import os
import zipfile
from collections import OrderedDict

import numpy
import pytest

import minigrad as mg

# --- comparing what went in with what came out ----------------------------------------------------


def assert_same(loaded, original, where="obj"):
    """Equal values of the same types, all the way down (nan equals nan; -0.0 is not 0.0)."""
    if isinstance(original, mg.Tensor):
        assert type(loaded) is mg.Tensor, where
        assert loaded.dtype is original.dtype and loaded.shape == original.shape, where
        assert loaded.device == original.device, where
        assert loaded.requires_grad == original.requires_grad, where
        numpy.testing.assert_array_equal(mg.backend.to_host(loaded.array), mg.backend.to_host(original.array))
        assert loaded.array is not original.array
        return
    assert type(loaded) is type(original), f"{where}: {type(loaded)} is not {type(original)}"
    if isinstance(original, numpy.ndarray):
        assert loaded.dtype == original.dtype and loaded.shape == original.shape, where
        numpy.testing.assert_array_equal(loaded, original)
    elif isinstance(original, (float, numpy.floating)):
        assert (math.isnan(loaded) and math.isnan(original)) or (
            loaded == original and math.copysign(1, loaded) == math.copysign(1, original)), where
    elif isinstance(original, dict):
        assert list(loaded) == list(original), where  # same keys in the same order
        for key in original:
            assert type(next(k for k in loaded if k == key)) is type(key)
            assert_same(loaded[key], original[key], f"{where}[{key!r}]")
    elif isinstance(original, (list, tuple)):
        assert len(loaded) == len(original), where
        for i, (a, b) in enumerate(zip(loaded, original)):
            assert_same(a, b, f"{where}[{i}]")
    else:
        assert loaded == original, where


def round_trip(obj, tmp_path):
    path = tmp_path / "object.mg"
    mg.save(obj, path)
    return mg.load(path)


# --- every supported type -------------------------------------------------------------------------

RNG = numpy.random.default_rng(7)
VALUES = {
    "none": None, "true": True, "false": False, "zero": 0, "negative": -7, "huge-int": 2**200 + 1,
    "huge-negative": -(3**90), "float": 1.5, "negative-zero": -0.0, "subnormal": 5e-324,
    "max-float": 1.7976931348623157e308, "third": 1 / 3, "nan": float("nan"), "inf": float("inf"),
    "-inf": float("-inf"), "empty-str": "", "unicode": "héllo ✓ 日本", "control-chars": "a\x00b\n\"c\"\\",
    "lone-surrogate": "\ud800",
    "list": [1, "two", 3.0, [4, [5]]], "tuple": (1, (2.5, None), ()), "empty-list": [], "empty-dict": {},
    "nested": {"a": [{"b": (1, {"c": None})}], "d": {}},
    "int-keys": {2: "b", 0: "a", -1: "z"}, "scalar-keys": {None: 1, True: 2, 2.5: 3, "s": 4},
    "ordered": OrderedDict([("z", 1), ("a", 2), ("m", 3)]), "insertion-order": {"z": 1, "a": 2, "m": 3},
    "pcg64-state": numpy.random.Generator(numpy.random.PCG64(12345)).bit_generator.state,
    "numpy-scalars": [numpy.float32(1.25), numpy.int64(-3), numpy.bool_(True), numpy.float64("nan"),
                      numpy.uint8(200)],
    "dtype-and-device": [mg.float64, mg.int64, mg.bool, mg.device("cpu")],
}


@pytest.mark.parametrize("value", VALUES.values(), ids=VALUES.keys())
def test_python_values_round_trip(value, tmp_path):
    assert_same(round_trip(value, tmp_path), value)


ARRAYS = {
    **{name: RNG.standard_normal((3, 4)).astype(name) for name in ["float16", "float32", "float64"]},
    **{name: RNG.integers(-100, 100, (2, 5)).astype(name)
       for name in ["int8", "int16", "int32", "int64", "uint8"]},
    "bool": RNG.random((4, 2)) > 0.5, "complex": RNG.standard_normal(3) + 1j, "zero-d": numpy.array(3.5),
    "empty": numpy.zeros((0, 3), numpy.float32), "fortran": numpy.asfortranarray(RNG.standard_normal((3, 5))),
    "strided": RNG.standard_normal((6, 8))[::2, 1::3], "big-endian": numpy.arange(6, dtype=">i4"),
    "strings": numpy.array(["ab", "cde"]),
}


@pytest.mark.parametrize("array", ARRAYS.values(), ids=ARRAYS.keys())
def test_numpy_arrays_round_trip(array, tmp_path):
    loaded = round_trip(array, tmp_path)
    assert_same(loaded, array)
    assert loaded.flags.writeable


TENSORS = {
    "float32-grad": mg.tensor(RNG.standard_normal((2, 3)).astype(numpy.float32), requires_grad=True),
    "float64": mg.tensor(RNG.standard_normal(5)),
    "float16": mg.tensor(RNG.standard_normal(4).astype(numpy.float16)),
    "int64": mg.tensor([[1, -2], [3, 2**40]]), "uint8": mg.tensor(numpy.arange(4, dtype=numpy.uint8)),
    "bool": mg.tensor([True, False]), "zero-d": mg.tensor(2.5, requires_grad=True), "empty": mg.zeros(0, 4),
    "transposed-view": mg.tensor(RNG.standard_normal((3, 4))).t(),
}


@pytest.mark.parametrize("t", TENSORS.values(), ids=TENSORS.keys())
def test_tensors_round_trip(t, tmp_path):
    loaded = round_trip(t, tmp_path)
    assert_same(loaded, t)
    assert loaded.is_leaf and loaded.grad is None
    if loaded.dtype.is_floating_point:
        with mg.no_grad():
            loaded.mul_(2)  # the loaded array is writable and its own
        numpy.testing.assert_array_equal(loaded.array, 2 * t.array)


def test_all_values_together_in_one_file(tmp_path):
    everything = {"values": VALUES, "arrays": ARRAYS, "tensors": TENSORS}
    assert_same(round_trip(everything, tmp_path), everything)


def test_parameters_load_as_tensors_that_require_grad(tmp_path):
    from minigrad.nn import Parameter

    p = Parameter(mg.tensor([1.0, 2.0]))
    loaded = round_trip({"weight": p}, tmp_path)["weight"]
    assert type(loaded) is mg.Tensor and loaded.requires_grad
    numpy.testing.assert_array_equal(loaded.array, p.array)


def test_a_tensor_stored_twice_loads_as_one_tensor(tmp_path):
    t, twin = mg.tensor([1.0, 2.0]), mg.tensor([1.0, 2.0])
    loaded = round_trip({"a": t, "b": [t, twin]}, tmp_path)
    assert loaded["a"] is loaded["b"][0]
    assert loaded["b"][1] is not loaded["a"]
    with zipfile.ZipFile(tmp_path / "object.mg") as archive:
        assert sorted(archive.namelist()) == ["arrays/0.npy", "arrays/1.npy", "minigrad.json"]


def test_a_model_like_checkpoint_round_trips(tmp_path):
    model = OrderedDict([("fc1.weight", mg.randn(4, 3)), ("fc1.bias", mg.zeros(4)),
                         ("bn.num_batches", mg.tensor(7))])
    p = mg.tensor(numpy.ones(3, numpy.float32), requires_grad=True)
    optimizer = mg.optim.Adam([p], lr=0.01)
    p.grad = mg.ones(3)
    optimizer.step()
    checkpoint = {"model": model, "optimizer": optimizer.state_dict(), "epoch": 3, "loss": 0.25,
                  "rng": mg.get_rng_state(), "history": [(1, 0.9), (2, 0.5)]}
    loaded = round_trip(checkpoint, tmp_path)
    assert_same(loaded["model"], model)
    assert_same({k: v for k, v in loaded.items() if k != "optimizer"}, {k: v for k, v in checkpoint.items()
                                                                          if k != "optimizer"})
    assert loaded["optimizer"]["param_groups"] == checkpoint["optimizer"]["param_groups"]
    assert_same(loaded["optimizer"]["state"], checkpoint["optimizer"]["state"])
    mg.set_rng_state(loaded["rng"])  # the generator's state, huge ints and all, restores exactly
    first = mg.randn(5).array
    mg.set_rng_state(checkpoint["rng"])
    numpy.testing.assert_array_equal(first, mg.randn(5).array)


def test_binary_file_objects_and_pipes(tmp_path):
    obj = {"t": mg.arange(5), "s": "x"}
    buffer = io.BytesIO()
    mg.save(obj, buffer)
    buffer.seek(0)
    assert_same(mg.load(buffer), obj)

    with open(tmp_path / "f.mg", "wb") as f:
        mg.save(obj, f)
    with open(tmp_path / "f.mg", "rb") as f:
        assert_same(mg.load(f), obj)

    class Pipe(io.RawIOBase):  # a stream that can neither seek nor tell, like a socket
        def __init__(self, data=b""):
            self.data, self.written = io.BytesIO(data), bytearray()

        def readable(self):
            return True

        def writable(self):
            return True

        def readinto(self, b):
            chunk = self.data.read(len(b))
            b[:len(chunk)] = chunk
            return len(chunk)

        def write(self, b):
            self.written += b
            return len(b)

    pipe = Pipe()
    mg.save(obj, pipe)
    assert_same(mg.load(Pipe(bytes(pipe.written))), obj)


def test_paths_may_be_str_or_pathlike_and_output_is_deterministic(tmp_path):
    obj = {"w": mg.tensor([[1.0, 2.0]]), "n": [1, 2.5]}
    mg.save(obj, str(tmp_path / "a.mg"))
    mg.save(obj, tmp_path / "b.mg")
    assert (tmp_path / "a.mg").read_bytes() == (tmp_path / "b.mg").read_bytes()
    assert_same(mg.load(str(tmp_path / "b.mg"), weights_only=False), obj)


@pytest.mark.parametrize("obj, where", [
    ({1, 2}, "obj"), ({"a": [1, b"bytes"]}, "obj['a'][1]"), ({"a": object()}, "obj['a']"),
    ({(1, 2): 3}, "obj"), (numpy.array([None, 1], dtype=object), "obj"),
])
def test_unsupported_objects_are_refused_naming_where(obj, where, tmp_path):
    with pytest.raises(TypeError) as error:
        mg.save(obj, tmp_path / "x.mg")
    assert f"(at {where})" in str(error.value) or "dtype=object" in str(error.value)
    assert list(tmp_path.iterdir()) == []


def test_a_structure_that_contains_itself_is_refused(tmp_path):
    loop = {"a": []}
    loop["a"].append(loop)
    with pytest.raises(ValueError, match=r"contains itself \(at obj\['a'\]\[0\]\)"):
        mg.save(loop, tmp_path / "x.mg")


# --- atomic writes ----------------------------------------------------------------------------


OLD = {"version": "old", "w": mg.tensor([1.0, 2.0, 3.0])}
NEW = {"version": "new", "w": mg.tensor(numpy.arange(10000, dtype=numpy.float32))}


def _crash_midway(*args, **kwargs):
    raise OSError("disk full (simulated)")


def _write_half_then_crash(entry, array, **kwargs):
    entry.write(b"\x93NUMPY" + bytes(1000))  # part of an array is already on disk
    raise OSError("disk full (simulated)")


def _interrupt_at_the_header(name):
    if name == "minigrad.json":  # the arrays are written; Ctrl-C arrives before the header
        raise KeyboardInterrupt
    return zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))


@pytest.mark.parametrize("target, crash", [
    ("minigrad.serialization.npy.write_array", _write_half_then_crash),
    ("minigrad.serialization.os.fsync", _crash_midway),
    ("minigrad.serialization.os.replace", _crash_midway),
    ("minigrad.serialization._entry", _interrupt_at_the_header),
], ids=["array-write", "fsync", "replace", "ctrl-c"])
def test_a_crash_while_saving_keeps_the_old_file_and_no_temporary(target, crash, tmp_path, monkeypatch):
    path = tmp_path / "checkpoint.mg"
    mg.save(OLD, path)
    before = path.read_bytes()
    monkeypatch.setattr(target, crash)
    with pytest.raises((OSError, KeyboardInterrupt)):
        mg.save(NEW, path)
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.mg"]
    assert path.read_bytes() == before
    assert_same(mg.load(path), OLD)


def test_the_file_is_written_beside_the_target_then_swapped_in(tmp_path, monkeypatch):
    calls = []
    real_replace = os.replace

    def spy(source, destination):
        calls.append((source, destination, open(source, "rb").read(2)))
        real_replace(source, destination)

    monkeypatch.setattr("minigrad.serialization.os.replace", spy)
    mg.save(OLD, tmp_path / "checkpoint.mg")
    mg.save(NEW, tmp_path / "checkpoint.mg")
    assert len(calls) == 2
    for source, destination, start in calls:
        assert os.path.dirname(source) == str(tmp_path) and destination == str(tmp_path / "checkpoint.mg")
        assert start == b"PK"  # complete before the swap
    assert_same(mg.load(tmp_path / "checkpoint.mg"), NEW)
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.mg"]


def test_unsupported_content_leaves_the_old_file(tmp_path):
    path = tmp_path / "checkpoint.mg"
    mg.save(OLD, path)
    with pytest.raises(TypeError):
        mg.save({"w": mg.ones(3), "bad": object()}, path)
    assert_same(mg.load(path), OLD)
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.mg"]
