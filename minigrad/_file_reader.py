"""The checking reader behind ``mg.load``: it builds an object only from what ``mg.save`` writes.

A file is read in three passes, each refusing what ``save`` never writes before anything is
allocated from the file's claims:

1. the zip directory: only ``minigrad.json`` and ``arrays/<n>.npy``, each once, each stored
   (not compressed: a compressed entry can inflate a small file into gigabytes), each no
   larger than the archive itself;
2. ``minigrad.json``: valid UTF-8 JSON whose nodes have exactly the fields ``save`` writes,
   each of the right JSON type;
3. each array entry: its ``.npy`` header is parsed on its own, its dtype and shape compared
   with the JSON node, and the byte size they imply (computed with Python integers, so it
   cannot overflow) compared with the entry's size. Only then is the array allocated and
   filled, and reading it to the end checks the entry's CRC.

Every refusal is a :class:`CorruptEntryError` naming the entry; ``mg.load`` adds the file name.
"""

from __future__ import annotations

import json
import math
import re
import struct
import zipfile
import zlib
from collections import OrderedDict
from collections.abc import Mapping
from typing import IO, Any

import numpy
import numpy.lib.format as npy

from minigrad import backend
from minigrad import dtypes as _dtypes
from minigrad._version import __version__
from minigrad.tensor import Tensor

FORMAT = "minigrad"
VERSION = 1
HEADER = "minigrad.json"
ARRAYS = "arrays/"
_ARRAY_ENTRY = re.compile(r"arrays/[0-9]+\.npy")
_KEY_TYPES = (str, int, float, type(None))  # bool is an int
_COMPRESSION_NAMES = {zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma"}
_MAX_NPY_HEADER = 10_000  # NumPy's own default limit on the size of a .npy header
_MAX_DIMS = 64  # NumPy's limit on the number of dimensions
_CHUNK = 1 << 24  # bytes read at a time into a freshly allocated array


class CorruptEntryError(Exception):
    """A file that ``save`` could not have written; ``entry`` names the part of it at fault."""

    def __init__(self, entry: str, message: str):
        super().__init__(message)
        self.entry = entry


# What a damaged archive can make zipfile, json or NumPy raise while it is read: all mean
# "this file is not valid". (UnicodeDecodeError and json's errors are ValueErrors.)
READ_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, KeyError, TypeError,
               IndexError, RecursionError, OverflowError, zlib.error, struct.error, NotImplementedError,
               OSError)

# The fields of each node type, and the JSON type of each field (the node's "type" aside).
_NODE_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "none": {},
    "bool": {"value": (bool,)},
    "int": {"value": (int,)},
    "float": {"value": (float, int, str)},
    "str": {"value": (str,)},
    "list": {"items": (list,)},
    "tuple": {"items": (list,)},
    "dict": {"ordered": (bool,), "items": (list,)},
    "tensor": {"array": (str,), "dtype": (str,), "shape": (list,), "device": (str,),
               "requires_grad": (bool,)},
    "ndarray": {"array": (str,), "dtype": (str,), "shape": (list,)},
    "numpy_scalar": {"array": (str,), "dtype": (str,)},
    "dtype": {"value": (str,)},
    "device": {"value": (str,)},
}
_HEADER_FIELDS = {"format": (str,), "version": (int,), "minigrad_version": (str,), "object": (dict,)}


def read_object(archive: zipfile.ZipFile, map_location: Any, name: str) -> Any:
    """The object stored in ``archive`` (a minigrad file called ``name``), after all three checks."""
    _check_directory(archive)
    reader = _Reader(archive, map_location, name)
    header = read_header(archive, name)
    try:
        obj = reader.decode(header["object"])
    except RecursionError as error:
        raise CorruptEntryError(HEADER, "the object is nested too deeply to rebuild") from error
    unused = sorted(reader.entries - reader.used - {HEADER})
    if unused:
        raise CorruptEntryError(unused[0], "the entry is not referenced by minigrad.json (mg.save writes "
                                           "only the arrays it refers to)")
    return obj


