"""``DataLoader``: iterate over a dataset in batches, optionally shuffled, as PyTorch's.

With ``shuffle=True`` each pass (epoch) draws a new order from ``generator`` (or, without
one, from the default cpu generator that ``manual_seed`` seeds), so runs are reproducible
and epochs differ. Datasets with ``get_batch(indices)`` are sliced a whole batch at a time
with NumPy; others are read sample by sample and merged by ``collate_fn``.

Our addition to PyTorch's signature: ``device=`` moves every tensor of each batch to that
device (``DataLoader(ds, batch_size=64, device="cuda")``). There are no worker processes
(``num_workers``): batches are built in the calling thread.

An ``IterableDataset`` is read in its own order, ``batch_size`` samples per batch, with
no sampler (iterable.py). ``batch_size=None`` turns batching off: each sample comes by
itself, through ``collate_fn`` if given, else ``default_convert``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np

from .. import dtypes
from ..device import to_device
from ..factories import rand
from ..random import Generator
from ..tensor import Tensor
from .collate import default_collate, default_convert
from .dataset import Dataset
from .iterable import IterableDataset, check_loader_options, stream_batches


def permutation(size: int, generator: Generator | None) -> np.ndarray:
    """A random order of ``size`` samples, from ``generator`` (or the default cpu one)."""
    # Sorting uniform float64 keys gives a uniformly random permutation (ties have
    # probability ~n**2 / 2**53) drawn from our own, seedable generators.
    keys = rand(size, generator=generator, dtype=dtypes.float64)
    return np.argsort(keys.numpy(), kind="stable")


class DataLoader:
    """Batches of a map-style or an iterable dataset.

    Args:
        dataset: has ``__len__`` and ``__getitem__`` (and optionally ``get_batch``), or is
            an ``IterableDataset`` (then without ``shuffle``, ``sampler`` and
            ``batch_sampler``).
        batch_size: samples per batch; None for no batching (each sample by itself).
        shuffle: draw a new random order at every pass.
        drop_last: skip the last batch when it is smaller than ``batch_size``.
        sampler: an iterable of indices giving the order (e.g. a ``DistributedSampler``);
            not together with ``shuffle``.
        generator: a cpu ``Generator`` for the order (``Generator().manual_seed(0)``).
        batch_sampler: an iterable of lists of indices, one list per batch (e.g. a
            ``BatchSampler``); not together with ``batch_size``, ``shuffle``, ``sampler`` or
            ``drop_last`` (keyword only here).
        collate_fn: merges a list of samples into a batch (default ``default_collate``);
            when given, the dataset is always read sample by sample.
        device: (our addition) where to put the tensors of each batch.

    Raises:
        ValueError: ``batch_size`` is not a positive integer (or None), ``sampler`` comes
            with ``shuffle=True``, ``batch_sampler`` with another way of making batches,
            ``drop_last`` without a ``batch_size``, or an ``IterableDataset`` with a way of
            choosing indices.
        TypeError: ``generator`` is not a ``Generator``.
    """

    def __init__(self, dataset: Dataset, batch_size: int = 1, shuffle: bool = False,
                 sampler=None, drop_last: bool = False, generator: Generator | None = None,
                 collate_fn: Callable | None = None, *, batch_sampler=None, device=None):
        if batch_sampler is not None:
            if batch_size not in (1, None) or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
        elif batch_size is None:
            if drop_last:
                raise ValueError("batch_size=None option disables auto-batching and is "
                                 "mutually exclusive with drop_last")
        elif isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size!r}")
        if isinstance(dataset, IterableDataset):
            check_loader_options(shuffle, sampler, batch_sampler)
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"generator must be a minitorch_meta.Generator, got "
                            f"{type(generator).__name__}; use Generator().manual_seed(seed)")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle: the sampler "
                             "decides the order (use shuffle=False)")
        self.dataset = dataset
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.generator = generator
        self.collate_fn = collate_fn
        self.device = to_device(device) if device is not None else None

    def __len__(self) -> int:
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        size = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return size
        return size // self.batch_size if self.drop_last else math.ceil(size / self.batch_size)

    def __iter__(self) -> Iterator:
        return self.iter_from(0)

    def iter_from(self, first_batch: int) -> Iterator:
        """(Our addition.) The batches of one pass from number ``first_batch`` on, in the
        same order as ``iter(self)`` would give them, without building the earlier ones:
        a run resumed mid-epoch skips what it already trained on at no cost."""
        if self.batch_sampler is not None:
            # The batch sampler's own order: the earlier batches are drawn (to keep its
            # random stream where a full pass has it), but not fetched.
            for k, batch in enumerate(self.batch_sampler):
                if k >= first_batch:
                    yield self._to_device(self._fetch(np.asarray(batch, dtype=np.int64)))
            return
        if isinstance(self.dataset, IterableDataset):
            collate = self.collate_fn or (
                default_convert if self.batch_size is None else default_collate)
            for batch in stream_batches(self.dataset, self.batch_size, self.drop_last, collate,
                                        first_batch):
                yield self._to_device(batch)
            return
        order = self._order()
        if self.batch_size is None:
            convert = self.collate_fn or default_convert
            for index in order[first_batch:]:
                yield self._to_device(convert(self.dataset[int(index)]))
            return
        for start in range(first_batch * self.batch_size, len(self) * self.batch_size,
                           self.batch_size):
            yield self._to_device(self._fetch(order[start:start + self.batch_size]))

    def _order(self) -> np.ndarray:
        if self.sampler is not None:
            return np.fromiter(iter(self.sampler), dtype=np.int64)
        size = len(self.dataset)
        if not self.shuffle:
            return np.arange(size, dtype=np.int64)
        return permutation(size, self.generator)

    def _fetch(self, indices: np.ndarray):
        if self.collate_fn is None and hasattr(self.dataset, "get_batch"):
            return self.dataset.get_batch(indices)
        collate = self.collate_fn or default_collate
        return collate([self.dataset[int(i)] for i in indices])

    def _to_device(self, batch):
        if self.device is None:
            return batch
        return _move(batch, self.device)


def _move(batch, device):
    if isinstance(batch, Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: _move(value, device) for key, value in batch.items()}
    if isinstance(batch, (tuple, list)):
        moved = [_move(value, device) for value in batch]
        if hasattr(batch, "_fields"):  # a namedtuple takes its fields one by one
            return type(batch)(*moved)
        return type(batch)(moved)
    return batch
