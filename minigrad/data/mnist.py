"""MNIST: 70,000 handwritten digits of 28x28 grey pixels, from the four standard IDX files.

The files live directly in one folder, plain or gzip: ``root=``, else ``$MINIGRAD_DATA``,
else ``~/.cache/minigrad/mnist``. Every load checks each file's header, shape and the
SHA-256 of its decompressed bytes (the same for every correct copy, however it was
compressed), so a truncated or corrupt file is never trained on. Missing files are
downloaded from public mirrors, each checked against its published MD5 before it is kept.
"""

from __future__ import annotations

import hashlib
import operator
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy

from minigrad.creation import from_numpy
from minigrad.data.dataset import Dataset, SampleBatch, _index_array
from minigrad.data.download import download_verified
from minigrad.data.idx import GzipIdxCheck, idx_size, parse_idx, read_idx_bytes, read_idx_shape

__all__ = ["FILES", "MIRRORS", "MNIST", "MNISTFile", "default_root", "find_file", "load_verified"]


@dataclass(frozen=True)
class MNISTFile:
    """One of the four MNIST files: its name (without ``.gz``), array shape and checksums.

    Args:
        name: the file's name without ``.gz`` (``"train-images-idx3-ubyte"``).
        shape: the shape of the array it holds.
        sha256: the SHA-256 of the decompressed IDX bytes.
        md5: the MD5 of the ``.gz`` file the mirrors publish.
    """

    name: str
    shape: tuple[int, ...]
    sha256: str  # of the decompressed IDX bytes: the same for every correct copy
    md5: str  # of the .gz the mirrors publish: checked before a download is kept


MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "http://yann.lecun.com/exdb/mnist/",
)

FILES = {  # split -> (images, labels)
    "train": (
        MNISTFile("train-images-idx3-ubyte", (60000, 28, 28),
                  "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
                  "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        MNISTFile("train-labels-idx1-ubyte", (60000,),
                  "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
                  "d53e105ee54ea40749a09fcbcd1e9432"),
    ),
    "test": (
        MNISTFile("t10k-images-idx3-ubyte", (10000, 28, 28),
                  "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
                  "9fb629c4189551a2d022fa330f9573f3"),
        MNISTFile("t10k-labels-idx1-ubyte", (10000,),
                  "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
                  "ec29112dd5afa0611ce80d1b7f02629c"),
    ),
}

_REPAIR = "Delete it to have it downloaded again, or replace it with a correct copy."
_PIXELS = numpy.dtype(numpy.uint8)  # the element type of all four MNIST files


def default_root() -> Path:
    """``$MINIGRAD_DATA`` when set, else ``~/.cache/minigrad/mnist``."""
    folder = os.environ.get("MINIGRAD_DATA")
    return Path(folder).expanduser() if folder else Path.home() / ".cache" / "minigrad" / "mnist"


