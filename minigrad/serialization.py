"""``mg.save`` and ``mg.load``: state dicts on disk, in a format that runs no code when loaded.

PyTorch's files are pickles, and unpickling a file can run any code its author chose. A
minigrad file is instead a zip archive holding only data:

    minigrad.json     {"format": "minigrad", "version": 1, "object": <node>}
    arrays/0.npy      one NumPy .npy file per tensor or array (read with allow_pickle=False)

Every node of the JSON tree names its type: ``{"type": "int", "value": 3}``,
``{"type": "list", "items": [...]}``, ``{"type": "dict", "items": [[key, value], ...]}``,
``{"type": "tensor", "array": "arrays/0.npy", "dtype": "float32", "shape": [2, 3],
"device": "cpu", "requires_grad": false}``. Loading builds only these types, so a file
can hold data but never behaviour.

What can be saved: Tensors (dtype, device and ``requires_grad``; not ``.grad``), NumPy
arrays and scalars, dicts (keys: str, int, float, bool or None; an OrderedDict loads as
an OrderedDict), lists, tuples, int (any size), float (also nan and inf), bool, str,
None, ``mg.dtype`` and ``mg.device``. A ``Parameter`` loads as a plain Tensor with
``requires_grad=True``: state dicts hold data, and ``model.load_state_dict`` copies it
into the model's own parameters. A tensor stored twice in one object loads as one tensor
stored twice; other sharing (views, shared sub-lists) is not preserved.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import struct
import zipfile
from collections import OrderedDict
from typing import IO, Any

import numpy
import numpy.lib.format as npy

from minigrad import _file_reader, backend
from minigrad import dtypes as _dtypes
from minigrad._file_reader import ARRAYS, FORMAT, HEADER, VERSION
from minigrad._files import atomic_file
from minigrad._version import __version__
from minigrad.tensor import Tensor

__all__ = ["save", "load"]

_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_KEY_TYPES = (str, int, float, type(None))  # bool is an int


# --- saving ----------------------------------------------------------------------------------

def save(obj: Any, f: str | os.PathLike | IO[bytes]) -> None:
    """Write ``obj`` (tensors, arrays and nested dicts/lists/tuples of them, numbers, strings) to ``f``.

    ``f`` is a path or a binary file object. Writing to a path is atomic: the archive goes
    to a temporary file in the same folder, is flushed to disk, and then replaces ``f`` in
    one step, so a crash midway leaves any previous file intact (and no temporary file).
    """
    if isinstance(f, (str, os.PathLike)):
        _save_to_path(obj, os.fspath(f))
    else:
        _write_archive(obj, f)


def _save_to_path(obj: Any, path: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):  # else the error would name the temporary file
        raise RuntimeError(f"Parent directory {directory} does not exist (saving to {path!r}).")
    if os.path.isdir(path):  # else os.replace fails late, naming the temporary file
        raise RuntimeError(f"Can't save to {path!r}: it is a directory, not a file.")
    with atomic_file(path) as stream:
        _write_archive(obj, stream)


def _write_archive(obj: Any, stream: IO[bytes]) -> None:
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED) as archive:
        writer = _Writer(archive)
        root = writer.encode(obj, "obj")
        header = {"format": FORMAT, "version": VERSION, "minigrad_version": __version__, "object": root}
        archive.writestr(_entry(HEADER), json.dumps(header, allow_nan=False, indent=1))


def _entry(name: str) -> zipfile.ZipInfo:
    """A zip entry with a fixed date, so saving the same object twice gives the same bytes."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    return info


