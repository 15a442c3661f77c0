"""Datasets: ``Dataset`` (the base), ``TensorDataset`` and ``Subset``.

A map-style dataset has ``__len__`` and ``__getitem__(index)`` returning one sample, as in
PyTorch. Our addition: a dataset may also define ``get_batch(indices)``, which returns a
whole batch at once (a tuple of stacked tensors) from a NumPy array of indices;
``DataLoader`` then slices whole batches with NumPy instead of looping over samples in
Python.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..factories import from_numpy
from ..tensor import Tensor


class Dataset:
    """Base class of map-style datasets: subclasses define ``__getitem__`` and ``__len__``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} does not implement __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} does not implement __len__")

    def __add__(self, other: Dataset):
        """``a + b``: a ``ConcatDataset`` of the two, as in PyTorch."""
        from .concat import ConcatDataset

        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    """Samples are rows of the given tensors: ``dataset[i] == (t[i] for t in tensors)``.

    Raises:
        ValueError: no tensors, or tensors whose first dimensions differ.
    """

    def __init__(self, *tensors: Tensor):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        for t in tensors:
            if not isinstance(t, Tensor) or t.dim() == 0:
                raise TypeError(f"TensorDataset takes tensors with a first (sample) dimension, "
                                f"got {_describe(t)}")
        sizes = [t.shape[0] for t in tensors]
        if len(set(sizes)) != 1:
            raise ValueError(f"Size mismatch between tensors: first dimensions are {sizes}; "
                             "every tensor needs one row per sample")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]

    def get_batch(self, indices: np.ndarray) -> tuple:
        """The rows ``indices`` of every tensor (one gather per tensor)."""
        picks = from_numpy(np.ascontiguousarray(indices, dtype=np.int64))
        return tuple(t[picks if t.device.type == "cpu" else picks.to(t.device)]
                     for t in self.tensors)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    Raises:
        IndexError: an index is outside the dataset.
    """

    def __init__(self, dataset: Dataset, indices: Sequence[int]):
        indices = np.asarray(indices, dtype=np.int64).reshape(-1)
        size = len(dataset)
        if indices.size and (indices.min() < -size or indices.max() >= size):
            raise IndexError(f"Subset: indices must lie in [0, {size}) for a dataset of {size} "
                             f"samples, got values from {indices.min()} to {indices.max()}")
        self.dataset = dataset
        self.indices = indices % max(size, 1)

    def __getitem__(self, index):
        return self.dataset[int(self.indices[index])]

    def __len__(self) -> int:
        return len(self.indices)

    def get_batch(self, indices: np.ndarray) -> tuple:
        """The samples at ``indices`` of this subset, fetched in one batch when possible."""
        inner = self.indices[indices]
        if hasattr(self.dataset, "get_batch"):
            return self.dataset.get_batch(inner)
        from .collate import default_collate

        return default_collate([self.dataset[int(i)] for i in inner])


def _describe(value) -> str:
    if isinstance(value, Tensor):
        return f"a 0-d tensor ({value!r})"
    return f"{type(value).__name__}"
