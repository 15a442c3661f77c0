"""A tiny MNIST-format dataset in IDX files, made for the training tests."""

from __future__ import annotations

import numpy as np
import pytest

from minitorch_meta.data import write_idx


def make_idx_dataset(folder, n_train: int = 96, n_test: int = 32, seed: int = 0):
    """Four gzip IDX files of 28x28 images whose class is visible (a bright row per class)."""
    rng = np.random.default_rng(seed)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, size=n).astype(np.uint8)
        images = rng.integers(0, 60, size=(n, 28, 28)).astype(np.uint8)
        images[np.arange(n), 2 + 2 * labels, :] = 255  # learnable: the class is a row
        write_idx(folder / f"{prefix}-images-idx3-ubyte.gz", images)
        write_idx(folder / f"{prefix}-labels-idx1-ubyte.gz", labels)
    return folder


@pytest.fixture
def idx_dataset(tmp_path):
    folder = tmp_path / "tiny"
    folder.mkdir()
    return make_idx_dataset(folder)
