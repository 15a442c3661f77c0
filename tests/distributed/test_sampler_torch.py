"""DistributedSampler against PyTorch's: the import paths, the signature, the unshuffled
shares index for index, the lengths, the errors. Shuffled orders are not compared: our
generators are not PyTorch's Mersenne Twister, so a seed draws another permutation (the
properties of shuffled shares are tested in test_sampler.py)."""

from __future__ import annotations

import inspect

import pytest

import minitorch_meta as mt
import minitorch_meta.distributed as dist
from minitorch_meta.data import Sampler
from minitorch_meta.utils.data import DistributedSampler

torch = pytest.importorskip("torch")
from torch.utils.data import DistributedSampler as TorchSampler  # noqa: E402


def test_torch_import_paths_name_one_class():
    from minitorch_meta.utils.data.distributed import DistributedSampler as ByModule

    assert mt.utils.data.DistributedSampler is DistributedSampler is ByModule
    assert mt.data.DistributedSampler is dist.DistributedSampler is DistributedSampler
    assert "DistributedSampler" in mt.utils.data.__all__
    assert issubclass(DistributedSampler, Sampler)


def test_signature_is_torch_s_plus_a_keyword_only_generator():
    ours = inspect.signature(DistributedSampler).parameters
    theirs = inspect.signature(TorchSampler).parameters
    assert list(ours)[:len(theirs)] == list(theirs)
    assert [p.default for p in list(ours.values())[:len(theirs)]] == \
        [p.default for p in theirs.values()]
    assert ours["generator"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("size", [0, 1, 5, 12, 13])
@pytest.mark.parametrize("world", [1, 2, 3, 5])
@pytest.mark.parametrize("drop_last", [False, True])
def test_unshuffled_shares_equal_torch_s(size, world, drop_last):
    for rank in range(world):
        kwargs = dict(num_replicas=world, rank=rank, shuffle=False, drop_last=drop_last)
        ours = DistributedSampler(range(size), **kwargs)
        theirs = TorchSampler(range(size), **kwargs)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs)
        assert (ours.num_samples, ours.total_size) == (theirs.num_samples, theirs.total_size)


@pytest.mark.parametrize("size, world", [(3, 8), (1, 4), (5, 2)])
def test_shuffled_padding_repeats_the_order_as_torch_s(size, world):
    # Padding longer than the dataset repeats the whole order (PyTorch's rule).
    order = list(DistributedSampler(range(size), 1, 0, seed=2))
    every = [list(DistributedSampler(range(size), world, rank, seed=2)) for rank in range(world)]
    padded = [i for position in range(len(every[0])) for i in
              (share[position] for share in every)]
    assert padded == (order * world)[:len(padded)]


def test_same_seed_and_epoch_same_order_other_epoch_other_order():
    a, b = DistributedSampler(range(50), 2, 1, seed=7), DistributedSampler(range(50), 2, 1, seed=7)
    assert list(a) == list(b)
    first = list(a)
    a.set_epoch(1)
    assert a.epoch == 1 and list(a) != first
    assert list(DistributedSampler(range(50), 2, 1, seed=8)) != first


def test_without_a_group_both_raise_the_same_value_error():
    with pytest.raises(ValueError) as theirs:
        TorchSampler(range(4))
    with pytest.raises(ValueError) as ours:
        DistributedSampler(range(4), num_replicas=2)
    assert str(ours.value).startswith(str(theirs.value))


def test_with_a_group_the_defaults_come_from_it():
    dist.init()
    sampler = DistributedSampler(range(5))
    assert (sampler.num_replicas, sampler.rank) == (1, 0)
    assert sorted(sampler) == list(range(5))


def test_bad_rank_raises_torch_s_error():
    with pytest.raises(ValueError) as theirs:
        TorchSampler(range(4), num_replicas=2, rank=3)
    with pytest.raises(ValueError) as ours:
        DistributedSampler(range(4), num_replicas=2, rank=3)
    assert str(ours.value) == str(theirs.value)
