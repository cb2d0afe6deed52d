"""MNIST on the real files in MINIGRAD_DATA or ../shared/data/mnist (skipped, saying so, when in neither).

Expected values come from the shared README (label counts) and from facts about MNIST that
every user of it knows (the first labels; the pixel mean 0.1307 and std 0.3081 used in
countless ``Normalize`` calls) — none is computed by minigrad.
"""

from __future__ import annotations

import gzip
import shutil

import numpy
import pytest

from minigrad.data import MNIST, DataLoader
from minigrad.random import Generator

TRAIN_COUNTS = [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
TEST_COUNTS = [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
NOWHERE = ["http://127.0.0.1:9/"]  # the discard port: any download attempt fails at once


class OfflineMNIST(MNIST):
    mirrors = NOWHERE


@pytest.fixture(scope="module")
def train_set(shared_mnist):
    return OfflineMNIST(shared_mnist, train=True)


@pytest.fixture(scope="module")
def test_set(shared_mnist):
    return OfflineMNIST(shared_mnist, train=False)


def test_train_arrays(train_set):
    assert len(train_set) == 60000
    assert train_set.images.shape == (60000, 28, 28)
    assert train_set.images.dtype == numpy.uint8
    assert train_set.labels.shape == (60000,)
    assert train_set.labels.dtype == numpy.int64
    assert numpy.bincount(train_set.labels).tolist() == TRAIN_COUNTS
    assert train_set.labels[:10].tolist() == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]
    assert train_set.images.min() == 0 and train_set.images.max() == 255
    n = train_set.images.size
    mean = train_set.images.sum(dtype=numpy.int64) / n / 255
    chunks = (chunk.astype(numpy.float64) / 255 for chunk in train_set.images.reshape(60, -1))
    std = numpy.sqrt(sum(chunk @ chunk for chunk in chunks) / n - mean**2)  # no 47M-element temporary
    assert mean == pytest.approx(0.1307, abs=1e-4)
    assert std == pytest.approx(0.3081, abs=1e-4)


def test_test_arrays(test_set):
    assert test_set.images.shape == (10000, 28, 28)
    assert numpy.bincount(test_set.labels).tolist() == TEST_COUNTS
    assert test_set.labels[:10].tolist() == [7, 2, 1, 0, 4, 1, 4, 9, 5, 9]


def test_getitem_is_a_float_image_in_unit_range_and_an_int_label(train_set):
    image, label = train_set[0]
    assert image.shape == (1, 28, 28)
    assert str(image.dtype) == "minigrad.float32"
    assert image.numpy().min() == 0.0 and image.numpy().max() == 1.0
    numpy.testing.assert_array_equal(image.numpy()[0] * 255, train_set.images[0])
    assert type(label) is int and label == 5
    assert train_set[-1][1] == int(train_set.labels[59999])


def test_getitem_rejects_non_integer_index(test_set):
    with pytest.raises(TypeError):
        test_set[1.5]
    with pytest.raises(IndexError):
        test_set[10000]


def test_data_and_targets_tensors(test_set):
    assert test_set.data.shape == (10000, 28, 28)
    assert str(test_set.data.dtype) == "minigrad.uint8"
    numpy.testing.assert_array_equal(test_set.targets.numpy(), test_set.labels)


def test_transforms_apply_to_each_sample(test_set, shared_mnist):
    flat = OfflineMNIST(shared_mnist, train=False, transform=lambda image: image.reshape(784),
                        target_transform=lambda label: label + 100)
    image, label = flat[0]
    numpy.testing.assert_array_equal(image.numpy(), test_set.images[0].reshape(784) / numpy.float32(255))
    assert label == 107
    images, labels = next(iter(DataLoader(flat, batch_size=4)))
    assert labels.tolist() == [107, 102, 101, 100]
    assert images.shape == (4, 784)


def test_loader_batches_match_samples_stacked_one_by_one(test_set):
    loader = DataLoader(test_set, batch_size=32, shuffle=True, generator=Generator().manual_seed(0))
    images, labels = next(iter(loader))
    assert images.shape == (32, 1, 28, 28)
    assert str(images.dtype) == "minigrad.float32"
    assert str(labels.dtype) == "minigrad.int64"
    order = numpy.random.Generator(numpy.random.PCG64(0)).permutation(10000)[:32]
    expected = numpy.stack([test_set[int(i)][0].numpy() for i in order])
    numpy.testing.assert_array_equal(images.numpy(), expected)
    assert labels.tolist() == [test_set[int(i)][1] for i in order]


def test_one_shuffled_epoch_sees_every_sample_once(test_set):
    loader = DataLoader(test_set, batch_size=1000, shuffle=True, generator=Generator().manual_seed(1))
    labels = numpy.concatenate([labels.numpy() for _, labels in loader])
    assert numpy.bincount(labels).tolist() == TEST_COUNTS
    assert len(loader) == 10


# --- copies of the real files in a temporary root -----------------------------------------------

def _copy_test_split(shared, root, plain: bool) -> None:
    for name in ["t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]:
        if plain:
            (root / name).write_bytes(gzip.decompress((shared / f"{name}.gz").read_bytes()))
        else:
            shutil.copy(shared / f"{name}.gz", root / f"{name}.gz")


def test_plain_copies_load_the_same(shared_mnist, tmp_path, test_set):
    _copy_test_split(shared_mnist, tmp_path, plain=True)
    plain = OfflineMNIST(tmp_path, train=False)
    numpy.testing.assert_array_equal(plain.images, test_set.images)
    numpy.testing.assert_array_equal(plain.labels, test_set.labels)


def test_a_flipped_byte_is_caught_naming_the_file(shared_mnist, tmp_path):
    _copy_test_split(shared_mnist, tmp_path, plain=True)
    labels = tmp_path / "t10k-labels-idx1-ubyte"
    data = bytearray(labels.read_bytes())
    data[5000] ^= 0x01  # a label 2 becomes 3 (or similar): shape and header still fine
    labels.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match=rf"{labels}: corrupt: the SHA-256"):
        OfflineMNIST(tmp_path, train=False)


def test_a_flipped_byte_inside_a_recompressed_file_is_caught(shared_mnist, tmp_path):
    _copy_test_split(shared_mnist, tmp_path, plain=False)
    images = tmp_path / "t10k-images-idx3-ubyte.gz"
    data = bytearray(gzip.decompress(images.read_bytes()))
    data[-1] ^= 0xFF
    images.write_bytes(gzip.compress(bytes(data), compresslevel=1))  # a valid gzip, wrong content
    with pytest.raises(RuntimeError, match=rf"{images}: corrupt"):
        OfflineMNIST(tmp_path, train=False)


def test_a_truncated_gzip_is_caught_naming_the_file(shared_mnist, tmp_path):
    _copy_test_split(shared_mnist, tmp_path, plain=False)
    images = tmp_path / "t10k-images-idx3-ubyte.gz"
    images.write_bytes(images.read_bytes()[:100000])
    with pytest.raises(RuntimeError, match=rf"{images}: not a valid gzip file"):
        OfflineMNIST(tmp_path, train=False)


def test_a_file_of_the_wrong_shape_is_caught(shared_mnist, tmp_path):
    _copy_test_split(shared_mnist, tmp_path, plain=False)
    wrong = tmp_path / "t10k-labels-idx1-ubyte.gz"
    shutil.copy(shared_mnist / "train-labels-idx1-ubyte.gz", wrong)  # 60000 labels under the test name
    with pytest.raises(RuntimeError, match=rf"{wrong}: holds an array of shape \(60000,\)"):
        OfflineMNIST(tmp_path, train=False)
