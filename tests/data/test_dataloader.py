"""DataLoader: batching, drop_last, seeded shuffling, collation and the device option."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.data import DataLoader, Dataset, Subset, TensorDataset, default_collate


def _dataset(n=10):
    return TensorDataset(mt.arange(n), mt.arange(n * 2).view(n, 2).float())


def _order(loader):
    return np.concatenate([x.numpy() for x, _ in loader])


class ListDataset(Dataset):
    """A dataset without get_batch: read sample by sample."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return mt.tensor([float(i), 2.0 * i]), i


def test_batches_in_order_with_a_short_last_batch():
    batches = list(DataLoader(_dataset(), batch_size=4))
    assert [tuple(x.shape) for x, _ in batches] == [(4,), (4,), (2,)]
    assert len(DataLoader(_dataset(), batch_size=4)) == 3
    np.testing.assert_array_equal(batches[2][1].numpy(), [[16, 17], [18, 19]])


def test_drop_last_skips_the_short_batch():
    loader = DataLoader(_dataset(), batch_size=4, drop_last=True)
    assert len(loader) == 2 and [len(x) for x, _ in loader] == [4, 4]
    np.testing.assert_array_equal(_order(loader), np.arange(8))


def test_shuffle_is_deterministic_under_a_seeded_generator():
    def epochs(seed):
        loader = DataLoader(_dataset(50), batch_size=8, shuffle=True,
                            generator=mt.Generator().manual_seed(seed))
        return [_order(loader) for _ in range(3)]

    first, again, other = epochs(7), epochs(7), epochs(8)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert all(sorted(order) == list(range(50)) for order in first)
    assert not np.array_equal(first[0], first[1])  # epochs differ
    assert not np.array_equal(first[0], other[0])  # seeds differ


def test_shuffle_without_generator_follows_manual_seed():
    loader = DataLoader(_dataset(30), batch_size=7, shuffle=True)
    mt.manual_seed(3)
    a = _order(loader)
    mt.manual_seed(3)
    np.testing.assert_array_equal(a, _order(loader))


def test_rows_stay_together_when_shuffled():
    for x, y in DataLoader(_dataset(20), batch_size=6, shuffle=True,
                           generator=mt.Generator().manual_seed(0)):
        np.testing.assert_array_equal(y.numpy()[:, 0], 2 * x.numpy())


def test_per_sample_datasets_are_collated():
    x, labels = next(iter(DataLoader(ListDataset(5), batch_size=3)))
    assert tuple(x.shape) == (3, 2) and labels.dtype == mt.int64
    np.testing.assert_array_equal(labels.numpy(), [0, 1, 2])


def test_same_order_for_batched_and_per_sample_paths():
    generator_a, generator_b = mt.Generator().manual_seed(1), mt.Generator().manual_seed(1)
    a = DataLoader(ListDataset(9), batch_size=4, shuffle=True, generator=generator_a)
    b = DataLoader(_dataset(9), batch_size=4, shuffle=True, generator=generator_b)
    np.testing.assert_array_equal(np.concatenate([lab.numpy() for _, lab in a]), _order(b))


def test_subset_keeps_the_batched_path():
    subset = Subset(_dataset(10), [9, 0, 5])
    x, _ = next(iter(DataLoader(subset, batch_size=3)))
    np.testing.assert_array_equal(x.numpy(), [9, 0, 5])
    assert len(subset) == 3 and subset[0][0].item() == 9
    with pytest.raises(IndexError, match=r"indices must lie in \[0, 10\)"):
        Subset(_dataset(10), [10])


def test_device_option_moves_batches():
    x, y = next(iter(DataLoader(_dataset(), batch_size=4, device="meta")))
    assert x.is_meta and y.is_meta and tuple(y.shape) == (4, 2)


def test_custom_collate_fn_is_used():
    loader = DataLoader(_dataset(4), batch_size=2, collate_fn=lambda samples: len(samples))
    assert list(loader) == [2, 2]


def test_default_collate_structures():
    batch = default_collate([{"x": np.ones(2), "name": "a", "w": 0.5},
                             {"x": np.zeros(2), "name": "b", "w": 1.5}])
    assert tuple(batch["x"].shape) == (2, 2) and batch["name"] == ["a", "b"]
    assert batch["w"].dtype == mt.float64
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([mt.zeros(2), mt.zeros(3)])
    with pytest.raises(TypeError, match="found object"):
        default_collate([object()])


def test_default_collate_returns_pytorchs_sequence_types():
    """Tuples and lists of fields come back as lists, a namedtuple as itself (PyTorch's)."""
    pytest.importorskip("torch", reason="PyTorch is the test reference")
    from torch.utils.data import default_collate as torch_collate

    pair = collections.namedtuple("pair", "x y")
    for make in (tuple, list, lambda fields: pair(*fields)):
        samples = [make([np.ones(2), 0]), make([np.zeros(2), 1])]
        ours, theirs = default_collate(samples), torch_collate(samples)
        assert type(ours) is type(theirs)
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert default_collate([pair(1, 2), pair(3, 4)]).y.tolist() == [2, 4]


def test_device_option_moves_namedtuple_batches():
    pair = collections.namedtuple("pair", "x y")

    class Pairs(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return pair(np.full(2, float(i)), i)

    batch = next(iter(DataLoader(Pairs(), batch_size=4, device="meta")))
    assert isinstance(batch, pair) and batch.x.is_meta and tuple(batch.y.shape) == (4,)


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="positive integer value, but got batch_size=0"):
        DataLoader(_dataset(), batch_size=0)
    with pytest.raises(TypeError, match="Generator\\(\\).manual_seed"):
        DataLoader(_dataset(), shuffle=True, generator=np.random.default_rng(0))
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        TensorDataset(mt.zeros(3), mt.zeros(4))


def test_a_sampler_decides_the_order():
    from minitorch_meta.utils.data.distributed import DistributedSampler

    data = TensorDataset(mt.arange(10))
    sampler = DistributedSampler(data, num_replicas=2, rank=1, shuffle=False)
    loader = DataLoader(data, batch_size=2, sampler=sampler)
    assert len(loader) == 3
    assert [b[0].tolist() for b in loader] == [[1, 3], [5, 7], [9]]
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(data, sampler=sampler, shuffle=True)


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("first", [0, 1, 2, 3, 9])
def test_iter_from_gives_the_rest_of_the_same_pass(first, drop_last):
    def loader():  # a fresh, identically seeded shuffled loader for each pass
        return DataLoader(_dataset(10), batch_size=4, shuffle=True, drop_last=drop_last,
                          generator=mt.Generator().manual_seed(5))

    whole = [x.numpy() for x, _ in loader()]
    rest = [x.numpy() for x, _ in loader().iter_from(first)]
    assert len(rest) == max(0, len(whole) - first)
    for got, expected in zip(rest, whole[first:]):
        np.testing.assert_array_equal(got, expected)
