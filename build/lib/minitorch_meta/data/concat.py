"""``ConcatDataset``: several map-style datasets read as one, one after the other."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable

from .dataset import Dataset


class ConcatDataset(Dataset):
    """The samples of ``datasets[0]``, then those of ``datasets[1]``, ... (PyTorch's).

    ``cumulative_sizes[i]`` is how many samples the first ``i + 1`` datasets hold.

    Raises:
        AssertionError: no datasets (PyTorch's type).
        IndexError: an index past the end; ValueError: a negative index past the start.
    """

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int):
        size = len(self)
        if index < 0:
            if -index > size:
                raise ValueError(f"absolute value of index should not exceed dataset length "
                                 f"(index {index} for {size} samples)")
            index += size
        if index >= size:
            raise IndexError(f"index {index} is out of range for a ConcatDataset of {size} "
                             f"samples")
        part = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[part - 1] if part else 0
        return self.datasets[part][index - start]
