"""Iterable-style datasets: ``IterableDataset`` (a stream of samples), ``ChainDataset``
(several streams, one after the other) and ``get_worker_info``.

A ``DataLoader`` over an ``IterableDataset`` has no sampler: it reads the dataset's
iterator in order and groups ``batch_size`` samples per batch (the last one shorter
unless ``drop_last``). With worker processes each worker reads its own copy of the
stream: an iterator that shards itself with ``get_worker_info()`` (worker_info.py), as
PyTorch's documentation shows, reads each sample once; otherwise every worker gives the
whole stream.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator

from .dataset import Dataset
from .worker_info import get_worker_info

__all__ = ["ChainDataset", "IterableDataset", "check_loader_options", "get_worker_info",
           "stream_batches"]


class IterableDataset(Dataset):
    """Base class of datasets read as a stream: subclasses define ``__iter__`` (and may
    define ``__len__``). ``a + b`` chains two of them (``ChainDataset``)."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError(f"{type(self).__name__} does not implement __iter__")

    def __len__(self) -> int:
        # A TypeError, as for an object without ``__len__``: ``list(loader)`` then just
        # does without a length hint, and ``len(loader)`` says the stream has no length.
        raise TypeError(f"object of type '{type(self).__name__}' has no len(): define "
                        f"__len__ on the dataset to give its DataLoader a length")

    def __add__(self, other: Dataset):
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """The samples of each iterable dataset in ``datasets``, one dataset after the other
    (read lazily: ``datasets`` may be a generator, consumed once).

    Raises:
        AssertionError: on iteration or ``len()``, a member is not an ``IterableDataset``
            (PyTorch's type).
    """

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator:
        for dataset in self.datasets:
            _require_iterable(dataset)
            yield from dataset

    def __len__(self) -> int:
        total = 0
        for dataset in self.datasets:
            _require_iterable(dataset)
            total += len(dataset)
        return total


def _require_iterable(dataset) -> None:
    if not isinstance(dataset, IterableDataset):
        raise AssertionError(f"ChainDataset only supports IterableDataset, got "
                             f"{type(dataset).__name__}")


def check_loader_options(shuffle, sampler, batch_sampler) -> None:
    """A stream has no indices: refuse the ``DataLoader`` options that choose some."""
    for name, value, unset in (("shuffle", shuffle, False), ("sampler", sampler, None),
                               ("batch_sampler", batch_sampler, None)):
        if value not in (unset, None):
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} "
                             f"option, but got {name}={value!r}")


def stream_batches(dataset: IterableDataset, batch_size: int | None, drop_last: bool,
                   collate: Callable, first_batch: int = 0) -> Iterator:
    """The batches of one pass over ``dataset``: ``batch_size`` samples each merged by
    ``collate`` (each sample by itself when ``batch_size`` is None). The first
    ``first_batch`` batches are read from the stream but not collated."""
    samples = iter(dataset)
    if batch_size is None:
        yield from map(collate, itertools.islice(samples, first_batch, None))
        return
    for _ in itertools.islice(samples, first_batch * batch_size):
        pass
    while True:
        batch = list(itertools.islice(samples, batch_size))
        if not batch or (drop_last and len(batch) < batch_size):
            return
        yield collate(batch)