class _Writer:
    """Turns an object into JSON nodes, writing each tensor's data as an .npy entry."""

    def __init__(self, archive: zipfile.ZipFile):
        self.archive = archive
        self.written: dict[int, str] = {}  # id(tensor or array) -> its entry, to store it once
        self.open_containers: set[int] = set()  # the containers we are inside, to refuse cycles

    def encode(self, obj: Any, where: str) -> dict:
        if obj is None:
            return {"type": "none"}
        if isinstance(obj, bool):
            return {"type": "bool", "value": obj}
        if isinstance(obj, Tensor):
            return {"type": "tensor", "array": self.write_array(obj, backend.to_host(obj.array)),
                    "dtype": obj.dtype.name, "shape": list(obj.shape), "device": str(obj.device),
                    "requires_grad": obj.requires_grad}
        if isinstance(obj, numpy.ndarray):
            return {"type": "ndarray", "array": self.write_array(obj, obj), "dtype": obj.dtype.str,
                    "shape": list(obj.shape)}
        if isinstance(obj, numpy.generic):  # before float: numpy.float64 is a float
            return {"type": "numpy_scalar", "array": self.write_array(obj, numpy.asarray(obj)),
                    "dtype": obj.dtype.str}
        if isinstance(obj, int):
            return {"type": "int", "value": int(obj)}
        if isinstance(obj, float):
            return {"type": "float", "value": _float_to_json(obj)}
        if isinstance(obj, str):
            return {"type": "str", "value": str(obj)}
        if isinstance(obj, _dtypes.dtype):
            return {"type": "dtype", "value": obj.name}
        if isinstance(obj, backend.Device):
            return {"type": "device", "value": str(obj)}
        if isinstance(obj, (list, tuple, dict)):
            return self.encode_container(obj, where)
        raise TypeError(f"mg.save can't store an object of type {type(obj).__name__} (at {where}); it stores "
                        "Tensors, NumPy arrays, dicts, lists, tuples, str, int, float, bool and None")

    def encode_container(self, obj: list | tuple | dict, where: str) -> dict:
        if id(obj) in self.open_containers:
            raise ValueError(f"mg.save can't store an object that contains itself (at {where})")
        self.open_containers.add(id(obj))
        try:
            if isinstance(obj, dict):
                items = []
                for key, value in obj.items():
                    if not isinstance(key, _KEY_TYPES):
                        raise TypeError(f"mg.save can't store a dict key of type {type(key).__name__} "
                                        f"(at {where}); keys must be str, int, float, bool or None")
                    items.append([self.encode(key, where), self.encode(value, f"{where}[{key!r}]")])
                return {"type": "dict", "ordered": isinstance(obj, OrderedDict), "items": items}
            kind = "tuple" if isinstance(obj, tuple) else "list"
            return {"type": kind, "items": [self.encode(item, f"{where}[{i}]") for i, item in enumerate(obj)]}
        finally:
            self.open_containers.discard(id(obj))

    def write_array(self, owner: Any, host: numpy.ndarray) -> str:
        """Store ``host`` as ``arrays/<n>.npy`` (once per ``owner`` object); returns the entry name."""
        if id(owner) in self.written:
            return self.written[id(owner)]
        if host.dtype.hasobject:
            raise TypeError("mg.save can't store NumPy arrays of Python objects (dtype=object)")
        name = f"{ARRAYS}{len(self.written)}.npy"
        with self.archive.open(_entry(name), "w", force_zip64=host.nbytes > 2**31 - 2**20) as entry:
            npy.write_array(entry, host, allow_pickle=False)
        self.written[id(owner)] = name
        return name


def _float_to_json(value: float) -> float | str:
    """JSON has no nan or inf: those are written as strings (finite floats round-trip exactly)."""
    return value if math.isfinite(value) else repr(value)  # 'nan', 'inf', '-inf'



# --- loading ---------------------------------------------------------------------------------
# load() finds the archive in the stream; minigrad/_file_reader.py checks every entry and node
# against what save() writes before it reads (and allocates for) any array.

class NothingToLoadError(RuntimeError, EOFError):
    """An empty file or stream: a RuntimeError, as every file mg.load refuses, and an EOFError, as
    ``torch.load`` raises for it (so ``except EOFError`` loops written for PyTorch end too)."""


def load(f: str | os.PathLike | IO[bytes], map_location: Any = None, weights_only: bool = True) -> Any:
    """Read an object written by :func:`save`. No code from the file is ever run.

    ``map_location`` moves tensors: a device (``'cpu'``, ``mg.device('cuda')``) for all of
    them, or a dict such as ``{'cuda': 'cpu'}`` from saved to new device. Without it, each
    tensor returns to the device it was saved from, and a 'cuda' tensor on a machine without
    CUDA raises. ``weights_only`` is accepted for PyTorch compatibility: minigrad files only
    ever hold data, so loading is always as safe as PyTorch's ``weights_only=True``.
    Objects saved one after another into one file object load back in that order.

    Anything :func:`save` would not have written (compressed or extra entries, sizes that
    disagree between the JSON, an array's ``.npy`` header and its zip entry, unknown fields,
    damaged bytes) raises a RuntimeError naming the file and the entry, before any array is
    allocated.
    """
    name = repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else repr(getattr(f, "name", f))
    _check_map_location(map_location)
    with _open_for_reading(f) as stream:
        _check_magic(stream, name)
        try:
            archive, end = _open_archive(stream)
            with archive:
                _check_foreign(archive, name)
                obj = _file_reader.read_object(archive, map_location, name)
            stream.seek(end)  # where the next object saved into the same stream starts
            return obj
        except _file_reader.CorruptEntryError as error:
            raise RuntimeError(f"{name} is not a valid minigrad file (corrupt or truncated): "
                               f"entry {error.entry!r}: {error}") from error
        except _file_reader.READ_ERRORS as error:
            raise RuntimeError(f"{name} is not a valid minigrad file (corrupt or truncated): "
                               f"its zip directory: {error}") from error


