"""random_split: lengths, fractions and PyTorch's remainder rule, determinism, errors."""

from __future__ import annotations

import warnings

import pytest

import minitorch_meta as mt
from minitorch_meta.data import Subset, TensorDataset, random_split

EMPTY_SPLIT = "Length of split at index"


@pytest.fixture
def torch_ref():
    """PyTorch as the reference for lengths and errors (skipped where not installed)."""
    return pytest.importorskip("torch", reason="PyTorch is the reference for this comparison "
                                               "and is not installed")


def _sizes(splits):
    return [len(s) for s in splits]


def _indices(splits):
    return [s.indices.tolist() for s in splits]


def test_it_is_importable_where_subset_is():
    from minitorch_meta.data import random_split as from_data
    from minitorch_meta.utils.data import Subset as UtilsSubset
    from minitorch_meta.utils.data import random_split as from_utils

    assert from_data is from_utils is random_split and UtilsSubset is Subset


def test_integer_lengths_give_disjoint_subsets_that_cover_the_dataset():
    dataset = TensorDataset(mt.arange(100), mt.arange(100).float())
    splits = random_split(dataset, [60, 30, 10])
    assert all(isinstance(s, Subset) and s.dataset is dataset for s in splits)
    assert _sizes(splits) == [60, 30, 10]
    everything = sum(_indices(splits), [])
    assert sorted(everything) == list(range(100))
    assert everything != list(range(100))  # shuffled
    first, _ = splits[0][0]
    assert first.item() == splits[0].indices[0]


FRACTIONS = [
    (10, [0.6, 0.3, 0.1]),
    (10, [0.7, 0.2, 0.1]),
    (11, [0.1] * 10),        # floors to 1 each; the remainder goes to the first split
    (7, [0.5, 0.5]),
    (13, [0.3, 0.3, 0.4]),
    (60_000, [0.9, 0.1]),
    (59_999, [1 / 3, 1 / 3, 1 / 3]),
    (3, [0.2] * 5),          # two splits come out empty, with a warning each
    (5, [0, 1]),             # ints that sum to 1 are taken as fractions, as in PyTorch
    (1, [1]),
    (10, [0.25, 0.25, 0.25, 0.25]),
]


@pytest.mark.parametrize("size, fractions", FRACTIONS)
def test_fractions_give_pytorchs_lengths(torch_ref, size, fractions):
    with warnings.catch_warnings(record=True) as ours_warned:
        warnings.simplefilter("always")
        ours = random_split(range(size), fractions)
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        theirs = torch_ref.utils.data.random_split(range(size), fractions)
    assert _sizes(ours) == _sizes(theirs)
    assert [str(w.message) for w in ours_warned] == [str(w.message) for w in theirs_warned]
    assert sorted(sum(_indices(ours), [])) == list(range(size))


def test_the_remainder_is_handed_out_round_robin_from_the_first_split():
    assert _sizes(random_split(range(11), [0.25] * 4)) == [3, 3, 3, 2]
    assert _sizes(random_split(range(7), [0.5, 0.5])) == [4, 3]


def test_an_empty_split_warns_and_points_at_the_caller():
    with pytest.warns(UserWarning, match=f"{EMPTY_SPLIT} [34] is 0") as warned:
        random_split(range(3), [0.2] * 5)
    assert [str(w.message)[:26] for w in warned] == [f"{EMPTY_SPLIT} 3", f"{EMPTY_SPLIT} 4"]
    assert warned[0].filename == __file__


def test_integer_lengths_never_warn_even_when_zero():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _sizes(random_split(range(4), [0, 4, 0])) == [0, 4, 0]


def test_the_same_generator_seed_gives_the_same_split():
    def split(seed):
        return _indices(random_split(range(50), [0.8, 0.2],
                                     generator=mt.Generator().manual_seed(seed)))

    assert split(42) == split(42) and split(42) != split(43)


def test_without_a_generator_manual_seed_decides():
    mt.manual_seed(5)
    first = _indices(random_split(range(30), [10, 20]))
    mt.manual_seed(5)
    assert _indices(random_split(range(30), [10, 20])) == first


def test_it_works_inside_a_meta_default_device_block():
    with mt.device("meta"):
        splits = random_split(range(10), [3, 7])
    assert _sizes(splits) == [3, 7]


def test_splits_feed_a_data_loader():
    dataset = TensorDataset(mt.arange(20), mt.arange(20).float())
    train, test = random_split(dataset, [0.75, 0.25], generator=mt.Generator().manual_seed(0))
    seen = [x for batch, _ in mt.data.DataLoader(train, batch_size=4) for x in batch.tolist()]
    assert seen == train.indices.tolist() and len(test) == 5


def test_empty_dataset_and_no_lengths():
    assert random_split(range(0), []) == []
    assert _sizes(random_split(range(0), [0])) == [0]


@pytest.mark.parametrize("lengths", [[3, 6], [5, 6], [], [3.0, 6.0], [0.5, 0.25, 0.25 + 1e-9]])
def test_lengths_that_do_not_sum_up_are_refused_as_in_pytorch(torch_ref, lengths):
    message = "Sum of input lengths does not equal the length of the input dataset!"
    with pytest.raises(ValueError, match=message):
        torch_ref.utils.data.random_split(range(10), lengths)
    with pytest.raises(ValueError, match=message):
        random_split(range(10), lengths)


def test_a_fraction_outside_zero_to_one_is_refused_as_in_pytorch(torch_ref):
    for split in (torch_ref.utils.data.random_split, random_split):
        with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
            split(range(10), [1.5, -0.5])


@pytest.mark.parametrize("lengths, error, message", [
    ([3.0, 7.0], TypeError, "lengths must be ints .* got 3.0 at index 0"),
    ([2.5, 7.5], TypeError, "got 2.5 at index 0"),
    ([-1, 11], ValueError, "lengths must be non-negative, got -1 at index 0"),
])
def test_lengths_pytorch_mishandles_get_clear_errors(lengths, error, message):
    with pytest.raises(error, match=message):
        random_split(range(10), lengths)


def test_a_dataset_without_a_length_is_refused():
    with pytest.raises(TypeError):
        random_split(5, [2, 3])
