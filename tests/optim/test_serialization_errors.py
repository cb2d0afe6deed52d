"""mg.load refuses damaged and foreign files with a clear error naming the file, never runs code
from a file, and places tensors by ``map_location``.

The malformed archives are built here by hand with zipfile, json and numpy.save, following the
format described in minigrad/serialization.py, not with minigrad's own writer.
"""

import io
import json
import os
import pickle
import zipfile

import numpy
import pytest
import standin_cupy

import minigrad as mg
from minigrad import serialization

# --- bad files --------------------------------------------------------------------------------


def npy_bytes(array, allow_pickle=False):
    buffer = io.BytesIO()
    numpy.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def tensor_node(entry="arrays/0.npy", **changes):
    node = {"type": "tensor", "array": entry, "dtype": "float32", "shape": [2], "device": "cpu",
            "requires_grad": False}
    return {**node, **changes}


def write_archive(path, obj_node, entries=None, header=None):
    """A minigrad archive built by hand: the header (or a replacement for it) and raw entries."""
    if entries is None:
        entries = {"arrays/0.npy": npy_bytes(numpy.array([1.0, 2.0], numpy.float32))}
    if header is None:
        header = json.dumps({"format": "minigrad", "version": 1, "object": obj_node})
    with zipfile.ZipFile(path, "w") as archive:
        if header is not False:
            archive.writestr("minigrad.json", header)
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


def test_a_hand_written_archive_loads(tmp_path):
    node = {"type": "list", "items": [tensor_node(), {"type": "int", "value": 3}]}
    path = write_archive(tmp_path / "ok.mg", node)
    t, three = mg.load(path)
    assert three == 3 and t.dtype is mg.float32
    numpy.testing.assert_array_equal(t.array, [1.0, 2.0])


BROKEN = {
    "unknown-type": {"type": "python_object", "module": "os", "name": "system"},
    "shape": tensor_node(shape=[3]),
    "dtype": tensor_node(dtype="float64"),
    "missing-entry": tensor_node("arrays/9.npy"),
    "outside-arrays": tensor_node("minigrad.json"),
    "int-grad": tensor_node(requires_grad=True, dtype="int64"),
    "bool-as-int": {"type": "int", "value": True},
    "no-type": {"value": 3},
    "bad-float": {"type": "float", "value": "1e400x"},
    "bad-device": tensor_node(device="tpu"),
    "bad-dict-item": {"type": "dict", "items": [[{"type": "str", "value": "k"}]]},
    "list-key": {"type": "dict", "items": [[{"type": "list", "items": []}, {"type": "none"}]]},
}


@pytest.mark.parametrize("node", BROKEN.values(), ids=BROKEN.keys())
def test_inconsistent_archives_are_refused_naming_the_file(node, tmp_path):
    path = write_archive(tmp_path / "broken.mg", node)
    with pytest.raises(RuntimeError, match="broken.mg.*not a valid minigrad file"):
        mg.load(path)


def test_an_array_entry_with_extra_bytes_is_refused(tmp_path):
    entries = {"arrays/0.npy": npy_bytes(numpy.array([1.0, 2.0], numpy.float32)) + b"extra"}
    path = write_archive(tmp_path / "long.mg", tensor_node(), entries=entries)
    with pytest.raises(RuntimeError, match="long.mg.*data after its array"):
        mg.load(path)


@pytest.mark.parametrize("header, message", [
    (False, "has no minigrad.json"),
    ("{not json", "not a valid minigrad file"),
    (json.dumps({"format": "other", "version": 1, "object": None}), "not a minigrad file"),
    (json.dumps({"format": "minigrad", "version": 99, "object": {"type": "none"}}), "newer minigrad"),
    ('{"format": "minigrad", "version": 1, "object": {"type": "float", "value": NaN}}', "not JSON"),
], ids=["no-header", "not-json", "wrong-format", "future-version", "nan-literal"])
def test_bad_headers_are_refused(header, message, tmp_path):
    path = write_archive(tmp_path / "bad.mg", None, header=header)
    with pytest.raises(RuntimeError, match=message):
        mg.load(path)


@pytest.fixture
def good_file(tmp_path):
    path = tmp_path / "good.mg"
    mg.save({"w": mg.tensor(numpy.arange(3000, dtype=numpy.float32)), "meta": [1, "x"]}, path)
    return path


@pytest.mark.parametrize("keep", [0, 3, 100, 0.5, -22, -1])
def test_truncated_files_are_refused(keep, good_file):
    data = good_file.read_bytes()
    size = int(len(data) * keep) if isinstance(keep, float) else keep if keep >= 0 else len(data) + keep
    good_file.write_bytes(data[:size])
    with pytest.raises(RuntimeError, match="good.mg"):
        mg.load(good_file)


def test_a_flipped_byte_in_the_data_is_detected(good_file):
    data = bytearray(good_file.read_bytes())
    data[4000] ^= 0xFF  # inside the tensor's data: the zip entry's CRC no longer matches
    good_file.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="good.mg.*CRC"):
        mg.load(good_file)