@contextlib.contextmanager
def _open_for_reading(f: Any) -> Any:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            yield stream
    elif getattr(f, "seekable", lambda: False)():
        yield f
    else:  # zip archives are read from the end: a pipe or socket is read into memory first
        yield io.BytesIO(f.read())


def _open_archive(stream: IO[bytes]) -> tuple[zipfile.ZipFile, int]:
    """The zip archive that starts at the stream's position, and the position where it ends.

    zipfile finds an archive from the end of the stream: with several objects saved one after
    another into one file object, that is the last of them. Then the archive that starts
    here is cut out of the bytes that follow, so that loads read the objects in order.
    """
    start = stream.tell()
    archive = zipfile.ZipFile(stream)
    if _first_offset(archive) == start:  # the usual case: the archive here is the last one
        return archive, _end_of(archive, stream)
    archive.close()
    stream.seek(start)
    archive, length = _first_archive(stream.read())
    return archive, start + length


def _first_offset(archive: zipfile.ZipFile) -> int:
    return min((info.header_offset for info in archive.infolist()), default=-1)


_END_OF_ARCHIVE = b"PK\x05\x06"  # the end-of-central-directory record closes every zip archive
_ZIP64_LOCATOR = b"PK\x06\x07"


def _end_of(archive: zipfile.ZipFile, stream: IO[bytes]) -> int:
    """Where ``archive``'s end record ends: its central directory (at ``start_dir``) runs up to it,
    or up to the zip64 record and locator (20 bytes) before it."""
    stream.seek(archive.start_dir)
    tail = stream.read()
    found = tail.find(_END_OF_ARCHIVE)
    while found != -1 and found + 22 <= len(tail):
        directory_size, _, comment = struct.unpack_from("<LLH", tail, found + 12)
        if directory_size == found or tail[found - 20:found - 16] == _ZIP64_LOCATOR:
            return archive.start_dir + found + 22 + comment
        found = tail.find(_END_OF_ARCHIVE, found + 1)
    return archive.start_dir + len(tail)


def _first_archive(data: bytes) -> tuple[zipfile.ZipFile, int]:
    """The zip archive at the start of ``data`` and its length: it ends at the first end record
    that closes an archive whose first entry is at offset 0 (a chance match in array bytes does not)."""
    found = data.find(_END_OF_ARCHIVE)
    while found != -1 and found + 22 <= len(data):
        (comment,) = struct.unpack_from("<H", data, found + 20)
        length = found + 22 + comment
        with contextlib.suppress(*_file_reader.READ_ERRORS):
            archive = zipfile.ZipFile(io.BytesIO(data[:length]))
            if _first_offset(archive) == 0:
                return archive, length
        found = data.find(_END_OF_ARCHIVE, found + 1)
    return zipfile.ZipFile(io.BytesIO(data)), len(data)  # no complete archive: zipfile says what is wrong


def _check_magic(stream: IO[bytes], name: str) -> None:
    start = stream.tell()
    magic = stream.read(4)
    stream.seek(start)
    if magic in _ZIP_MAGIC:
        return
    if not magic:
        raise NothingToLoadError(f"{name} is not a minigrad file: it is empty (there are no bytes left to "
                                 "read)")
    if magic[:1] == b"\x80":
        raise RuntimeError(f"{name} is a Python pickle (written by pickle or an old torch.save), not a "
                           "minigrad file. mg.load never unpickles: unpickling a file can run "
                           "arbitrary code.")
    raise RuntimeError(f"{name} is not a minigrad file (it does not start like a zip archive; "
                       "it may be truncated or corrupt)")


def _check_foreign(archive: zipfile.ZipFile, name: str) -> None:
    """Archives that are not minigrad files at all get their own message (not 'corrupt')."""
    names = archive.namelist()
    if HEADER in names:
        return
    if any(entry.endswith("data.pkl") for entry in names):
        raise RuntimeError(f"{name} was written by torch.save: its objects are pickled, and mg.load "
                           "never unpickles (that can run arbitrary code). To convert it, load it with "
                           "torch.load(f, weights_only=True) and mg.save {name: tensor.numpy()}.")
    raise RuntimeError(f"{name} is not a minigrad file: the archive has no {HEADER}")


def _check_map_location(map_location: Any) -> None:
    if isinstance(map_location, dict):
        for target in map_location.values():
            backend.Device(target)
    elif map_location is not None:
        if callable(map_location) or not isinstance(map_location, (str, backend.Device)):
            raise TypeError("mg.load's map_location must be None, a device ('cpu', 'cuda', mg.device(...)) "
                            f"or a dict from saved device to new device, got {type(map_location).__name__}")
        backend.Device(map_location)
