"""DataLoaders for a rank's share of the data, as the training command line uses them.

``--batch-size`` is the *global* batch: each of the ``W`` ranks takes ``batch_size / W``
samples per step, and the averaged gradient is that of the whole global batch. With the
same seed, the global batches are those of a single-process run (see ``sampler.py``), so a
run on ``W`` processes follows the single-process run up to float rounding, as long as the
dataset is a multiple of ``W`` (otherwise ``DistributedSampler`` pads a few samples).
"""

from __future__ import annotations

from ..data import DataLoader, Subset
from .process_group import group
from .sampler import DistributedSampler, evaluation_shard


def per_rank_batch_size(global_batch_size: int, world_size: int) -> int:
    """``global_batch_size / world_size``.

    Raises:
        ValueError: the global batch does not split evenly across the ranks.
    """
    if global_batch_size % world_size:
        nearest = max(1, global_batch_size // world_size) * world_size
        raise ValueError(f"the batch size {global_batch_size} is the global batch, split "
                         f"across {world_size} processes, so it must be a multiple of "
                         f"{world_size}; use e.g. {nearest}")
    return global_batch_size // world_size


def distributed_train_loader(dataset, global_batch_size: int, generator, device) -> DataLoader:
    """This rank's batches of one epoch, in the order ``generator`` draws (as DataLoader's)."""
    current = group()
    sampler = DistributedSampler(dataset, current.size, current.rank, generator=generator)
    return DataLoader(Subset(dataset, sampler.indices()),
                      batch_size=per_rank_batch_size(global_batch_size, current.size),
                      device=device)


def distributed_eval_loader(dataset, batch_size: int, device) -> DataLoader:
    """This rank's unpadded share of ``dataset`` for evaluation (reduce the sums after)."""
    current = group()
    return DataLoader(Subset(dataset, evaluation_shard(len(dataset), current.rank, current.size)),
                      batch_size=batch_size, device=device)
