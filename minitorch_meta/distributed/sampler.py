"""``DistributedSampler``: each rank's share of a dataset's indices for one epoch, as
PyTorch's ``torch.utils.data.distributed.DistributedSampler``.

Every rank draws the same order (shuffled from ``seed + epoch``, or from a ``generator``),
pads it, then takes every ``num_replicas``-th index starting at its rank. So in each epoch
the ranks' shares are disjoint and together hold every sample exactly once, plus the
padding:

- ``drop_last=False`` (default): when ``len(dataset)`` is not a multiple of
  ``num_replicas``, the order is extended with its own first indices up to the next
  multiple, so a few samples (fewer than ``num_replicas``) are seen twice in that epoch and
  every rank gets ``ceil(len / num_replicas)`` samples;
- ``drop_last=True``: the tail of the order is dropped instead, so every rank gets
  ``floor(len / num_replicas)`` samples and a few samples are skipped in that epoch.

The strided split keeps global batches whole: with a per-rank batch ``b``, the ranks' k-th
batches together are exactly positions ``[k * b * num_replicas, (k + 1) * b *
num_replicas)`` of the epoch's order, i.e. the k-th batch a single process would draw with
batch size ``b * num_replicas`` and the same order.

Our addition: ``generator=`` draws each order from that generator, exactly as ``DataLoader``
(``shuffle=True``) draws its own, so a distributed run sees the batches of a single-process
run with the same generator.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from ..data.dataloader import draw_base_seed, permutation
from ..data.sampler import Sampler
from ..int_arguments import is_int
from ..random import Generator


class DistributedSampler(Sampler):
    """The indices of rank ``rank``'s share of ``dataset`` for the current epoch.

    Args:
        dataset: anything with ``len()``.
        num_replicas: the number of ranks (default: the process group's world size).
        rank: this rank (default: the process group's rank).
        shuffle: draw a new order every epoch (else ``0, 1, 2, ...``).
        seed: the order of epoch ``e`` is drawn from a generator seeded with ``seed + e``
            (the same on every rank).
        drop_last: drop the tail instead of padding (see the module's documentation).
        generator: (our addition) draw the order from this generator instead, as
            ``DataLoader`` would; ``seed`` and ``set_epoch`` are then not used.

    Raises:
        ValueError: ``num_replicas`` is not positive, or ``rank`` not in
            ``[0, num_replicas - 1]``, or one of them is left to the process group and
            none is initialised (PyTorch's type and message).
    """

    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False,
                 *, generator: Generator | None = None):
        if num_replicas is None or rank is None:
            current = _default_group()
            num_replicas = current.size if num_replicas is None else num_replicas
            rank = current.rank if rank is None else rank
        if not is_int(num_replicas) \
                or num_replicas < 1:
            raise ValueError(f"num_replicas must be a positive integer, got {num_replicas!r}")
        if not is_int(rank) or not 0 <= rank < num_replicas:
            raise ValueError(f"Invalid rank {rank!r}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"generator must be a minitorch_meta.Generator, got "
                            f"{type(generator).__name__}")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.shuffle = bool(shuffle)
        self.seed = seed
        self.drop_last = bool(drop_last)
        self.generator = generator
        self.epoch = 0
        size = len(dataset)
        if self.drop_last and size % num_replicas:
            self.num_samples = size // num_replicas
        else:
            self.num_samples = math.ceil(size / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def set_epoch(self, epoch: int) -> None:
        """Use the order of epoch ``epoch`` (call it before each epoch, on every rank)."""
        self.epoch = epoch

    def epoch_order(self) -> np.ndarray:
        """The whole epoch's order, padded or cut to ``total_size`` (the same on every rank)."""
        size = len(self.dataset)
        if not self.shuffle:
            order = np.arange(size, dtype=np.int64)
        else:
            if self.generator is not None:
                # DataLoader draws its workers' base seed before each order: so do we,
                # to draw the very order it draws from the same generator.
                draw_base_seed(self.generator)
            generator = self.generator or Generator("cpu").manual_seed(self.seed + self.epoch)
            order = permutation(size, generator)
        if self.total_size <= size:
            return order[:self.total_size]
        if size == 0:
            return order
        repeats = math.ceil(self.total_size / size)
        return np.tile(order, repeats)[:self.total_size]

    def indices(self) -> np.ndarray:
        """This rank's indices for the epoch, as a NumPy array."""
        return self.epoch_order()[self.rank:self.total_size:self.num_replicas]

    def __iter__(self) -> Iterator[int]:
        return iter(self.indices().tolist())

    def __len__(self) -> int:
        return self.num_samples


def _default_group():
    """The initialised process group, or PyTorch's ValueError when there is none."""
    from .process_group import group, is_initialized

    if not is_initialized():
        raise ValueError("Default process group has not been initialized, please make sure "
                         "to call init_process_group. (minitorch_meta.distributed.init(), "
                         "or give DistributedSampler num_replicas= and rank=)")
    return group()


def evaluation_shard(size: int, rank: int, num_replicas: int) -> np.ndarray:
    """Rank ``rank``'s share of ``size`` samples for evaluation: ``rank, rank + n, ...``.

    No padding, so shares may differ by one sample and sums reduced across ranks count
    every sample exactly once (right for test metrics, where no step must stay in lockstep).
    """
    return np.arange(rank, size, num_replicas, dtype=np.int64)
