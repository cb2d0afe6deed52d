"""Property suite: save a random object, damage the file, and mg.load either raises a RuntimeError
naming the file or returns an object equal to the original — never anything else.

Objects: tensors of every dtype and random shapes (0-d and empty included, some requiring
grad), NumPy arrays and scalars, numbers (nan, inf, huge ints), strings, dtypes, devices, and
nested dicts (plain and ordered), lists and tuples of them, and model state dicts.

Damage: truncation, byte flips, edits of minigrad.json (unknown, missing or mistyped fields,
shapes, dtypes, array names, broken UTF-8, cut text), edits of a .npy header (shape, dtype),
entries recompressed with deflate, bzip2 or lzma, and extra or missing entries. Edits that
give another file save could have written (an int's value, an array's byte or memory order)
cannot be told from an original and are not made.

Examples are derandomised (the same on every run); MINIGRAD_HYPOTHESIS_EXAMPLES sets how many
each damage kind tries (default 60, so the suite tries a few hundred files). Run with ``-s`` to
see how many files each kind damaged and how many loads raised or returned an equal object.
"""

import ast
import io
import json
import math
import os
import zipfile
from collections import Counter, OrderedDict

import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad as mg

EXAMPLES = int(os.environ.get("MINIGRAD_HYPOTHESIS_EXAMPLES", "60"))
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
OUTCOMES: Counter = Counter()

DTYPES = [mg.float16, mg.float32, mg.float64, mg.int8, mg.int16, mg.int32, mg.int64, mg.uint8, mg.bool]
NUMPY_DTYPES = ["<f4", "<f8", ">f8", "<i2", ">i4", "|u1", "|b1", "<c16", "<U3", "|S2", "<M8[s]"]
shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


def _random_array(draw, dtype: str, shape: tuple) -> numpy.ndarray:
    seed = draw(st.integers(0, 2**32 - 1))
    raw = numpy.random.default_rng(seed).integers(0, 256, size=math.prod(shape) * numpy.dtype(dtype).itemsize,
                                                  dtype=numpy.uint8)
    array = numpy.frombuffer(raw.tobytes(), dtype=dtype).reshape(shape).copy()
    if array.dtype.kind == "b":
        array = array.view(numpy.uint8) % 2 == 1
    return numpy.asfortranarray(array) if draw(st.booleans()) else array


@st.composite
def tensors(draw):
    dtype = draw(st.sampled_from(DTYPES))
    array = _random_array(draw, dtype.numpy.str, draw(shapes))
    grad = dtype.is_floating_point and draw(st.booleans())
    return mg.tensor(array, requires_grad=grad)


@st.composite
def ndarrays(draw):
    return _random_array(draw, draw(st.sampled_from(NUMPY_DTYPES)), draw(shapes))


@st.composite
def numpy_scalars(draw):
    return _random_array(draw, draw(st.sampled_from(NUMPY_DTYPES[:7])), ())[()]


@st.composite
def state_dicts(draw):
    mg.manual_seed(draw(st.integers(0, 1000)))
    model = mg.nn.Sequential(mg.nn.Linear(draw(st.integers(1, 4)), 2), mg.nn.ReLU(), mg.nn.Linear(2, 1))
    optimizer = mg.optim.Adam(model.parameters(), lr=0.1)
    model(mg.ones(1, model[0].in_features)).sum().backward()
    optimizer.step()
    return {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3}


leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-2**200, 2**200), st.floats(), st.text(max_size=8),
    st.sampled_from(DTYPES), st.just(mg.device("cpu")), tensors(), ndarrays(), numpy_scalars(),
)
keys = st.one_of(st.text(max_size=6), st.integers(-5, 5), st.none(), st.booleans(),
                 st.floats(allow_nan=False))


def _containers(children):
    return st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(keys, children, max_size=4),
        st.dictionaries(keys, children, max_size=4).map(lambda d: OrderedDict(d)),
    )


objects = st.one_of(st.recursive(leaves, _containers, max_leaves=8), state_dicts(), tensors())


