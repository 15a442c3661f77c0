"""DistributedSampler: each epoch's shares are disjoint, cover every sample exactly once
(plus PyTorch's padding), are deterministic, and keep global batches whole. No MPI needed:
the world is simulated by giving num_replicas and rank."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.data import DataLoader, TensorDataset
from minitorch_meta.distributed import DistributedSampler
from minitorch_meta.distributed.sampler import evaluation_shard


def shares(size, world, epoch=0, **kwargs):
    result = []
    for rank in range(world):
        sampler = DistributedSampler(range(size), world, rank, **kwargs)
        sampler.set_epoch(epoch)
        result.append(list(sampler))
    return result


@pytest.mark.parametrize("world", [1, 2, 3, 4])
@pytest.mark.parametrize("size", [0, 1, 5, 12, 48, 49])
@pytest.mark.parametrize("epoch", [0, 1])
def test_every_sample_once_per_epoch_plus_padding(size, world, epoch):
    parts = shares(size, world, epoch, seed=3)
    per_rank = math.ceil(size / world)
    assert [len(p) for p in parts] == [per_rank] * world
    counts = Counter(i for part in parts for i in part)
    assert set(counts) == set(range(size))  # every sample, in some rank's share
    padding = per_rank * world - size
    assert sum(counts.values()) == size + padding and padding < world
    # The padding repeats the epoch order from its start (as PyTorch's): those samples
    # are seen once more, every other sample exactly once.
    sampler = DistributedSampler(range(size), world, 0, seed=3)
    sampler.set_epoch(epoch)
    order = sampler.epoch_order()
    assert sorted(order[:size]) == list(range(size))
    assert list(order[size:]) == list(np.tile(order[:size], world)[:padding])
    assert counts == Counter(range(size)) + Counter(order[size:].tolist())


@pytest.mark.parametrize("world", [1, 2, 3, 4])
@pytest.mark.parametrize("size", [0, 1, 5, 12, 49])
def test_drop_last_drops_the_tail_instead(size, world):
    parts = shares(size, world, drop_last=True)
    assert [len(p) for p in parts] == [size // world] * world
    every = [i for part in parts for i in part]
    assert len(every) == len(set(every)) == size // world * world


def test_shares_are_deterministic_per_epoch_and_differ_between_epochs():
    assert shares(40, 2, epoch=5, seed=9) == shares(40, 2, epoch=5, seed=9)
    assert shares(40, 2, epoch=5, seed=9) != shares(40, 2, epoch=6, seed=9)
    assert shares(40, 2, epoch=5, seed=9) != shares(40, 2, epoch=5, seed=10)
    assert shares(6, 2, shuffle=False) == [[0, 2, 4], [1, 3, 5]]


def test_with_a_generator_the_order_is_the_dataloaders():
    dataset = TensorDataset(mt.arange(30))
    loader = DataLoader(dataset, batch_size=30, shuffle=True,
                        generator=mt.Generator().manual_seed(4))
    (expected,), = list(loader)
    sampler = DistributedSampler(dataset, 1, 0, generator=mt.Generator().manual_seed(4))
    assert list(sampler) == expected.tolist()


def test_ranks_batches_together_are_the_single_process_batch():
    size, world, per_rank_batch = 48, 4, 3
    order = DistributedSampler(range(size), 1, 0, generator=mt.Generator().manual_seed(1))
    single = list(order)
    parts = [DistributedSampler(range(size), world, rank,
                                generator=mt.Generator().manual_seed(1)).indices()
             for rank in range(world)]
    global_batch = per_rank_batch * world
    for k in range(size // global_batch):
        together = np.concatenate([p[k * per_rank_batch:(k + 1) * per_rank_batch]
                                   for p in parts])
        assert sorted(together) == sorted(single[k * global_batch:(k + 1) * global_batch])


@pytest.mark.parametrize("size, world", [(10, 3), (7, 2), (12, 4), (3, 5)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_unshuffled_shares_match_pytorch(size, world, drop_last):
    torch_data = pytest.importorskip("torch.utils.data")
    for rank in range(world):
        ours = DistributedSampler(range(size), world, rank, shuffle=False, drop_last=drop_last)
        theirs = torch_data.DistributedSampler(range(size), num_replicas=world, rank=rank,
                                               shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_evaluation_shards_cover_every_sample_exactly_once():
    for size in (0, 1, 7, 20):
        every = np.concatenate([evaluation_shard(size, rank, 3) for rank in range(3)])
        assert sorted(every.tolist()) == list(range(size))


@pytest.mark.parametrize("kwargs, message", [
    (dict(num_replicas=2, rank=2), "Invalid rank 2, rank should be in the interval [0, 1]"),
    (dict(num_replicas=2, rank=-1), "Invalid rank -1, rank should be in the interval [0, 1]"),
    (dict(num_replicas=0, rank=0), "num_replicas must be a positive integer, got 0"),
])
def test_bad_ranks_are_refused(kwargs, message):
    with pytest.raises(ValueError) as caught:
        DistributedSampler(range(4), **kwargs)
    assert str(caught.value) == message


def test_a_bad_generator_is_refused():
    with pytest.raises(TypeError, match="generator must be a minitorch_meta.Generator, got int"):
        DistributedSampler(range(4), 1, 0, generator=4)


def test_without_a_group_the_rank_must_be_given():
    from minitorch_meta.distributed import destroy_process_group

    destroy_process_group()
    # PyTorch's type and words, then how to fix it here.
    with pytest.raises(ValueError, match="Default process group has not been initialized, "
                       "please make sure to call init_process_group.*"
                       "minitorch_meta.distributed.init"):
        DistributedSampler(range(4))