def _check_directory(archive: zipfile.ZipFile) -> None:
    """Pass 1: the entries' names, compression and sizes, from the zip directory alone."""
    seen: set[str] = set()
    for info in archive.infolist():
        entry = info.filename
        if entry in seen:
            raise CorruptEntryError(entry, "the archive holds two entries of this name")
        seen.add(entry)
        if entry != HEADER and not _ARRAY_ENTRY.fullmatch(entry):
            raise CorruptEntryError(entry, f"mg.save writes only {HEADER} and {ARRAYS}<n>.npy entries")
        if info.compress_type != zipfile.ZIP_STORED:
            method = _COMPRESSION_NAMES.get(info.compress_type, f"method {info.compress_type}")
            raise CorruptEntryError(entry, f"the entry is compressed ({method}); mg.save stores entries "
                                           "uncompressed, and a compressed entry could inflate to any size")
        if info.flag_bits & 0x1:
            raise CorruptEntryError(entry, "the entry is encrypted")
        if info.compress_size != info.file_size:
            raise CorruptEntryError(entry, f"the zip directory gives it {info.file_size} bytes and "
                                           f"{info.compress_size} bytes stored; a stored entry has one size")
        if info.header_offset < 0 or info.header_offset + info.file_size > archive.start_dir:
            raise CorruptEntryError(entry, f"the entry claims {info.file_size} bytes at offset "
                                           f"{info.header_offset}, beyond the archive's data "
                                           f"({archive.start_dir} bytes)")


def read_header(archive: zipfile.ZipFile, name: str) -> dict:
    """Pass 2: ``minigrad.json``, parsed strictly (no NaN literals, no repeated keys)."""
    try:
        text = archive.read(HEADER).decode("utf-8")
        header = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except CorruptEntryError:
        raise
    except RecursionError as error:
        raise CorruptEntryError(HEADER, "the JSON is nested too deeply to read") from error
    except READ_ERRORS as error:
        raise CorruptEntryError(HEADER, f"{type(error).__name__}: {error}") from error
    if not isinstance(header, dict) or header.get("format") != FORMAT or "object" not in header:
        raise RuntimeError(f"{name} is not a minigrad file: {HEADER} does not describe a minigrad object")
    version = header.get("version")
    if type(version) is not int or not 1 <= version <= VERSION:
        raise RuntimeError(f"{name} has format version {version!r}; this minigrad ({__version__}) reads "
                           f"versions 1 to {VERSION}. Is it from a newer minigrad?")
    _check_fields(header, _HEADER_FIELDS, "the top level", required=("format", "version", "object"))
    return header