def assert_equal(loaded, original, where="obj"):
    assert type(loaded) is type(original) or (isinstance(original, mg.nn.Parameter) and
                                              type(loaded) is mg.Tensor), where
    if isinstance(original, mg.Tensor):
        assert (loaded.dtype, loaded.shape, loaded.device, loaded.requires_grad) == \
            (original.dtype, original.shape, original.device, original.requires_grad), where
        assert loaded.array.tobytes() == original.detach().array.tobytes(), where
    elif isinstance(original, numpy.ndarray):
        assert (loaded.dtype.str, loaded.shape) == (original.dtype.str, original.shape), where
        assert loaded.tobytes() == original.tobytes(), where
    elif isinstance(original, numpy.generic):
        assert loaded.dtype.str == original.dtype.str and loaded.tobytes() == original.tobytes(), where
    elif isinstance(original, dict):
        assert list(loaded.keys()) == list(original.keys()), where
        for (key, value), other in zip(original.items(), loaded.values()):
            assert_equal(other, value, f"{where}[{key!r}]")
    elif isinstance(original, (list, tuple)):
        assert len(loaded) == len(original), where
        for i, (a, b) in enumerate(zip(loaded, original)):
            assert_equal(a, b, f"{where}[{i}]")
    elif isinstance(original, float) and math.isnan(original):
        assert math.isnan(loaded), where
    else:
        assert loaded == original, where


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    yield tmp_path_factory.mktemp("damage")
    print(f"\nload damage cases: {dict(sorted(OUTCOMES.items()))}")


def saved(obj) -> bytes:
    buffer = io.BytesIO()
    mg.save(obj, buffer)
    return buffer.getvalue()


