"""The IDX reader on small files written by the tests: plain, gzip, and every kind of damage."""

from __future__ import annotations

import gzip
import struct

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minigrad.data import parse_idx, read_idx

DTYPES = ["uint8", "int8", "int16", "int32", "float32", "float64"]


def _sample(dtype: str, shape: tuple[int, ...], seed: int = 0) -> numpy.ndarray:
    rng = numpy.random.default_rng(seed)
    if dtype.startswith("float"):
        return rng.normal(size=shape).astype(dtype)
    info = numpy.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


def test_plain_uint8_images(tmp_path, make_idx):
    images = _sample("uint8", (4, 28, 28))
    path = tmp_path / "images-idx3-ubyte"
    path.write_bytes(make_idx(images))
    result = read_idx(path)
    assert result.dtype == numpy.uint8
    assert result.shape == (4, 28, 28)
    numpy.testing.assert_array_equal(result, images)


def test_magic_numbers_of_mnist_files_are_what_the_format_says(make_idx):
    """MNIST's images start 0x00000803 and labels 0x00000801: our hand encoder agrees."""
    assert make_idx(numpy.zeros((2, 28, 28), numpy.uint8))[:4] == bytes.fromhex("00000803")
    assert make_idx(numpy.zeros(2, numpy.uint8))[:4] == bytes.fromhex("00000801")


def test_known_bytes_decode_to_known_values(tmp_path):
    """A file spelled out byte by byte: int16, shape (2, 2), big-endian values 1, -2, 258, 32767."""
    data = bytes.fromhex("00000b02" "00000002" "00000002" "0001" "fffe" "0102" "7fff")
    path = tmp_path / "tiny"
    path.write_bytes(data)
    numpy.testing.assert_array_equal(read_idx(path), [[1, -2], [258, 32767]])


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_type_code_round_trips_in_native_byte_order(tmp_path, make_idx, dtype):
    array = _sample(dtype, (3, 5))
    path = tmp_path / "array"
    path.write_bytes(make_idx(array))
    result = read_idx(path)
    assert result.dtype == numpy.dtype(dtype)  # native order, usable at full speed
    assert result.dtype.isnative
    numpy.testing.assert_array_equal(result, array)


def test_gzip_is_detected_by_content_not_by_name(tmp_path, make_idx):
    labels = numpy.array([3, 1, 4, 1, 5], dtype=numpy.uint8)
    compressed = tmp_path / "labels-no-suffix"
    compressed.write_bytes(gzip.compress(make_idx(labels)))
    plain_with_gz_name = tmp_path / "labels.gz"
    plain_with_gz_name.write_bytes(make_idx(labels))
    numpy.testing.assert_array_equal(read_idx(compressed), labels)
    numpy.testing.assert_array_equal(read_idx(plain_with_gz_name), labels)


def test_result_is_writable_and_owns_its_memory(tmp_path, make_idx):
    path = tmp_path / "a"
    path.write_bytes(make_idx(numpy.arange(6, dtype=numpy.uint8).reshape(2, 3)))
    result = read_idx(path)
    result[0, 0] = 9  # a read-only view of the file's bytes would raise here
    assert result[0, 0] == 9


def test_truncated_data_is_refused_naming_the_file(tmp_path, make_idx):
    path = tmp_path / "cut-idx3-ubyte"
    path.write_bytes(make_idx(_sample("uint8", (4, 28, 28)))[:-1])
    with pytest.raises(ValueError, match=r"cut-idx3-ubyte.*truncated"):
        read_idx(path)


def test_truncated_header_is_refused(tmp_path):
    path = tmp_path / "header"
    path.write_bytes(struct.pack(">HBB", 0, 0x08, 3) + struct.pack(">I", 10))  # 1 of 3 sizes
    with pytest.raises(ValueError, match=r"header.*truncated IDX header"):
        read_idx(path)


@pytest.mark.parametrize("data", [b"", b"\x00\x00"], ids=["empty", "two-bytes"])
def test_too_short_files_are_refused(tmp_path, data):
    path = tmp_path / "short"
    path.write_bytes(data)
    with pytest.raises(ValueError, match="too short"):
        read_idx(path)


def test_trailing_bytes_are_refused(tmp_path, make_idx):
    path = tmp_path / "long"
    path.write_bytes(make_idx(numpy.zeros(4, numpy.uint8)) + b"\x00")
    with pytest.raises(ValueError, match=r"long.*1 unexpected bytes"):
        read_idx(path)


@pytest.mark.parametrize("magic", ["12340801", "00010801", "00000800"], ids=["text", "nonzero", "0-dims"])
def test_wrong_magic_is_refused(tmp_path, magic):
    path = tmp_path / "not-idx"
    path.write_bytes(bytes.fromhex(magic) + bytes(16))
    with pytest.raises(ValueError, match=rf"not-idx.*bad IDX magic number 0x{magic.upper()}"):
        read_idx(path)


@pytest.mark.parametrize("code", [0x00, 0x0A, 0x0F, 0xFF])
def test_unknown_type_code_is_refused(tmp_path, code):
    path = tmp_path / "odd-type"
    path.write_bytes(struct.pack(">HBBI", 0, code, 1, 2) + bytes(2))
    with pytest.raises(ValueError, match=rf"odd-type.*unknown IDX type code 0x{code:02X}"):
        read_idx(path)


def test_truncated_gzip_is_refused_naming_the_file(tmp_path, make_idx):
    compressed = gzip.compress(make_idx(_sample("uint8", (20, 28, 28))))
    path = tmp_path / "cut.gz"
    path.write_bytes(compressed[: len(compressed) // 2])
    with pytest.raises(ValueError, match=r"cut\.gz.*not a valid gzip file"):
        read_idx(path)


def test_corrupt_gzip_is_refused(tmp_path, make_idx):
    compressed = bytearray(gzip.compress(make_idx(_sample("uint8", (20, 28, 28)))))
    compressed[len(compressed) // 2] ^= 0xFF  # the deflate stream or its CRC no longer checks out
    path = tmp_path / "flipped.gz"
    path.write_bytes(bytes(compressed))
    with pytest.raises(ValueError, match=r"flipped\.gz.*not a valid gzip file"):
        read_idx(path)


def test_gzip_of_a_truncated_idx_is_refused(tmp_path, make_idx):
    """A well-formed gzip whose content is cut: the size check runs on the decompressed bytes."""
    path = tmp_path / "short-content.gz"
    path.write_bytes(gzip.compress(make_idx(numpy.zeros((3, 4), numpy.uint8))[:-2]))
    with pytest.raises(ValueError, match="truncated"):
        read_idx(path)


def test_parse_idx_names_its_source_in_errors():
    with pytest.raises(ValueError, match="my-buffer"):
        parse_idx(b"\x00\x00\x08\x01\x00\x00\x00\x05abc", name="my-buffer")


@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from(DTYPES),
       shape=st.lists(st.integers(0, 5), min_size=1, max_size=4).map(tuple),
       seed=st.integers(0, 2**16))
def test_any_array_round_trips(make_idx, dtype, shape, seed):
    array = _sample(dtype, shape, seed)
    result = parse_idx(make_idx(array))
    assert result.shape == shape
    numpy.testing.assert_array_equal(result, array)
