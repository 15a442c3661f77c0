"""``StackDataset``: several map-style datasets of one length read side by side."""

from __future__ import annotations

from .dataset import Dataset


class StackDataset(Dataset):
    """Sample ``i`` gathers sample ``i`` of every dataset: a tuple for
    ``StackDataset(images, labels)``, a dict for ``StackDataset(image=images, label=labels)``
    (PyTorch's). Any object with ``__len__`` and ``__getitem__`` is a dataset here.

    Raises:
        ValueError: no datasets, both positional and keyword ones, or different lengths.
    """

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or ``dict``- (via "
                             "``kwargs``) like input/output, but both types are given; pass "
                             "the datasets all positionally or all by name")
        datasets = args or tuple(kwargs.values())
        if not datasets:
            raise ValueError("At least one dataset should be passed")
        sizes = [len(d) for d in datasets]
        if len(set(sizes)) != 1:
            raise ValueError(f"Size mismatch between datasets: their lengths are {sizes}; "
                             f"every dataset needs one sample per index")
        self._length = sizes[0]
        self.datasets = args if args else dict(kwargs)

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {name: d[index] for name, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length
