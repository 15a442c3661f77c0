"""``MNIST`` and ``FashionMNIST``: 28x28 grayscale images of 10 classes, as torchvision's.

The four IDX files (``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte`` and the
``t10k-`` pair, each raw or gzip) are looked for, in order, in ``ROOT/<Name>/raw``, in
``ROOT`` itself and in the folders where system packages install them (Fashion-MNIST:
``/usr/share/datasets/fashion-mnist``, from Debian's ``dataset-fashion-mnist``). With
``download=True`` missing files are fetched into ``ROOT/<Name>/raw`` from the mirrors,
each checked against its published MD5.

``dataset[i]`` is ``(image, label)``: a uint8 tensor (28, 28) and an int, each passed through
``transform`` / ``target_transform`` when given. ``data`` (uint8, (N, 28, 28)) and
``targets`` (int64, (N,)) hold the whole split as tensors, as in torchvision.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..factories import from_numpy
from .dataset import Dataset
from .download import download_file
from .idx import IDXError, read_idx


class MNIST(Dataset):
    """LeCun's handwritten digits: 60,000 training and 10,000 test images.

    Args:
        root: the dataset folder (files in ``root/MNIST/raw`` or ``root``).
        train: the training split, else the test split.
        transform: applied to each image (and to whole batches by ``get_batch`` when it has
            ``applies_to_batches``).
        target_transform: applied to each label likewise.
        download: fetch missing files from ``mirrors``.
        mirrors: base URLs to download from, in order (default: the class's ``mirrors``).

    Raises:
        RuntimeError: the files are missing (the message says where they were looked for and
            how to get them), or images and labels do not match.
        IDXError: a file is corrupt or truncated.
        DownloadError: ``download=True`` and no mirror delivered a file.
    """

    mirrors: Sequence[str] = ("https://ossci-datasets.s3.amazonaws.com/mnist/",
                              "http://yann.lecun.com/exdb/mnist/")
    resources: Sequence[tuple[str, str]] = (
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    )
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five",
               "6 - six", "7 - seven", "8 - eight", "9 - nine"]
    #: Folders searched after ``root`` (those of system packages).
    system_folders: Sequence[str] = ()
    #: How to get the files without downloading, for the error message.
    install_hint = ""

    def __init__(self, root: str | os.PathLike, train: bool = True,
                 transform: Callable | None = None, target_transform: Callable | None = None,
                 download: bool = False, mirrors: Sequence[str] | None = None):
        self.root = Path(root).expanduser()
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        image_file, label_file = self._files(download, mirrors)
        images = read_idx(image_file, rank=3)
        labels = read_idx(label_file, rank=1)
        _check_pair(image_file, images, label_file, labels, len(self.classes))
        self.data = from_numpy(images)
        self.targets = from_numpy(labels.astype(np.int64))

    @property
    def raw_folder(self) -> Path:
        return self.root / type(self).__name__ / "raw"

    @property
    def class_to_idx(self) -> dict[str, int]:
        return {name: index for index, name in enumerate(self.classes)}

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, index: int):
        image, label = self.data[index], int(self.targets[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label

    def get_batch(self, indices: np.ndarray) -> tuple:
        """The samples at ``indices`` as ``(images, labels)``, gathered in one NumPy step.

        Transforms without ``applies_to_batches`` are applied sample by sample.
        """
        images = from_numpy(self.data.numpy()[indices])
        labels = from_numpy(self.targets.numpy()[indices])
        images = _apply(self.transform, images, list)
        labels = _apply(self.target_transform, labels, lambda batch: batch.tolist())
        return images, labels

    def __repr__(self) -> str:
        split = "Train" if self.train else "Test"
        lines = [f"Dataset {type(self).__name__}", f"    Number of datapoints: {len(self)}",
                 f"    Root location: {self.root}", f"    Split: {split}"]
        for name in ("transform", "target_transform"):
            if getattr(self, name) is not None:
                lines.append(f"    {name}: {getattr(self, name)!r}")
        return "\n".join(lines)

    # -- finding and fetching the files ------------------------------------------------
    def _split_resources(self) -> list[tuple[str, str]]:
        prefix = "train-" if self.train else "t10k-"
        return [(name, md5) for name, md5 in self.resources if name.startswith(prefix)]

    def search_folders(self) -> list[Path]:
        """Where the files are looked for, in order."""
        return [self.raw_folder, self.root, *map(Path, self.system_folders)]

    def _files(self, download: bool, mirrors: Sequence[str] | None) -> tuple[Path, Path]:
        wanted = self._split_resources()
        for folder in self.search_folders():
            found = [_existing(folder, name) for name, _ in wanted]
            if all(found):
                return found[0], found[1]
        if not download:
            raise RuntimeError(self._missing_message())
        mirrors = self.mirrors if mirrors is None else mirrors
        got = [download_file(name, md5, self.raw_folder, mirrors, hint=self._what_to_do())
               for name, md5 in wanted]
        return got[0], got[1]

    def _what_to_do(self) -> str:
        names = ", ".join(name for name, _ in self.resources)
        ways = [self.install_hint] if self.install_hint else []
        ways.append(f"put the files {names} (gzip or not) in {self.raw_folder}")
        return "To get the data without network access, " + ", or ".join(ways) + "."

    def _missing_message(self) -> str:
        names = " and ".join(name.removesuffix(".gz") for name, _ in self._split_resources())
        folders = ", ".join(str(f) for f in self.search_folders())
        return (f"{type(self).__name__} {'training' if self.train else 'test'} files not found: "
                f"looked for {names} (raw or .gz) in {folders}. Pass download=True to fetch "
                f"them. {self._what_to_do()}")


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: 60,000 training and 10,000 test images of clothing.

    Found without downloading where Debian's ``dataset-fashion-mnist`` package installs it.
    Arguments and errors are those of ``MNIST``.
    """

    mirrors = ("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
               "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/"
               "fashion/")
    resources = (
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    )
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
               "Sneaker", "Bag", "Ankle boot"]
    system_folders = ("/usr/share/datasets/fashion-mnist",)
    install_hint = "install the Debian package dataset-fashion-mnist (sudo apt install " \
                   "dataset-fashion-mnist)"


def _existing(folder: Path, name: str) -> Path | None:
    """``folder/name`` or ``folder/name`` without ``.gz``, whichever exists."""
    for candidate in (folder / name, folder / name.removesuffix(".gz")):
        if candidate.is_file():
            return candidate
    return None


def _check_pair(image_file: Path, images: np.ndarray, label_file: Path, labels: np.ndarray,
                num_classes: int) -> None:
    if images.dtype != np.uint8 or labels.dtype != np.uint8:
        raise IDXError(f"{image_file} and {label_file}: expected uint8 images and labels, got "
                       f"{images.dtype} and {labels.dtype}")
    if len(images) != len(labels):
        raise RuntimeError(f"image/label count mismatch: {image_file} has {len(images)} images "
                           f"but {label_file} has {len(labels)} labels")
    if labels.size and labels.max() >= num_classes:
        raise IDXError(f"{label_file}: labels must lie in [0, {num_classes}), found "
                       f"{labels.max()}")


def _apply(transform: Callable | None, batch, samples: Callable):
    """Transform a batch at once if the transform allows it, else each of its ``samples``."""
    if transform is None:
        return batch
    if getattr(transform, "applies_to_batches", False):
        return transform(batch)
    from .collate import default_collate

    return default_collate([transform(sample) for sample in samples(batch)])
