"""Samplers, ConcatDataset and DataLoader(sampler=..., batch_sampler=...), as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
)
from minitorch_meta.utils import data as utils_data


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i * i


def test_reachable_through_torch_utils_data():
    for name in ("BatchSampler", "ConcatDataset", "RandomSampler", "Sampler",
                 "SequentialSampler", "SubsetRandomSampler", "WeightedRandomSampler"):
        assert getattr(utils_data, name) is getattr(mt.data, name)


def test_sequential_and_batch_samplers_match_torch():
    torch = _torch()
    tud = torch.utils.data
    for size, batch, drop in ((10, 3, False), (10, 3, True), (9, 3, True), (0, 2, False)):
        ours = BatchSampler(SequentialSampler(range(size)), batch, drop)
        theirs = tud.BatchSampler(tud.SequentialSampler(range(size)), batch, drop)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
    assert list(BatchSampler([4, 2, 7], 2, False)) == [[4, 2], [7]]


def test_random_sampler_is_a_permutation_reproducible_by_seed():
    data = range(20)
    mt.manual_seed(4)
    first = list(RandomSampler(data))
    mt.manual_seed(4)
    assert list(RandomSampler(data)) == first and sorted(first) == list(range(20))
    sampler = RandomSampler(data, generator=mt.Generator().manual_seed(1))
    assert list(sampler) != list(sampler)  # a new order at each pass
    assert len(sampler) == 20
    more = list(RandomSampler(data, num_samples=45))
    assert len(more) == 45 and sorted(more[:20]) == sorted(more[20:40]) == list(range(20))
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=300))
    assert len(drawn) == 300 and set(drawn) == {0, 1, 2}


def test_subset_random_sampler_permutes_its_indices():
    sampler = SubsetRandomSampler([10, 11, 12, 13], generator=mt.Generator().manual_seed(0))
    order = list(sampler)
    assert sorted(order) == [10, 11, 12, 13] and len(sampler) == 4
    again = SubsetRandomSampler([10, 11, 12, 13], generator=mt.Generator().manual_seed(0))
    assert list(again) == order


@pytest.mark.parametrize("weights", [[0.1, 0.0, 0.6, 0.3], mt.tensor([1.0, 0.0, 6.0, 3.0]),
                                     np.array([1, 0, 6, 3])])
def test_weighted_random_sampler_follows_the_weights(weights):
    mt.manual_seed(0)
    sampler = WeightedRandomSampler(weights, 50_000)
    drawn = list(sampler)
    assert len(sampler) == len(drawn) == 50_000 and all(isinstance(i, int) for i in drawn[:5])
    np.testing.assert_allclose(np.bincount(drawn, minlength=4) / 50_000, [0.1, 0.0, 0.6, 0.3],
                               atol=0.01)
    unique = list(WeightedRandomSampler(weights, 3, replacement=False))
    assert sorted(unique) == [0, 2, 3]


def test_weighted_random_sampler_is_reproducible_with_a_generator():
    def make():
        return list(WeightedRandomSampler([1.0, 2.0, 3.0], 10,
                                          generator=mt.Generator().manual_seed(5)))
    assert make() == make()


@pytest.mark.parametrize("call, error, message", [
    (lambda T: T.utils.data.RandomSampler(range(3), replacement=1), TypeError,
     "replacement should be a boolean value, but got replacement=1"),
    (lambda T: T.utils.data.RandomSampler(range(3), num_samples=0), ValueError,
     "num_samples should be a positive integer value, but got num_samples=0"),
    (lambda T: T.utils.data.RandomSampler([]), ValueError,
     "num_samples should be a positive integer value, but got num_samples=0"),
    (lambda T: T.utils.data.WeightedRandomSampler([1.0, 2.0], 0), ValueError,
     "num_samples should be a positive integer value, but got num_samples=0"),
    (lambda T: T.utils.data.WeightedRandomSampler([1.0, 2.0], 2.5), ValueError,
     "num_samples should be a positive integer value, but got num_samples=2.5"),
    (lambda T: T.utils.data.WeightedRandomSampler([1.0, 2.0], 2, replacement=0), ValueError,
     "replacement should be a boolean value, but got replacement=0"),
    (lambda T: T.utils.data.WeightedRandomSampler([[1.0, 2.0]], 2), ValueError,
     "weights should be a 1d sequence but given weights have shape "),
    (lambda T: T.utils.data.BatchSampler(range(3), 0, False), ValueError,
     "batch_size should be a positive integer value, but got batch_size=0"),
    (lambda T: T.utils.data.BatchSampler(range(3), 2, None), ValueError,
     "drop_last should be a boolean value, but got drop_last=None"),
    (lambda T: T.utils.data.ConcatDataset([]), AssertionError,
     "datasets should not be an empty iterable"),
    (lambda T: T.utils.data.ConcatDataset([range(2)])[-3], ValueError,
     "absolute value of index should not exceed dataset length"),
    (lambda T: T.utils.data.DataLoader(range(5), batch_size=2, batch_sampler=[[0]]), ValueError,
     "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
     "drop_last"),
    (lambda T: T.utils.data.DataLoader(range(5), shuffle=True, batch_sampler=[[0]]), ValueError,
     "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
     "drop_last"),
    (lambda T: T.utils.data.DataLoader(range(5), sampler=[0], batch_sampler=[[0]]), ValueError,
     "batch_sampler option is mutually exclusive"),
    (lambda T: T.utils.data.DataLoader(range(5), drop_last=True, batch_sampler=[[0]]),
     ValueError, "batch_sampler option is mutually exclusive"),
])
def test_errors_as_torch(call, error, message):
    torch = _torch()
    for library in (mt, torch):
        with pytest.raises(error) as info:
            call(library)
        assert str(info.value).startswith(message), (library.__name__, str(info.value))


def test_concat_dataset_matches_torch():
    torch = _torch()
    parts = [Squares(3), Squares(0), Squares(2)]
    ours, theirs = ConcatDataset(parts), torch.utils.data.ConcatDataset(parts)
    assert len(ours) == len(theirs) == 5 and ours.cumulative_sizes == theirs.cumulative_sizes
    assert [ours[i] for i in range(-5, 5)] == [theirs[i] for i in range(-5, 5)]
    with pytest.raises(IndexError, match="index 5 is out of range for a ConcatDataset of 5"):
        ours[5]
    both = Squares(2) + Squares(1)
    assert isinstance(both, ConcatDataset) and [both[i] for i in range(3)] == [0, 1, 0]


def test_data_loader_over_a_concat_dataset_of_tensor_datasets():
    a = TensorDataset(mt.arange(4.0).view(4, 1), mt.arange(4))
    b = TensorDataset(mt.arange(10.0, 12.0).view(2, 1), mt.arange(10, 12))
    batches = list(DataLoader(ConcatDataset([a, b]), batch_size=4))
    assert [x.tolist() for x, _ in batches] == [[[0.0], [1.0], [2.0], [3.0]], [[10.0], [11.0]]]
    assert batches[1][1].tolist() == [10, 11]


def test_data_loader_takes_a_batch_sampler(device):
    torch = _torch()
    data = TensorDataset(mt.arange(10.0) * 2)
    batches = BatchSampler(SequentialSampler(range(10)), 4, drop_last=False)
    loader = DataLoader(data, batch_sampler=batches, device=device)
    assert len(loader) == 3 and loader.batch_size is None
    got = [x.cpu().tolist() for (x,) in loader]
    reference = torch.utils.data.DataLoader(torch.arange(10.0) * 2, batch_sampler=list(batches))
    assert got == [x.tolist() for x in reference]
    assert [x.tolist() for (x,) in loader.iter_from(2)] == [[16.0, 18.0]]
    custom = DataLoader(Squares(6), batch_sampler=[[5, 0], [2]])
    assert [b.tolist() for b in custom] == [[25, 0], [4]]


def test_data_loader_takes_the_samplers(device):
    data = TensorDataset(mt.arange(6))
    loader = DataLoader(data, batch_size=2, device=device,
                        sampler=SubsetRandomSampler([1, 3, 5], generator=mt.Generator()))
    assert len(loader) == 2
    assert sorted(sum((x.tolist() for (x,) in loader), [])) == [1, 3, 5]
    mt.manual_seed(0)
    weighted = DataLoader(data, batch_size=4, sampler=WeightedRandomSampler([0, 0, 1, 0, 0, 0],
                                                                            8))
    assert [x.tolist() for (x,) in weighted] == [[2, 2, 2, 2], [2, 2, 2, 2]]
    ordered = DataLoader(data, batch_size=4, sampler=SequentialSampler(data))
    assert [x.tolist() for (x,) in ordered] == [[0, 1, 2, 3], [4, 5]]


def test_sampler_base_class():
    class Evens(Sampler):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(0, self.n, 2))

        def __len__(self):
            return (self.n + 1) // 2

    assert [x.tolist() for x in DataLoader(Squares(5), batch_size=2, sampler=Evens(5))] == \
        [[0, 4], [16]]
    with pytest.raises(NotImplementedError, match="Sampler does not implement __iter__"):
        iter(Sampler())
