"""MNIST / FashionMNIST: finding files, samples, batches, and every mismatch error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.data import datasets, transforms
from minitorch_meta.data.idx import IDXError, write_idx

from .fake_mnist import write_split_files

DEBIAN_FOLDER = Path("/usr/share/datasets/fashion-mnist")


@pytest.fixture()
def no_system_folders(monkeypatch):
    monkeypatch.setattr(datasets.FashionMNIST, "system_folders", ())


@pytest.mark.parametrize("layout", ["raw_folder", "root"])
@pytest.mark.parametrize("compress", [True, False], ids=["gz", "plain"])
def test_files_are_found_and_read(tmp_path, layout, compress):
    folder = tmp_path / "MNIST" / "raw" if layout == "raw_folder" else tmp_path
    written = write_split_files(folder, compress)
    train, test = datasets.MNIST(tmp_path), datasets.MNIST(str(tmp_path), train=False)
    assert (len(train), len(test)) == (12, 5)
    assert train.data.dtype == mt.uint8 and tuple(train.data.shape) == (12, 28, 28)
    assert train.targets.dtype == mt.int64
    np.testing.assert_array_equal(test.data.numpy(), written["t10k-images"])
    np.testing.assert_array_equal(test.targets.numpy(), written["t10k-labels"])


def test_getitem_returns_image_tensor_and_int_label(tmp_path):
    written = write_split_files(tmp_path / "MNIST" / "raw")
    image, label = datasets.MNIST(tmp_path)[3]
    assert tuple(image.shape) == (28, 28) and image.dtype == mt.uint8
    assert isinstance(label, int) and label == written["train-labels"][3]


def test_transforms_apply_to_samples_and_batches_alike(tmp_path):
    write_split_files(tmp_path / "MNIST" / "raw")
    dataset = datasets.MNIST(tmp_path, transform=transforms.Compose(
        [transforms.ToTensor(), transforms.Normalize(0.5, 0.25)]),
        target_transform=transforms.SignedOneHot(10, scale=0.9))
    images, targets = dataset.get_batch(np.array([4, 1]))
    image, target = dataset[1]
    assert tuple(images.shape) == (2, 1, 28, 28) and tuple(targets.shape) == (2, 10)
    np.testing.assert_allclose(images[1].numpy(), image.numpy())
    np.testing.assert_array_equal(targets[1].numpy(), target.numpy())


def test_user_transforms_without_batch_support_run_per_sample(tmp_path):
    write_split_files(tmp_path / "MNIST" / "raw")
    seen = []

    def label_name(label):
        seen.append(label)
        return label * 10

    dataset = datasets.MNIST(tmp_path, target_transform=label_name)
    _, labels = dataset.get_batch(np.array([0, 2]))
    assert all(isinstance(v, int) for v in seen)
    np.testing.assert_array_equal(labels.numpy(), dataset.targets.numpy()[[0, 2]] * 10)


def test_missing_files_say_where_and_what_to_do(tmp_path, no_system_folders):
    with pytest.raises(RuntimeError) as caught:
        datasets.FashionMNIST(tmp_path, train=False)
    message = str(caught.value)
    assert "FashionMNIST test files not found" in message
    assert str(tmp_path / "FashionMNIST" / "raw") in message and "download=True" in message
    assert "dataset-fashion-mnist" in message


def test_image_label_count_mismatch_names_both_files(tmp_path):
    folder = tmp_path / "MNIST" / "raw"
    write_split_files(folder)
    write_idx(folder / "train-labels-idx1-ubyte.gz", np.zeros(11, np.uint8))
    with pytest.raises(RuntimeError, match=r"count mismatch: .*train-images-idx3-ubyte\.gz has "
                                           r"12 images but .*train-labels-idx1-ubyte\.gz has "
                                           r"11 labels"):
        datasets.MNIST(tmp_path)


def test_swapped_files_are_a_rank_error(tmp_path):
    folder = tmp_path / "MNIST" / "raw"
    write_split_files(folder)
    (folder / "train-images-idx3-ubyte.gz").write_bytes(
        (folder / "train-labels-idx1-ubyte.gz").read_bytes())
    with pytest.raises(IDXError, match="expected an IDX file of rank 3 .images. but its header "
                                       "says rank 1"):
        datasets.MNIST(tmp_path)


def test_labels_out_of_range_are_rejected(tmp_path):
    folder = tmp_path / "MNIST" / "raw"
    write_split_files(folder)
    write_idx(folder / "train-labels-idx1-ubyte.gz", np.full(12, 10, np.uint8))
    with pytest.raises(IDXError, match=r"labels must lie in \[0, 10\), found 10"):
        datasets.MNIST(tmp_path)


def test_repr_is_torchvisions(tmp_path):
    write_split_files(tmp_path / "MNIST" / "raw")
    text = repr(datasets.MNIST(tmp_path, train=False))
    assert text.splitlines() == ["Dataset MNIST", "    Number of datapoints: 5",
                                 f"    Root location: {tmp_path}", "    Split: Test"]


@pytest.mark.skipif(not DEBIAN_FOLDER.is_dir(),
                    reason=f"Debian's dataset-fashion-mnist is not installed ({DEBIAN_FOLDER})")
def test_fashion_mnist_loads_from_the_debian_package(tmp_path):
    train = datasets.FashionMNIST(tmp_path)
    test = datasets.FashionMNIST(tmp_path, train=False)
    assert (len(train), len(test)) == (60000, 10000)
    assert tuple(train.data.shape) == (60000, 28, 28)
    assert sorted(np.unique(test.targets.numpy())) == list(range(10))
    assert train.classes[9] == "Ankle boot"
