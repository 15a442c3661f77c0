"""Tiny generated MNIST-style IDX files for the data tests (no real dataset needed)."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from minitorch_meta.data.idx import write_idx

SPLITS = {"train": 12, "t10k": 5}


def make_images(count: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (count, 28, 28), dtype=np.uint8)


def make_labels(count: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + 1).integers(0, 10, count, dtype=np.uint8)


def write_split_files(folder: Path, compress: bool = True) -> dict:
    """Write the four files of a dataset into ``folder``; returns {name: array}."""
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    suffix = ".gz" if compress else ""
    for seed, (split, count) in enumerate(SPLITS.items()):
        images, labels = make_images(count, seed), make_labels(count, seed)
        write_idx(folder / f"{split}-images-idx3-ubyte{suffix}", images)
        write_idx(folder / f"{split}-labels-idx1-ubyte{suffix}", labels)
        written[f"{split}-images"], written[f"{split}-labels"] = images, labels
    return written


def gzip_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return data if data[:2] == b"\x1f\x8b" else gzip.compress(data)
