"""``DataLoader``: iterate over a dataset in batches, optionally shuffled, as PyTorch's.

With ``shuffle=True`` each pass (epoch) draws a new order from ``generator`` (or, without
one, from the default cpu generator that ``manual_seed`` seeds), so runs are reproducible
and epochs differ. Datasets with ``get_batch(indices)`` are sliced a whole batch at a time
with NumPy; others are read sample by sample and merged by ``collate_fn``.

With ``num_workers > 0`` the batches are built by that many worker processes
(worker_pool.py) from tasks the main process draws from its sampler, and come back in the
sampler's order; each worker reads its own copy of an ``IterableDataset`` (which may shard
itself with ``get_worker_info``). Our addition to PyTorch's signature: ``device=`` moves
every tensor of each batch to that device in the main process
(``DataLoader(ds, batch_size=64, device="cuda")``).

An ``IterableDataset`` is read in its own order, ``batch_size`` samples per batch, with
no sampler (iterable.py). ``batch_size=None`` turns batching off: each sample comes by
itself, through ``collate_fn`` if given, else ``default_convert``.
"""

from __future__ import annotations

import functools
import itertools
import math
import multiprocessing
import os
from collections.abc import Callable, Iterator

import numpy as np

from .. import dtypes
from ..device import to_device
from ..factories import empty, rand
from ..int_arguments import is_int
from ..random import Generator
from ..tensor import Tensor
from .dataset import Dataset
from .fetcher import MapFetcher, StreamFetcher
from .iterable import IterableDataset, check_loader_options
from .loader_options import (
    check_worker_options,
    multiprocessing_context_of,
    warn_pin_memory,
    warn_too_many_workers,
)
from .worker_loop import WorkerSetup
from .worker_pool import WorkerPool


def permutation(size: int, generator: Generator | None) -> np.ndarray:
    """A random order of ``size`` samples, from ``generator`` (or the default cpu one)."""
    # Sorting uniform float64 keys gives a uniformly random permutation (ties have
    # probability ~n**2 / 2**53) drawn from our own, seedable generators.
    keys = rand(size, generator=generator, dtype=dtypes.float64)
    return np.argsort(keys.numpy(), kind="stable")


def draw_base_seed(generator: Generator | None) -> int:
    """A base seed for a pass's workers: one int64 draw from ``generator`` (or the default
    cpu one), as PyTorch draws it before the pass's order."""
    return int(empty((), dtype=dtypes.int64).random_(generator=generator).item())


