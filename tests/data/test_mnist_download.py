"""Downloading MNIST from mirrors, against a loopback HTTP server serving a 5-image stand-in.

The mirrors and checksums are injected through a subclass, as a user pointing at their own
mirror would; nothing here leaves 127.0.0.1.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import os
from pathlib import Path

import numpy
import pytest

from minigrad.data import MNIST
from minigrad.data import download as download_module
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