def test_files_that_are_not_archives_are_refused(tmp_path):
    for name, data in [("empty", b""), ("text", b"hello, world"), ("noise", bytes(range(256)) * 4)]:
        (tmp_path / name).write_bytes(data)
        with pytest.raises(RuntimeError, match=f"{name}.* not a minigrad file"):
            mg.load(tmp_path / name)
    with pytest.raises(FileNotFoundError):
        mg.load(tmp_path / "missing.mg")


def test_saving_into_a_missing_folder_names_the_folder_as_torch(tmp_path):
    """PyTorch raises RuntimeError("Parent directory ... does not exist."); no temporary file is named."""
    with pytest.raises(RuntimeError, match=r"Parent directory .*no_such_folder does not exist") as error:
        mg.save({"a": mg.ones(2)}, tmp_path / "no_such_folder" / "x.mg")
    assert ".tmp" not in str(error.value)


# --- loading runs no code ---------------------------------------------------------------------


class Exploit:
    """Unpickling this calls os.mkdir(marker): proof that code from the file ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def test_the_exploit_does_run_when_unpickled(tmp_path):
    # The control: the payload used below really runs code when something unpickles it.
    pickle.loads(pickle.dumps(Exploit(tmp_path / "ran")))
    assert (tmp_path / "ran").is_dir()


def test_a_pickle_file_is_refused_without_unpickling(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "evil.pt").write_bytes(pickle.dumps({"w": Exploit(marker)}, protocol=2))
    with pytest.raises(RuntimeError, match="pickle"):
        mg.load(tmp_path / "evil.pt")
    assert not marker.exists()


def test_a_torch_style_zip_with_a_pickle_inside_is_refused(tmp_path):
    marker = tmp_path / "ran"
    with zipfile.ZipFile(tmp_path / "evil.pt", "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps(Exploit(marker)))
        archive.writestr("archive/version", "3\n")
    with pytest.raises(RuntimeError, match="torch.save"):
        mg.load(tmp_path / "evil.pt")
    assert not marker.exists()


def test_a_pickled_object_array_inside_a_minigrad_archive_is_refused(tmp_path):
    marker = tmp_path / "ran"
    payload = npy_bytes(numpy.array([Exploit(marker)], dtype=object), allow_pickle=True)
    node = {"type": "ndarray", "array": "arrays/0.npy", "dtype": "|O", "shape": [1]}
    path = write_archive(tmp_path / "evil.mg", node, entries={"arrays/0.npy": payload})
    with pytest.raises(RuntimeError, match="evil.mg"):
        mg.load(path)
    assert not marker.exists()


def test_a_real_torch_save_file_is_refused(tmp_path):
    from _torch import require_torch

    torch = require_torch()
    torch.save({"w": torch.ones(2)}, tmp_path / "model.pt")
    with pytest.raises(RuntimeError, match="torch.save"):
        mg.load(tmp_path / "model.pt")


# --- devices and map_location ----------------------------------------------------------------


@pytest.fixture
def cuda_file(tmp_path):
    """A file holding a tensor saved from 'cuda' (the CuPy stand-in), which is then removed."""
    standin_cupy.install()
    try:
        mg.save({"w": mg.tensor([1.0, 2.0], device="cuda", requires_grad=True), "c": mg.ones(2)},
                tmp_path / "gpu.mg")
    finally:
        standin_cupy.uninstall()
    if mg.cuda.is_available():
        pytest.skip("a real GPU is present: the CUDA-unavailable path can't be tested")
    return tmp_path / "gpu.mg"


def test_cuda_tensors_need_map_location_without_cuda(cuda_file):
    with pytest.raises(RuntimeError, match=r"gpu.mg.*CUDA.*map_location='cpu'"):
        mg.load(cuda_file)
    for location in ["cpu", mg.device("cpu"), {"cuda": "cpu"}, {"cuda:0": "cpu"}]:
        loaded = mg.load(cuda_file, map_location=location)
        assert loaded["w"].device == mg.device("cpu") and loaded["w"].requires_grad
        numpy.testing.assert_array_equal(loaded["w"].array, [1.0, 2.0])


def test_map_location_moves_tensors_to_cuda(cuda_file):
    standin_cupy.install()
    try:
        back = mg.load(cuda_file)
        assert back["w"].device.type == "cuda" and back["c"].device.type == "cpu"
        everything = mg.load(cuda_file, map_location="cuda")
        assert everything["c"].device.type == "cuda"
        numpy.testing.assert_array_equal(mg.backend.to_host(everything["w"].array), [1.0, 2.0])
        assert mg.load(cuda_file, map_location={"cpu": "cuda"})["c"].device.type == "cuda"
    finally:
        standin_cupy.uninstall()


def test_bad_map_locations_are_refused(good_file):
    with pytest.raises(TypeError, match="map_location"):
        mg.load(good_file, map_location=lambda storage, location: storage)
    with pytest.raises(RuntimeError, match="device type"):
        mg.load(good_file, map_location="gpu")


def test_the_format_constants_are_the_documented_ones():
    # The hand-built archives above follow these names; the module must agree.
    assert (serialization.HEADER, serialization.ARRAYS, serialization.FORMAT) == ("minigrad.json", "arrays/",
                                                                                  "minigrad")
