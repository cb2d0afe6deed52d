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

__all__ = ["IDX_TYPES", "GzipIdxCheck", "idx_size", "parse_idx", "read_idx", "read_idx_bytes",
           "read_idx_shape"]

IDX_TYPES: dict[int, numpy.dtype] = {  # type code -> big-endian NumPy dtype
    0x08: numpy.dtype(">u1"),
    0x09: numpy.dtype(">i1"),
    0x0B: numpy.dtype(">i2"),
    0x0C: numpy.dtype(">i4"),
    0x0D: numpy.dtype(">f4"),
    0x0E: numpy.dtype(">f8"),
}
_GZIP_MAGIC = b"\x1f\x8b"


def read_idx_bytes(path: str | os.PathLike, max_size: int | None = None) -> bytes:
    """The file's IDX bytes: decompressed when it is gzip, as they are otherwise.

    Raises ``ValueError`` naming the file when its gzip stream is truncated or corrupt, or when
    it holds (or would inflate to) more than ``max_size`` bytes: a gzip bomb is never inflated.
    """
    limit = math.inf if max_size is None else max_size
    with open(path, "rb") as file:
        # deflate's worst case adds 5 bytes per 16 KiB block (stored data) plus a short gzip header
        raw = file.read() if max_size is None else file.read(max_size + max_size // 1000 + 4096)
    if not raw.startswith(_GZIP_MAGIC):
        if len(raw) > limit:
            raise ValueError(f"{os.fspath(path)}: larger than the {max_size} bytes expected")
        return raw
    inflate = zlib.decompressobj(wbits=31)  # 31: a gzip wrapper, whose CRC and length zlib checks
    try:
        data = inflate.decompress(raw, 0 if max_size is None else max_size + 1)  # 0: no limit
    except zlib.error as error:
        raise ValueError(f"{os.fspath(path)}: not a valid gzip file ({error})") from error
    if len(data) > limit:
        raise ValueError(f"{os.fspath(path)}: inflates to more than the {max_size} bytes expected")
    if not inflate.eof or inflate.unused_data:
        problem = "truncated" if not inflate.eof else "data after the end of the gzip stream"
        raise ValueError(f"{os.fspath(path)}: not a valid gzip file ({problem})")
    return data


def read_idx_shape(path: str | os.PathLike) -> tuple[int, ...] | None:
    """The shape an IDX file's header declares (reading only the header, also of a .gz); None
    when the file is too short, corrupt or not IDX (``read_idx_bytes`` then says what is wrong)."""
    with open(path, "rb") as file:
        gzipped = file.read(2) == _GZIP_MAGIC
    try:
        with (gzip.open(path, "rb") if gzipped else open(path, "rb")) as file:
            head = file.read(4)
            if len(head) < 4 or head[:2] != b"\0\0" or head[3] == 0:
                return None
            dims = file.read(4 * head[3])
    except (EOFError, OSError, zlib.error):
        return None
    return struct.unpack(f">{head[3]}I", dims) if len(dims) == 4 * head[3] else None


def idx_size(dtype: numpy.dtype, shape: tuple[int, ...]) -> int:
    """The size in bytes of an IDX file holding an array of this dtype and shape."""
    return 4 + 4 * len(shape) + math.prod(shape) * dtype.itemsize


class GzipIdxCheck:
    """Checks a gzip-compressed IDX file while it downloads, without keeping what it inflates:
    the gzip magic number first, then the IDX header against the expected dtype and shape, and
    never more inflated bytes than that array needs (a 2 MB file of zeros or a gzip bomb stops
    after its first chunk). Each method raises ``ValueError`` saying what is wrong.
    """

    def __init__(self, dtype: numpy.dtype, shape: tuple[int, ...]):
        self.dtype, self.shape = numpy.dtype(dtype), tuple(shape)
        self.size = idx_size(self.dtype, self.shape)
        self.inflate = zlib.decompressobj(wbits=31)
        self.start = b""  # the first bytes of the inflated stream, until the IDX header is checked
        self.inflated = 0
        self.magic_seen = b""

    def update(self, chunk: bytes) -> None:
        if len(self.magic_seen) < 2:
            self.magic_seen += chunk[:2 - len(self.magic_seen)]
            if not _GZIP_MAGIC.startswith(self.magic_seen):
                raise ValueError(f"not a gzip file (it starts with {self.magic_seen.hex()}, "
                                 f"not {_GZIP_MAGIC.hex()})")
        if self.inflate.eof:
            raise ValueError("data after the end of the gzip stream")
        try:
            while chunk:  # inflate at most one more byte than allowed per call, then stop
                out = self.inflate.decompress(chunk, self.size - self.inflated + 1)
                self._take(out)
                chunk = self.inflate.unconsumed_tail
                if self.inflate.eof and (chunk or self.inflate.unused_data):
                    raise ValueError("data after the end of the gzip stream")
        except zlib.error as error:
            raise ValueError(f"not a valid gzip stream ({error})") from error

    def _take(self, out: bytes) -> None:
        self.inflated += len(out)
        if self.inflated > self.size:
            raise ValueError(f"inflates to more than the {self.size} bytes of an IDX file of shape "
                             f"{self.shape}")
        header_size = 4 + 4 * len(self.shape)
        if len(self.start) < header_size:
            self.start += out[:header_size - len(self.start)]
            if len(self.start) == header_size:
                self._check_header()

    def _check_header(self) -> None:
        zero, type_code, ndim = struct.unpack(">HBB", self.start[:4])
        dims = struct.unpack(f">{len(self.shape)}I", self.start[4:])
        if zero != 0 or IDX_TYPES.get(type_code) != self.dtype.newbyteorder(">") or ndim != len(self.shape) \
                or dims != self.shape:
            raise ValueError(f"its IDX header (magic 0x{int.from_bytes(self.start[:4], 'big'):08X}, "
                             f"dimensions {dims}) is not that of {self.dtype} data of shape {self.shape}")

    def finish(self) -> None:
        if not self.inflate.eof:
            raise ValueError("the gzip stream is truncated")
        if self.inflated != self.size:
            raise ValueError(f"inflates to {self.inflated} bytes, an IDX file of shape {self.shape} has "
                             f"{self.size}")


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