def entries_of(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def rebuilt(entries: dict[str, bytes], methods: dict[str, int] | None = None) -> bytes:
    """A zip archive of ``entries`` in order, each stored unless ``methods`` names another method."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = (methods or {}).get(name, zipfile.ZIP_STORED)
            archive.writestr(info, data)
    return buffer.getvalue()


def check(kind: str, folder, original, damaged: bytes) -> None:
    """The property: RuntimeError naming the file, or an object equal to ``original``."""
    path = folder / "damaged.mg"
    path.write_bytes(damaged)
    try:
        loaded = mg.load(path)
    except RuntimeError as error:
        assert "damaged.mg" in str(error), str(error)
        OUTCOMES[kind, "RuntimeError"] += 1
        return
    assert_equal(loaded, original)
    OUTCOMES[kind, "equal"] += 1


@PROPERTY
@given(obj=objects, data=st.data())
def test_truncated_files(folder, obj, data):
    blob = saved(obj)
    check("truncate", folder, obj, blob[:data.draw(st.integers(0, len(blob) - 1))])


@PROPERTY
@given(obj=objects, data=st.data())
def test_flipped_bytes(folder, obj, data):
    blob = bytearray(saved(obj))
    for _ in range(data.draw(st.integers(1, 3))):
        blob[data.draw(st.integers(0, len(blob) - 1))] ^= data.draw(st.integers(1, 255))
    check("flip", folder, obj, bytes(blob))


def _nodes(node):
    """Every JSON node of an object tree, depth first."""
    yield node
    for item in node.get("items", []):
        yield from (_nodes(item) if isinstance(item, dict) else (n for part in item for n in _nodes(part)))


WRONG_TYPE = {bool: "yes", int: "3", str: 3, list: {}, float: []}
FIELD_TYPES = {"value": None, "items": list, "ordered": bool, "array": str, "dtype": str, "shape": list,
               "device": str, "requires_grad": bool}


def _edit_node(data, node) -> str:
    """Damage ``node`` in place so that no file save writes could match it; returns what was done."""
    fields = [key for key in node if key != "type"]
    choices = ["unknown-field", "drop-field", "bad-type"] + (["wrong-type"] if fields else [])
    if node["type"] in ("tensor", "ndarray"):
        choices += ["shape", "dtype", "array-name"]
    how = data.draw(st.sampled_from(choices))
    if how == "unknown-field":
        node[data.draw(st.sampled_from(["extra", "pickle", "ordered", "value"]))
             if node["type"] == "none" else "extra"] = None
    elif how == "drop-field":
        del node[data.draw(st.sampled_from(["type", *fields]))]
    elif how == "bad-type":
        node["type"] = data.draw(st.sampled_from(["object", "Tensor", "", "set"]))
    elif how == "wrong-type":
        key = data.draw(st.sampled_from(fields))
        expected = FIELD_TYPES[key] or {"bool": bool, "int": int, "float": float}.get(node["type"], str)
        node[key] = WRONG_TYPE[expected]
    elif how == "shape":
        shape = node["shape"]
        node["shape"] = data.draw(st.sampled_from([new for new in [shape + [1], [1] + shape, shape[1:], [-1],
                                                                   [10**12], [10**30], [2**40, 2**40]]
                                                   if new != shape]))
    elif how == "dtype":
        names = ["float16", "float32", "float64", "int64", "uint8", "bool"] if node["type"] == "tensor" \
            else ["<f4", "<f8", "|O", ">i4", "<i8", "|u1"]
        node["dtype"] = data.draw(st.sampled_from([n for n in names if n != node["dtype"]]))
    else:
        node["array"] = data.draw(st.sampled_from(["arrays/99.npy", "minigrad.json", "../x.npy"]))
    return how


@PROPERTY
@given(obj=objects, data=st.data())
def test_edited_json(folder, obj, data):
    entries = entries_of(saved(obj))
    header = json.loads(entries["minigrad.json"])
    how = data.draw(st.sampled_from(["node", "node", "top-level", "utf8", "cut"]))
    if how == "node":
        how = _edit_node(data, data.draw(st.sampled_from(list(_nodes(header["object"])))))
        text = json.dumps(header).encode()
    elif how == "top-level":
        header[data.draw(st.sampled_from(["extra", "pickle"]))] = True
        text = json.dumps(header).encode()
    elif how == "utf8":
        text = entries["minigrad.json"]
        at = data.draw(st.integers(0, len(text)))
        text = text[:at] + data.draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) + text[at:]
    else:
        text = entries["minigrad.json"][:data.draw(st.integers(0, len(entries["minigrad.json"]) - 1))]
    entries["minigrad.json"] = text
    check(f"json:{how}", folder, obj, rebuilt(entries))


def _npy_header_edit(data, blob: bytes) -> bytes:
    """``blob`` (a .npy file) with its header's shape or dtype replaced."""
    version = blob[6]
    start = 10 if version == 1 else 12
    length = int.from_bytes(blob[8:start], "little")
    fields = ast.literal_eval(blob[start:start + length].decode("latin1"))
    if data.draw(st.booleans()):
        shape = fields["shape"]
        candidates = [shape + (1,), (1,) + shape, (-1,), (10**12,), (10**30,), (2**62, 2**62), (0,)]
        fields["shape"] = data.draw(st.sampled_from([new for new in candidates if new != shape]))
    else:
        fields["descr"] = data.draw(st.sampled_from([d for d in ["<f4", "<f8", "|O", "<i8", "|u1", "<c8"]
                                                     if d != fields["descr"]]))
    text = repr(fields).encode("latin1")
    text += b" " * (64 - (start + len(text) + 1) % 64) + b"\n"
    return blob[:8] + len(text).to_bytes(start - 8, "little") + text + blob[start + length:]


@PROPERTY
@given(obj=objects, data=st.data())
def test_edited_npy_headers(folder, obj, data):
    entries = entries_of(saved(obj))
    arrays = [name for name in entries if name.startswith("arrays/")]
    if not arrays:
        OUTCOMES["npy-header", "no arrays"] += 1
        return
    name = data.draw(st.sampled_from(arrays))
    entries[name] = _npy_header_edit(data, entries[name])
    check("npy-header", folder, obj, rebuilt(entries))


@PROPERTY
@given(obj=objects, data=st.data())
def test_recompressed_entries(folder, obj, data):
    entries = entries_of(saved(obj))
    name = data.draw(st.sampled_from(list(entries)))
    method = data.draw(st.sampled_from([zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]))
    check("recompressed", folder, obj, rebuilt(entries, {name: method}))


@PROPERTY
@given(obj=objects, data=st.data())
def test_extra_and_missing_entries(folder, obj, data):
    entries = entries_of(saved(obj))
    if data.draw(st.booleans()):
        name = data.draw(st.sampled_from(["arrays/999.npy", "notes.txt", "arrays/x.npy", "data.pkl"]))
        entries[name] = data.draw(st.binary(max_size=64))
        how = "extra"
    else:
        del entries[data.draw(st.sampled_from(list(entries)))]
        how = "missing"
    check(how, folder, obj, rebuilt(entries))


@PROPERTY
@given(obj=objects)
def test_undamaged_files_load_equal(folder, obj):
    path = folder / "whole.mg"
    mg.save(obj, path)
    assert_equal(mg.load(path), obj)
    OUTCOMES["undamaged", "equal"] += 1