class DataLoader:
    """Batches of a map-style or an iterable dataset, PyTorch's arguments in its order.

    Args:
        dataset: has ``__len__`` and ``__getitem__`` (and optionally ``get_batch``), or is
            an ``IterableDataset`` (then without ``shuffle``, ``sampler`` and
            ``batch_sampler``).
        batch_size: samples per batch; None for no batching (each sample by itself).
        shuffle: draw a new random order at every pass.
        sampler: an iterable of indices giving the order (e.g. a ``DistributedSampler``);
            not together with ``shuffle``.
        batch_sampler: an iterable of lists of indices, one list per batch (e.g. a
            ``BatchSampler``); not together with ``batch_size``, ``shuffle``, ``sampler`` or
            ``drop_last``.
        num_workers: worker processes building the batches (0: the calling thread does).
        collate_fn: merges a list of samples into a batch (default ``default_collate``);
            when given, the dataset is always read sample by sample.
        pin_memory: accepted; nothing is pinned (NumPy memory cannot be): it warns as
            PyTorch does without an accelerator, and ``device="cuda"`` copies batches.
        drop_last: skip the last batch when it is smaller than ``batch_size``.
        timeout: seconds to wait for a worker's batch before a RuntimeError (0: forever).
        worker_init_fn: called as ``worker_init_fn(worker_id)`` in each worker, after
            seeding and before reading the dataset.
        multiprocessing_context: a start method's name (``"fork"``, ``"spawn"``, ...) or a
            ``multiprocessing`` context; None for the platform's default.
        generator: a cpu ``Generator`` for the order and the workers' base seed.
        prefetch_factor: batches asked of each worker ahead (default 2 with workers).
        persistent_workers: keep the worker processes from one pass to the next.
        pin_memory_device: deprecated in PyTorch (warns); ignored.
        in_order: yield batches in the sampler's order (False: as workers finish them).
        device: (our addition) where to put the tensors of each batch.

    Raises:
        ValueError: ``batch_size`` is not a positive integer (or None), ``sampler`` comes
            with ``shuffle=True``, ``batch_sampler`` with another way of making batches,
            ``drop_last`` without a ``batch_size``, an ``IterableDataset`` with a way of
            choosing indices, or a worker option is out of range or given without workers
            (loader_options.py).
        TypeError: ``generator`` is not a ``Generator``; ``multiprocessing_context`` is not
            a context.
    """

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler=None, batch_sampler=None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, multiprocessing_context=None,
                 generator: Generator | None = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True, device=None):
        prefetch_factor = check_worker_options(num_workers, timeout, prefetch_factor,
                                               persistent_workers)
        self.multiprocessing_context = multiprocessing_context_of(multiprocessing_context,
                                                                  num_workers)
        if isinstance(dataset, IterableDataset):
            check_loader_options(shuffle, sampler, batch_sampler)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle: the sampler "
                             "decides the order (use shuffle=False)")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
        elif batch_size is None:
            if drop_last:
                raise ValueError("batch_size=None option disables auto-batching and is "
                                 "mutually exclusive with drop_last")
        elif not is_int(batch_size) or batch_size < 1:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size!r}")
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"generator must be a minitorch_meta.Generator, got "
                            f"{type(generator).__name__}; use Generator().manual_seed(seed)")
        self.dataset = dataset
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.generator = generator
        self.collate_fn = collate_fn
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self.device = to_device(device) if device is not None else None
        self._pool = None  # the persistent workers, once started
        warn_too_many_workers(num_workers)

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
        same order as ``iter(self)`` would give them, without building the earlier ones
        (with workers, a stream's earlier batches are built and dropped): a run resumed
        mid-epoch skips what it already trained on."""
        warn_pin_memory(self.pin_memory, self.pin_memory_device)
        if self.num_workers == 0:
            self._draw_base_seed()
            return self._batches_here(first_batch)
        warn_too_many_workers(self.num_workers)
        iterable = isinstance(self.dataset, IterableDataset)
        pool = self._pool or self._start_workers()
        tasks = itertools.repeat(None) if iterable else self._tasks(first_batch)
        batches = pool.start_pass(tasks)
        if iterable and first_batch:
            batches = itertools.islice(batches, first_batch, None)
        return batches if self.device is None else map(self._to_device, batches)

    def _draw_base_seed(self) -> int:
        """The seed of the workers' generators, drawn as PyTorch does at each new iterator
        (with or without workers; once for persistent workers): the order drawn next from
        the same generator is then the same whatever ``num_workers`` is."""
        return draw_base_seed(self.generator)

    def _batches_here(self, first_batch: int) -> Iterator:
        """The batches of one pass, built in the calling thread."""
        if isinstance(self.dataset, IterableDataset):
            batches = StreamFetcher(self.dataset, self.batch_size, self.drop_last,
                                    self.collate_fn, first_batch).batches
        else:
            batches = map(self._fetcher_factory()(), self._tasks(first_batch))
        for batch in batches:
            yield self._to_device(batch)

    def _tasks(self, first_batch: int) -> Iterator:
        """What to fetch for each batch of a map-style dataset, from number
        ``first_batch`` on: the indices of the batch (or one index without batching)."""
        if self.batch_sampler is not None:
            # The batch sampler's own order: the earlier batches are drawn (to keep its
            # random stream where a full pass has it), but not fetched.
            return itertools.islice(iter(self.batch_sampler), first_batch, None)
        order = self._order()
        if self.batch_size is None:
            return iter(order[first_batch:])
        size = self.batch_size  # a local: the tasks must not hold the loader (see WorkerPool)
        starts = range(first_batch * size, len(self) * size, size)
        return (order[start:start + size] for start in starts)

    def _order(self) -> np.ndarray:
        if self.sampler is not None:
            return np.fromiter(iter(self.sampler), dtype=np.int64)
        size = len(self.dataset)
        if not self.shuffle:
            return np.arange(size, dtype=np.int64)
        return permutation(size, self.generator)

    def _fetcher_factory(self) -> Callable:
        """A picklable factory of the fetcher that builds one batch from one task."""
        if isinstance(self.dataset, IterableDataset):
            return functools.partial(StreamFetcher, self.dataset, self.batch_size,
                                     self.drop_last, self.collate_fn)
        fetcher = MapFetcher(self.dataset, self.collate_fn,
                             batched=self.batch_size is not None or self.batch_sampler is not None)
        return functools.partial(_same, fetcher)

    def _start_workers(self) -> WorkerPool:
        """New worker processes (kept by the loader when they are persistent)."""
        setup = WorkerSetup(num_workers=self.num_workers, dataset=self.dataset,
                            iterable=isinstance(self.dataset, IterableDataset),
                            make_fetcher=self._fetcher_factory(), init_fn=self.worker_init_fn,
                            base_seed=self._draw_base_seed(), parent_pid=os.getpid())
        context = self.multiprocessing_context or multiprocessing.get_context()
        pool = WorkerPool(setup, context, self.prefetch_factor, self.timeout, self.in_order,
                          self.persistent_workers)
        if self.persistent_workers:
            self._pool = pool
        return pool

    def _to_device(self, batch):
        if self.device is None:
            return batch
        return _move(batch, self.device)


def _same(value):
    return value


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
