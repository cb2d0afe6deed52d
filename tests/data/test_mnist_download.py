"""Downloading MNIST from mirrors, against a loopback HTTP server serving a 5-image stand-in.

The mirrors and checksums are injected through a subclass, as a user pointing at their own
mirror would; nothing here leaves 127.0.0.1.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import os
import re
import struct
import time
import tracemalloc
import zlib
from pathlib import Path

import numpy
import pytest

from minigrad.data import MNIST
from minigrad.data import download as download_module
from minigrad.data import mnist as mnist_module
from minigrad.data.mnist import default_root

TRAIN = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte"]


def mnist_class(mirrors, files):
    return type("TinyMNIST", (MNIST,), {"mirrors": mirrors, "files": files, "timeout": 5.0})


def serve(server, folder: str, tiny, how: str = "good") -> str:
    """Route ``/<folder>/<name>.gz`` for the four files; return the mirror's URL.

    how: 'good' bytes; 'corrupt' (one byte flipped); 'short' (a complete response holding the
    first half of the file); 'cut' (full length announced, connection closed halfway).
    """
    for name, body in tiny["gz"].items():
        if how == "corrupt":
            body = bytearray(body)
            body[len(body) // 2] ^= 0x01
            body = bytes(body)
        elif how == "short":
            body = body[: len(body) // 2]
        server.routes[f"/{folder}/{name}.gz"] = (body, "cut" if how == "cut" else "good")
    return f"{server.url}/{folder}/"


def files_in(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def test_good_mirror_downloads_verifies_and_saves(tmp_path, mirror_server, tiny):
    root = tmp_path / "new" / "mnist"  # does not exist yet
    good = serve(mirror_server, "good", tiny)
    dataset = mnist_class([good], tiny["files"])(root)
    numpy.testing.assert_array_equal(dataset.images, tiny["arrays"]["train-images-idx3-ubyte"])
    numpy.testing.assert_array_equal(dataset.labels, [5, 0, 4, 1, 9])
    assert dataset.labels.dtype == numpy.int64
    assert files_in(root) == [f"{name}.gz" for name in TRAIN]  # only the split asked for, nothing partial
    for name in TRAIN:
        assert (root / f"{name}.gz").read_bytes() == tiny["gz"][name]


def test_test_split_downloads_its_own_files(tmp_path, mirror_server, tiny):
    good = serve(mirror_server, "good", tiny)
    dataset = mnist_class([good], tiny["files"])(tmp_path, train=False)
    numpy.testing.assert_array_equal(dataset.labels, [7, 2, 1])
    assert files_in(tmp_path) == ["t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"]


@pytest.mark.parametrize("how", ["corrupt", "short", "cut"])
def test_a_bad_mirror_is_skipped_for_the_next(tmp_path, mirror_server, tiny, how):
    bad = serve(mirror_server, "bad", tiny, how)
    good = serve(mirror_server, "good", tiny)
    dataset = mnist_class([bad, good], tiny["files"])(tmp_path)
    numpy.testing.assert_array_equal(dataset.labels, [5, 0, 4, 1, 9])
    first_file = f"{TRAIN[0]}.gz"
    assert mirror_server.requests[:2] == [f"/bad/{first_file}", f"/good/{first_file}"]
    assert files_in(tmp_path) == [f"{name}.gz" for name in TRAIN]
    assert (tmp_path / first_file).read_bytes() == tiny["gz"][TRAIN[0]]


@pytest.mark.parametrize("how", ["corrupt", "short", "cut"])
def test_a_bad_download_is_never_kept(tmp_path, mirror_server, tiny, how):
    bad = serve(mirror_server, "bad", tiny, how)
    with pytest.raises(RuntimeError, match=f"could not download {TRAIN[0]}.gz"):
        mnist_class([bad], tiny["files"])(tmp_path)
    assert files_in(tmp_path) == []


def test_all_mirrors_bad_error_names_each_mirror_and_where_to_put_files(
        tmp_path, mirror_server, tiny, closed_port_url):
    mirrors = [serve(mirror_server, "corrupt", tiny, "corrupt"), serve(mirror_server, "cut", tiny, "cut"),
               f"{mirror_server.url}/missing/", f"{closed_port_url}/refused/"]
    with pytest.raises(RuntimeError) as caught:
        mnist_class(mirrors, tiny["files"])(tmp_path)
    message = str(caught.value)
    for mirror in mirrors:
        assert f"{mirror}{TRAIN[0]}.gz" in message
    assert "not a valid gzip stream (Error -3" in message  # why the corrupt one was refused: its gzip CRC
    assert "404" in message
    assert str(tmp_path) in message and "MINIGRAD_DATA" in message
    assert files_in(tmp_path) == []


def test_offline_with_nothing_cached_says_where_to_put_the_files(tmp_path, closed_port_url, tiny):
    root = tmp_path / "empty"
    with pytest.raises(RuntimeError) as caught:
        mnist_class([f"{closed_port_url}/"], tiny["files"])(root)
    message = str(caught.value)
    assert f"in {root}" in message
    assert "MINIGRAD_DATA" in message
    assert all(name in message for name in TRAIN)
    assert files_in(root) == []


def test_download_false_never_touches_the_network(tmp_path, mirror_server, tiny):
    good = serve(mirror_server, "good", tiny)
    with pytest.raises(RuntimeError, match=r"is not in .* and download=False.*MINIGRAD_DATA"):
        mnist_class([good], tiny["files"])(tmp_path, download=False)
    assert mirror_server.requests == []


def test_cached_files_are_not_downloaded_again(tmp_path, mirror_server, tiny):
    good = serve(mirror_server, "good", tiny)
    tiny_mnist = mnist_class([good], tiny["files"])
    tiny_mnist(tmp_path)
    requests = len(mirror_server.requests)
    again = tiny_mnist(tmp_path)
    assert len(mirror_server.requests) == requests == 2
    numpy.testing.assert_array_equal(again.labels, [5, 0, 4, 1, 9])


def test_plain_files_already_in_root_are_used(tmp_path, closed_port_url, tiny):
    for name in TRAIN:
        (tmp_path / name).write_bytes(tiny["raw"][name])
    dataset = mnist_class([f"{closed_port_url}/"], tiny["files"])(tmp_path)
    numpy.testing.assert_array_equal(dataset.images, tiny["arrays"][TRAIN[0]])


def test_interrupted_write_leaves_nothing_behind(tmp_path, mirror_server, tiny, monkeypatch):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(download_module.os, "replace", interrupted)
    good = serve(mirror_server, "good", tiny)
    with pytest.raises(KeyboardInterrupt):
        mnist_class([good], tiny["files"])(tmp_path)
    assert files_in(tmp_path) == []


def test_write_atomically_replaces_an_existing_file(tmp_path):
    target = tmp_path / "file.gz"
    target.write_bytes(b"old")
    download_module.write_atomically(target, b"new contents")
    assert target.read_bytes() == b"new contents"
    assert files_in(tmp_path) == ["file.gz"]
    assert os.stat(target).st_mode & 0o777 == 0o644


def test_a_downloaded_file_that_fails_its_content_check_is_reported(tmp_path, mirror_server, tiny):
    """MD5 matches (the table says so) but the content is not the expected IDX: caught while streaming."""
    wrong = gzip.compress(tiny["raw"]["t10k-images-idx3-ubyte"], mtime=0)  # 3 images, not 5
    images, labels = tiny["files"]["train"]
    lying = {"train": (dataclasses.replace(images, md5=hashlib.md5(wrong).hexdigest()), labels)}
    mirror_server.routes[f"/m/{images.name}.gz"] = (wrong, "good")
    with pytest.raises(RuntimeError, match=rf"{images.name}\.gz: wrong content .*dimensions \(3, 28, 28\)"):
        mnist_class([f"{mirror_server.url}/m/"], lying)(tmp_path)
    assert files_in(tmp_path) == []


def test_default_root_follows_minigrad_data(monkeypatch, tmp_path):
    monkeypatch.setenv("MINIGRAD_DATA", str(tmp_path / "mine"))
    assert default_root() == tmp_path / "mine"
    monkeypatch.delenv("MINIGRAD_DATA")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_root() == tmp_path / ".cache" / "minigrad" / "mnist"


def test_root_none_reads_minigrad_data(monkeypatch, tmp_path, tiny, closed_port_url):
    for name in TRAIN:
        (tmp_path / f"{name}.gz").write_bytes(tiny["gz"][name])
    monkeypatch.setenv("MINIGRAD_DATA", str(tmp_path))
    dataset = mnist_class([f"{closed_port_url}/"], tiny["files"])()
    assert dataset.root == tmp_path
    numpy.testing.assert_array_equal(dataset.labels, [5, 0, 4, 1, 9])


# --- bounded time, progress, streaming checks, unusable roots --------------------------------

def impatient_class(mirrors, files, **limits):
    """A TinyMNIST whose limits are short enough for a test: 0.5 s without data, 4 s in all."""
    return type("ImpatientMNIST", (MNIST,), {"mirrors": mirrors, "files": files, "timeout": 0.5,
                                             "deadline": 4.0, "min_rate": 0.0, **limits})


def test_a_trickling_mirror_is_abandoned_for_being_too_slow(tmp_path, mirror_server, tiny, capsys):
    """One byte every 0.05 s never trips a read timeout; the minimum rate stops it."""
    slow = serve(mirror_server, "slow", tiny)
    for route in list(mirror_server.routes):
        mirror_server.routes[route] = (mirror_server.routes[route][0], "trickle")
    good = serve(mirror_server, "good", tiny)
    started = time.monotonic()
    dataset = impatient_class([slow, good], tiny["files"], min_rate=1000.0)(tmp_path)
    assert time.monotonic() - started < 6.0  # two files, each giving up on the slow mirror after ~0.5 s
    numpy.testing.assert_array_equal(dataset.labels, [5, 0, 4, 1, 9])
    err = capsys.readouterr().err
    failed = err.index("failed: too slow")
    assert err.index(f"Downloading {slow}{TRAIN[0]}.gz") < failed
    assert failed < err.index(f"Downloading {good}{TRAIN[0]}.gz")
    assert "below the minimum rate of 1000 bytes/s; trying the next mirror" in err


def test_a_trickling_mirror_fails_at_the_deadline(tmp_path, mirror_server, tiny):
    slow = serve(mirror_server, "slow", tiny)
    for route in list(mirror_server.routes):
        mirror_server.routes[route] = (mirror_server.routes[route][0], "trickle")
    started = time.monotonic()
    with pytest.raises(RuntimeError, match=r"still running after the deadline of 1 s \(\d+ bytes received\)"):
        impatient_class([slow], tiny["files"], deadline=1.0)(tmp_path)
    assert time.monotonic() - started < 5.0
    assert files_in(tmp_path) == []


def test_stalled_mirrors_fail_after_the_timeout_each(tmp_path, mirror_server, tiny):
    mirrors = []
    for folder in ["a", "b", "c"]:
        mirrors.append(serve(mirror_server, folder, tiny))
        for route in [r for r in mirror_server.routes if r.startswith(f"/{folder}/")]:
            mirror_server.routes[route] = (mirror_server.routes[route][0], "stall")
    started = time.monotonic()
    with pytest.raises(RuntimeError) as caught:
        impatient_class(mirrors, tiny["files"])(tmp_path)
    assert time.monotonic() - started < 6.0  # three mirrors of 0.5 s each, not 3 x 30 s
    assert str(caught.value).count("no data for 0.5 s (stalled after 10 bytes)") == 3
    assert files_in(tmp_path) == []


def test_the_progress_bar_shows_bytes_and_rate(tmp_path, mirror_server, tiny, capsys):
    good = serve(mirror_server, "good", tiny)
    mnist_class([good], tiny["files"])(tmp_path)
    err = capsys.readouterr().err
    size = len(tiny["gz"][TRAIN[0]]) / 1024
    assert f"{TRAIN[0]}.gz:" in err and f"/{size:.2f}k" in err and "B/s" in err


def serve_body(server, body: bytes, how: str = "good") -> str:
    for name in TRAIN:
        server.routes[f"/odd/{name}.gz"] = (body, how)
    return f"{server.url}/odd/"


def test_a_file_of_zeros_is_refused_at_its_first_bytes(tmp_path, mirror_server, tiny):
    mirror = serve_body(mirror_server, bytes(2 * 2**20), "unannounced")
    with pytest.raises(RuntimeError, match=r"wrong content after (\d+) bytes: not a gzip file "
                                           r"\(it starts with 0000, not 1f8b\)") as caught:
        mnist_class([mirror], tiny["files"])(tmp_path)
    assert int(re.search(r"after (\d+) bytes", str(caught.value)).group(1)) <= 2**16  # the first chunk
    assert files_in(tmp_path) == []


def gzip_bomb(inflated: int, start: bytes = b"") -> bytes:
    """A valid gzip of ``start`` and ``inflated`` zero bytes, built without holding them in memory."""
    pack = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(2**20)
    parts = [pack.compress(start)] + [pack.compress(zeros) for _ in range(inflated // len(zeros))]
    return b"".join(parts) + pack.flush()


@pytest.fixture(scope="module")
def bomb():
    return gzip_bomb(2**27)  # 128 MiB of zeros in about 128 KiB


def test_a_gzip_bomb_is_refused_by_its_announced_size(tmp_path, mirror_server, tiny, bomb):
    mirror = serve_body(mirror_server, bomb)
    with pytest.raises(RuntimeError, match=rf"announces {len(bomb)} bytes, more than the \d+ this file"):
        mnist_class([mirror], tiny["files"])(tmp_path)


def test_an_unannounced_gzip_bomb_is_never_inflated(tmp_path, mirror_server, tiny, bomb):
    header = struct.pack(">HBBIII", 0, 8, 3, 5, 28, 28)  # a correct header, then far too much data
    mirror = serve_body(mirror_server, gzip_bomb(2**27, header), "unannounced")
    tracemalloc.start()
    try:
        with pytest.raises(RuntimeError, match=r"inflates to more than the 3936 bytes of an IDX file"):
            mnist_class([mirror], tiny["files"])(tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20
    assert files_in(tmp_path) == []


def test_a_bomb_already_in_root_is_never_inflated(tmp_path, tiny, bomb, closed_port_url):
    (tmp_path / f"{TRAIN[0]}.gz").write_bytes(bomb)
    tracemalloc.start()
    try:
        with pytest.raises(RuntimeError, match=rf"{TRAIN[0]}.gz: inflates to more than the 3936 bytes"):
            mnist_class([f"{closed_port_url}/"], tiny["files"])(tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20


def test_a_gzip_that_inflates_past_its_header_is_refused_while_streaming(tmp_path, mirror_server, tiny):
    longer = gzip.compress(tiny["raw"][TRAIN[0]] + bytes(100), mtime=0)
    images, labels = tiny["files"]["train"]
    lying = {"train": (dataclasses.replace(images, md5=hashlib.md5(longer).hexdigest()), labels)}
    mirror_server.routes[f"/m/{images.name}.gz"] = (longer, "good")
    with pytest.raises(RuntimeError, match="inflates to more than the 3936 bytes of an IDX file"):
        mnist_class([f"{mirror_server.url}/m/"], lying)(tmp_path)


def test_a_root_that_is_a_file_is_reported_before_downloading(tmp_path, mirror_server, tiny):
    good = serve(mirror_server, "good", tiny)
    root = tmp_path / "mnist"
    root.write_text("not a folder")
    with pytest.raises(RuntimeError, match=rf"MNIST root {root} is a file, not a folder.*MINIGRAD_DATA"):
        mnist_class([good], tiny["files"])(root)
    with pytest.raises(RuntimeError, match="can't download into .*MINIGRAD_DATA"):
        mnist_class([good], tiny["files"])(root / "below")
    assert mirror_server.requests == []


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="needs POSIX permissions that bind the user")
def test_a_read_only_root_is_reported_before_downloading(tmp_path, mirror_server, tiny):
    good = serve(mirror_server, "good", tiny)
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(RuntimeError, match=rf"can't download into {tmp_path}: Permission denied"):
            mnist_class([good], tiny["files"])(tmp_path)
    finally:
        tmp_path.chmod(0o755)
    assert mirror_server.requests == []


def test_an_unwritable_root_is_reported_before_downloading(tmp_path, mirror_server, tiny, monkeypatch):
    """The same check where permissions can't be taken away (root, Windows): writing is refused."""
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(mnist_module.tempfile, "TemporaryFile", refuse)
    good = serve(mirror_server, "good", tiny)
    with pytest.raises(RuntimeError, match=rf"can't download into {tmp_path}: Permission denied.*root="):
        mnist_class([good], tiny["files"])(tmp_path)
    assert mirror_server.requests == []
