"""Fetchers: turn one task of a ``DataLoader`` (a batch's indices, one index, or "the next
batch" of a stream) into a batch. The loader's own thread and its worker processes use
the same fetchers, so a batch is built the same way wherever it is built.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .collate import default_collate, default_convert
from .iterable import stream_batches


class MapFetcher:
    """Batches of a map-style dataset: ``fetch(indices)`` reads those samples (a whole
    batch at once through ``dataset.get_batch`` when the dataset has it and no
    ``collate_fn`` is given) and merges them; without batching, ``fetch(index)`` converts
    the one sample."""

    def __init__(self, dataset, collate_fn: Callable | None, batched: bool) -> None:
        self.dataset = dataset
        self.collate_fn = collate_fn
        self.batched = batched

    def __call__(self, index):
        if not self.batched:
            return (self.collate_fn or default_convert)(self.dataset[int(index)])
        indices = np.asarray(index, dtype=np.int64)
        if self.collate_fn is None and hasattr(self.dataset, "get_batch"):
            return self.dataset.get_batch(indices)
        return (self.collate_fn or default_collate)([self.dataset[int(i)] for i in indices])


class StreamFetcher:
    """Batches of an ``IterableDataset``, read from one fresh iterator of it: each call
    returns the next batch and raises StopIteration at the end of the stream. The first
    ``first_batch`` batches are read but not collated."""

    def __init__(self, dataset, batch_size: int | None, drop_last: bool,
                 collate_fn: Callable | None, first_batch: int = 0) -> None:
        collate = collate_fn or (default_convert if batch_size is None else default_collate)
        self.batches = stream_batches(dataset, batch_size, drop_last, collate, first_batch)

    def __call__(self, index=None):
        return next(self.batches)