def _reject_constant(constant: str) -> None:
    raise CorruptEntryError(HEADER, f"it contains {constant}, which is not JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        repeated = sorted({key for key, _ in pairs if sum(k == key for k, _ in pairs) > 1})
        raise CorruptEntryError(HEADER, f"a JSON object repeats the key {repeated[0]!r}")
    return out


def _check_fields(node: dict, fields: Mapping[str, tuple[type, ...]], where: str,
                  required: tuple[str, ...] | None = None) -> None:
    """``node`` has exactly ``fields`` (besides 'type'), each of its JSON type; a bool is no int."""
    unknown = sorted(set(node) - set(fields) - {"type"})
    if unknown:
        raise CorruptEntryError(HEADER, f"{where} has an unknown field {unknown[0]!r}")
    for key, kinds in fields.items():
        if key not in node:
            if required is None or key in required:
                raise CorruptEntryError(HEADER, f"{where} lacks the field {key!r}")
            continue
        value = node[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            expected = " or ".join(kind.__name__ for kind in kinds)
            raise CorruptEntryError(HEADER, f"{where} needs {key!r} of type {expected}, got {value!r:.80}")


class _Reader:
    """Pass 3: builds the object from JSON nodes, only the types listed in serialization.py."""

    def __init__(self, archive: zipfile.ZipFile, map_location: Any, name: str):
        self.archive = archive
        self.map_location = map_location
        self.name = name
        self.entries = set(archive.namelist())
        self.used: set[str] = set()
        self.loaded: dict[tuple[str, str], Any] = {}  # (type, entry) -> object, for shared tensors

    def decode(self, node: Any) -> Any:
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            raise CorruptEntryError(HEADER, f"expected a node with a 'type', got {str(node):.80}")
        kind = node["type"]
        if kind not in _NODE_FIELDS:
            raise CorruptEntryError(HEADER, f"unknown node type {kind!r:.80}")
        _check_fields(node, _NODE_FIELDS[kind], f"a {kind!r} node")
        if kind == "none":
            return None
        if kind in ("bool", "int", "str"):
            return node["value"]
        if kind == "float":
            return _json_to_float(node["value"])
        if kind in ("list", "tuple"):
            items = [self.decode(item) for item in node["items"]]
            return items if kind == "list" else tuple(items)
        if kind == "dict":
            return self.decode_dict(node)
        if kind == "dtype":
            return _dtype(node["value"])
        if kind == "device":
            return _device(node["value"])
        return self.decode_array_node(node)

    def decode_dict(self, node: dict) -> dict:
        out: dict = OrderedDict() if node["ordered"] else {}
        for pair in node["items"]:
            if not isinstance(pair, list) or len(pair) != 2:
                raise CorruptEntryError(HEADER, f"a dict item must be a [key, value] pair, "
                                                f"got {str(pair):.80}")
            key = self.decode(pair[0])
            if not isinstance(key, _KEY_TYPES):
                raise CorruptEntryError(HEADER, "a dict key must be str, int, float, bool or None, "
                                                f"got {type(key).__name__}")
            if key in out:
                raise CorruptEntryError(HEADER, f"a dict repeats the key {key!r:.80}")
            out[key] = self.decode(pair[1])
        return out

    def decode_array_node(self, node: dict) -> Any:
        kind, entry = node["type"], node["array"]
        if (kind, entry) in self.loaded:
            return self.loaded[kind, entry]
        if entry not in self.entries or not _ARRAY_ENTRY.fullmatch(entry):
            raise CorruptEntryError(entry, f"the array entry of a {kind!r} node is missing")
        if entry in self.used:  # save stores a shared tensor once, always as the same node type
            raise CorruptEntryError(entry, "two different kinds of node refer to this entry")
        self.used.add(entry)
        value: Tensor | numpy.ndarray
        if kind == "tensor":
            dtype = _dtype(node["dtype"])
            if node["requires_grad"] and not dtype.is_floating_point:
                raise CorruptEntryError(HEADER, f"a {dtype.name} tensor can't require grad")
            device = self.target_device(node["device"])
            array = read_npy(self.archive, entry, _Expected(dtype.numpy, _shape(node, entry), native=True))
            if not array.dtype.isnative:  # a file from a machine of the other byte order
                array = array.astype(array.dtype.newbyteorder("="))
            value = Tensor(backend.from_host(array, device))
            if node["requires_grad"]:
                value.requires_grad = True
        else:
            shape = _shape(node, entry) if kind == "ndarray" else ()
            array = read_npy(self.archive, entry, _Expected(node["dtype"], shape, native=False))
            value = array[()] if kind == "numpy_scalar" else array
        self.loaded[kind, entry] = value
        return value

    def target_device(self, saved: str) -> backend.Device:
        """Where a tensor saved on ``saved`` goes, by ``map_location``."""
        source = _device(saved)
        if self.map_location is None:
            target = source
        elif isinstance(self.map_location, dict):
            matches = [new for old, new in self.map_location.items() if _device(old) == source]
            target = backend.Device(matches[0]) if matches else source
        else:
            target = backend.Device(self.map_location)
        if target.type == "cuda" and not backend.cuda_available():
            raise RuntimeError(f"{self.name}: attempting to load a tensor on a CUDA device ({saved}) but "
                               "minigrad.cuda.is_available() is False. If you are running on a CPU-only "
                               "machine, use mg.load(f, map_location='cpu') to load the tensors on the CPU.")
        return target


class _Expected:
    """What the JSON node says an array entry holds: a dtype (a NumPy dtype, or for arrays and
    scalars the ``dtype.str`` that save wrote) and a shape."""

    def __init__(self, dtype: numpy.dtype | str, shape: tuple[int, ...], native: bool):
        self.dtype, self.shape, self.native = dtype, shape, native

    def check(self, entry: str, dtype: numpy.dtype, shape: tuple[int, ...]) -> None:
        # A tensor's dtype may come in either byte order; an array's dtype.str names its own.
        found = dtype.newbyteorder("=") if self.native else dtype.str
        if found != self.dtype:
            raise CorruptEntryError(entry, f"its .npy header says dtype {dtype.str}, minigrad.json says "
                                           f"{self.dtype}")
        if shape != self.shape:
            raise CorruptEntryError(entry, f"its .npy header says shape {list(shape)}, minigrad.json says "
                                           f"{list(self.shape)}")


def read_npy(archive: zipfile.ZipFile, entry: str, expected: _Expected) -> numpy.ndarray:
    """The array in ``entry``, read only after its header agrees with ``expected`` and with the
    entry's size. Object arrays (pickles) are refused from the header, before any data is read."""
    size = archive.getinfo(entry).file_size
    try:
        with archive.open(entry) as stream:
            shape, fortran_order, dtype, header_size = _read_npy_header(stream, entry)
            expected.check(entry, dtype, shape)
            nbytes = math.prod(shape) * dtype.itemsize  # Python integers: no overflow
            if header_size + nbytes != size:
                if header_size + nbytes < size:
                    raise CorruptEntryError(entry, f"the entry has {size - header_size - nbytes} bytes of "
                                                   "data after its array")
                raise CorruptEntryError(entry, f"shape {list(shape)} of {dtype.str} needs {nbytes} bytes, "
                                               f"the entry holds {size - header_size}")
            array = _read_data(stream, entry, dtype, math.prod(shape))
            if stream.read(1):  # cannot happen for a consistent directory; reading on checks the CRC
                raise CorruptEntryError(entry, "the entry has data after its array")
    except CorruptEntryError:
        raise
    except READ_ERRORS as error:
        raise CorruptEntryError(entry, f"{type(error).__name__}: {error}") from error
    return array.reshape(shape, order="F" if fortran_order else "C")


def _read_npy_header(stream: IO[bytes], entry: str) -> tuple[tuple[int, ...], bool, numpy.dtype, int]:
    """Shape, Fortran order, dtype and header length of the .npy file in ``stream`` (NumPy's own
    header parser, which evaluates only literals), checked for what NumPy would accept blindly."""
    version = npy.read_magic(stream)
    if version == (1, 0):
        shape, fortran_order, dtype = npy.read_array_header_1_0(stream, max_header_size=_MAX_NPY_HEADER)
    elif version == (2, 0):
        shape, fortran_order, dtype = npy.read_array_header_2_0(stream, max_header_size=_MAX_NPY_HEADER)
    else:
        raise CorruptEntryError(entry, f".npy format version {version} (mg.save writes 1.0 or 2.0)")
    if dtype.hasobject:
        raise CorruptEntryError(entry, "the array holds Python objects (a pickle); mg.load never unpickles")
    if dtype.itemsize == 0:
        raise CorruptEntryError(entry, f"dtype {dtype.str} has no size")
    if len(shape) > _MAX_DIMS or any(type(n) is not int or n < 0 for n in shape):
        raise CorruptEntryError(entry, f"the .npy header declares an impossible shape {shape!r:.80}")
    return shape, bool(fortran_order), dtype, stream.tell()


def _read_data(stream: IO[bytes], entry: str, dtype: numpy.dtype, count: int) -> numpy.ndarray:
    """``count`` items of ``dtype`` from ``stream``; the caller has checked they fit the entry."""
    array = numpy.empty(count, dtype=dtype)
    view = memoryview(array.view(numpy.uint8))  # type: ignore[arg-type]  # NumPy's stubs: __buffer__ on 3.12+ only
    done = 0
    while done < len(view):
        chunk = stream.read(min(_CHUNK, len(view) - done))
        if not chunk:
            raise CorruptEntryError(entry, f"the entry ends after {done} of {len(view)} data bytes")
        view[done:done + len(chunk)] = chunk
        done += len(chunk)
    return array


def _shape(node: dict, entry: str) -> tuple[int, ...]:
    shape = node["shape"]
    if len(shape) > _MAX_DIMS or any(type(n) is not int or n < 0 for n in shape):
        raise CorruptEntryError(HEADER, f"the node of {entry} has an impossible shape {shape!r:.80}")
    return tuple(shape)


def _json_to_float(value: Any) -> float:
    if value in ("nan", "inf", "-inf") or type(value) in (int, float):
        return float(value)
    raise CorruptEntryError(HEADER, f"not a float: {value!r:.80}")


def _dtype(name: str) -> _dtypes.dtype:
    """The dtype save wrote by its canonical name (an alias such as 'float' is not one)."""
    try:
        found = _dtypes.as_dtype(name)
    except TypeError:
        found = None
    if found is None or found.name != name:
        raise CorruptEntryError(HEADER, f"unknown dtype {name!r:.80}")
    return found


def _device(name: str) -> backend.Device:
    try:
        return backend.Device(name)
    except (RuntimeError, TypeError, ValueError) as error:
        raise CorruptEntryError(HEADER, f"unknown device {name!r:.80}") from error
