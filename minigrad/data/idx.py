"""The IDX file format of MNIST: a tiny header, then one array's bytes, big-endian.

Layout (all integers big-endian)::

    bytes 0-1   0x00 0x00
    byte  2     element type: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64
    byte  3     number of dimensions d
    4*d bytes   the size of each dimension, as uint32
    the rest    prod(sizes) elements, row-major

So MNIST's images start with the magic number 0x00000803 (uint8, 3 dimensions) and its
labels with 0x00000801. A file may be gzip-compressed; we recognise that by its first
two bytes (0x1f 0x8b), never by its name.
"""

from __future__ import annotations

import gzip
import math
import os
import struct
import zlib

import numpy

__all__ = ["IDX_TYPES", "parse_idx", "read_idx", "read_idx_bytes"]

IDX_TYPES = {  # type code -> big-endian NumPy dtype
    0x08: numpy.dtype(">u1"),
    0x09: numpy.dtype(">i1"),
    0x0B: numpy.dtype(">i2"),
    0x0C: numpy.dtype(">i4"),
    0x0D: numpy.dtype(">f4"),
    0x0E: numpy.dtype(">f8"),
}
_GZIP_MAGIC = b"\x1f\x8b"


def read_idx_bytes(path: str | os.PathLike) -> bytes:
    """The file's IDX bytes: decompressed when it is gzip, as they are otherwise.

    Raises ``ValueError`` naming the file when its gzip stream is truncated or corrupt.
    """
    with open(path, "rb") as file:
        raw = file.read()
    if not raw.startswith(_GZIP_MAGIC):
        return raw
    try:
        return gzip.decompress(raw)
    except (EOFError, OSError, zlib.error) as error:  # EOFError: truncated; the others: corrupt
        raise ValueError(f"{os.fspath(path)}: not a valid gzip file ({error})") from error


def parse_idx(data: bytes, name: str = "<IDX bytes>") -> numpy.ndarray:
    """Decode uncompressed IDX bytes into a native-endian NumPy array of the header's shape.

    The size must match the header exactly: a truncated file, trailing bytes, a bad magic
    number or an unknown type code raise ``ValueError`` with ``name`` in the message.
    """
    if len(data) < 4:
        raise ValueError(f"{name}: too short for an IDX header ({len(data)} bytes)")
    zero, type_code, ndim = struct.unpack(">HBB", data[:4])
    magic = f"0x{int.from_bytes(data[:4], 'big'):08X}"
    if zero != 0 or ndim == 0:
        raise ValueError(f"{name}: bad IDX magic number {magic} (expected 0x000008dd, e.g. 0x00000803)")
    if type_code not in IDX_TYPES:
        known = ", ".join(f"0x{code:02X}" for code in IDX_TYPES)
        raise ValueError(f"{name}: unknown IDX type code 0x{type_code:02X} in magic {magic} "
                         f"(known: {known})")
    header_size = 4 + 4 * ndim
    if len(data) < header_size:
        raise ValueError(f"{name}: truncated IDX header: {ndim} dimensions need {header_size} bytes, "
                         f"the file has {len(data)}")
    shape = struct.unpack(f">{ndim}I", data[4:header_size])
    dtype = IDX_TYPES[type_code]
    expected = header_size + math.prod(shape) * dtype.itemsize
    if len(data) < expected:
        raise ValueError(f"{name}: truncated: the header promises shape {shape} ({expected} bytes), "
                         f"the file has {len(data)} bytes")
    if len(data) > expected:
        raise ValueError(f"{name}: {len(data) - expected} unexpected bytes after the data of shape {shape} "
                         f"({expected} bytes expected)")
    array = numpy.frombuffer(data, dtype=dtype, offset=header_size).reshape(shape)
    return array.astype(dtype.newbyteorder("="))  # a writable copy in the machine's byte order


def read_idx(path: str | os.PathLike) -> numpy.ndarray:
    """Read an IDX file (plain or gzip) into a NumPy array, e.g. MNIST images as uint8 (N, 28, 28).

    Raises ``ValueError`` naming the file when it is truncated, corrupt or not IDX.
    """
    return parse_idx(read_idx_bytes(path), name=os.fspath(path))