def find_file(root: Path, name: str) -> Path | None:
    """``root/name`` or ``root/name.gz``, whichever exists first; None if neither does."""
    for candidate in (root / name, root / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    return None


def load_verified(path: Path, expected: MNISTFile) -> numpy.ndarray:
    """The array in the IDX file at ``path``, after checking its shape and SHA-256 against ``expected``.

    Raises ``RuntimeError`` naming the file on any mismatch.
    """
    declared = read_idx_shape(path)  # from the header alone: nothing is inflated yet
    if declared is not None and declared != expected.shape:
        raise RuntimeError(f"{path}: holds an array of shape {declared}, but {expected.name} has shape "
                           f"{expected.shape}. {_REPAIR}")
    try:
        data = read_idx_bytes(path, max_size=idx_size(_PIXELS, expected.shape))
        array = parse_idx(data, name=str(path))
    except ValueError as error:
        raise RuntimeError(f"{error}. {_REPAIR}") from error
    if array.shape != expected.shape:
        raise RuntimeError(f"{path}: holds an array of shape {array.shape}, but {expected.name} has shape "
                           f"{expected.shape}. {_REPAIR}")
    digest = hashlib.sha256(data).hexdigest()
    if digest != expected.sha256:
        raise RuntimeError(f"{path}: corrupt: the SHA-256 of its {len(data)} decompressed bytes is {digest}, "
                           f"expected {expected.sha256}. {_REPAIR}")
    return array


class MNIST(Dataset):
    """The MNIST training set (60,000 digits) or, with ``train=False``, its test set (10,000).

    ``dataset[i]`` is ``(image, label)``: a float32 tensor of shape (1, 28, 28) with values
    ``pixel / 255`` in [0, 1], and an int in 0..9. For vectorised work, ``.images`` holds all
    images as a uint8 array (N, 28, 28) and ``.labels`` the labels as an int64 array (N,).

    The mirrors and checksums are the class attributes ``mirrors`` and ``files``, so a
    subclass can point elsewhere. Each download from a mirror is bounded by the class
    attributes ``timeout`` (seconds without data), ``deadline`` (seconds in all) and
    ``min_rate`` (bytes per second); a failed mirror is reported before the next is tried.

    Args:
        root: the folder that holds the four IDX files directly (plain or ``.gz``); default
            ``$MINIGRAD_DATA``, else ``~/.cache/minigrad/mnist``.
        train: the training set (True) or the test set (False).
        download: fetch missing files from the mirrors (checked against their checksums).
        transform: applied to each image tensor that ``dataset[i]`` returns.
        target_transform: applied to each label that ``dataset[i]`` returns.
    """

    mirrors: Sequence[str] = MIRRORS
    files: Mapping[str, tuple[MNISTFile, MNISTFile]] = FILES
    timeout: float = 30.0  # seconds a download may wait for data
    deadline: float = 600.0  # seconds a download from one mirror may take in all
    min_rate: float = 20_000.0  # bytes per second a download must average (after its first `timeout` s)
    classes: ClassVar[list[str]] = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four",
               "5 - five", "6 - six", "7 - seven", "8 - eight", "9 - nine"]

    def __init__(self, root: str | os.PathLike | None = None, train: bool = True, download: bool = True,
                 transform: Callable | None = None, target_transform: Callable | None = None):
        self.root = default_root() if root is None else Path(root).expanduser()
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        if self.root.exists() and not self.root.is_dir():
            raise RuntimeError(f"MNIST root {self.root} is a file, not a folder. {self._where_to_put()}")
        image_file, label_file = self.files["train" if train else "test"]
        self.images = self._load(image_file, download)
        self.labels = self._load(label_file, download).astype(numpy.int64)

    def _where_to_put(self) -> str:
        names = ", ".join(spec.name for pair in self.files.values() for spec in pair)
        return (f"Put the MNIST files ({names}; plain or .gz) in {self.root}, or set MINIGRAD_DATA "
                f"to a folder that holds them, or pass root=.")

    def _load(self, expected: MNISTFile, download: bool) -> numpy.ndarray:
        path = find_file(self.root, expected.name)
        if path is None:
            if not download:
                raise RuntimeError(f"MNIST file {expected.name} (or {expected.name}.gz) is not in "
                                   f"{self.root} and download=False. {self._where_to_put()}")
            self._check_writable()
            urls = [f"{mirror.rstrip('/')}/{expected.name}.gz" for mirror in self.mirrors]
            size = idx_size(_PIXELS, expected.shape)
            try:
                path = download_verified(
                    urls, self.root / f"{expected.name}.gz", expected.md5, self.timeout,
                    deadline=self.deadline, min_rate=self.min_rate, max_bytes=size + size // 1000 + 4096,
                    check=lambda: GzipIdxCheck(_PIXELS, expected.shape))
            except RuntimeError as error:
                raise RuntimeError(f"MNIST: {error}\n{self._where_to_put()}") from error
        return load_verified(path, expected)

    def _check_writable(self) -> None:
        """Before downloading: the root must be a folder we can create and write in."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=self.root):
                pass
        except OSError as error:
            raise RuntimeError(f"MNIST can't download into {self.root}: {error.strerror or error}. "
                               f"{self._where_to_put()}") from error

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[Any, int]:
        index = operator.index(index)
        image = from_numpy(self.images[index][None].astype(numpy.float32) / 255)
        label = int(self.labels[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label

    def __getitems__(self, indices: Sequence[int]) -> SampleBatch | list:
        """The samples at ``indices``; without transforms they collate as two whole-array slices."""
        if self.transform is not None or self.target_transform is not None:
            return [self[index] for index in indices]
        return SampleBatch(_index_array(indices, len(self)), self.__getitem__, self._batch)

    def _batch(self, indices: numpy.ndarray) -> list:
        """[images (B, 1, 28, 28) float32 in [0, 1], labels (B,) int64], as default_collate would give."""
        images = self.images[indices][:, None].astype(numpy.float32) / 255
        return [from_numpy(images), from_numpy(self.labels[indices])]

    @property
    def data(self) -> Any:
        """All images as a uint8 tensor (N, 28, 28), sharing memory with ``.images`` (torchvision's name)."""
        return from_numpy(self.images)

    @property
    def targets(self) -> Any:
        """All labels as an int64 tensor (N,), sharing memory with ``.labels`` (torchvision's name)."""
        return from_numpy(self.labels)

    def __repr__(self) -> str:
        return (f"Dataset MNIST\n    Number of datapoints: {len(self)}\n    Root location: {self.root}\n"
                f"    Split: {'Train' if self.train else 'Test'}")
