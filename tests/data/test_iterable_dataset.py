"""``IterableDataset``, ``ChainDataset``, ``StackDataset``, ``get_worker_info``,
``default_convert`` and ``DataLoader(batch_size=None)``, against ``torch.utils.data``."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.utils import data as mdata

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
tdata = torch.utils.data


def _stream(base, n, with_len=False):
    """An iterable dataset of ``n`` (float vector, int label) samples, for either library."""
    class Stream(base):
        def __iter__(self):
            for i in range(n):
                yield np.full(2, i, dtype=np.float32), i

    if with_len:
        Stream.__len__ = lambda self: n
    return Stream()


def _plain(batches):
    return [[part.tolist() for part in batch] if isinstance(batch, (list, tuple))
            else batch.tolist()
            for batch in batches]


@pytest.mark.parametrize("n, batch_size, drop_last", [(5, 2, False), (5, 2, True),
                                                      (4, 2, True), (0, 3, False),
                                                      (3, 5, False), (3, 5, True)])
def test_loader_batches_a_stream_as_torch(n, batch_size, drop_last):
    ours = mdata.DataLoader(_stream(mdata.IterableDataset, n), batch_size=batch_size,
                            drop_last=drop_last)
    theirs = tdata.DataLoader(_stream(tdata.IterableDataset, n), batch_size=batch_size,
                              drop_last=drop_last)
    assert _plain(ours) == _plain(theirs)
    assert _plain(ours) == _plain(theirs)  # each pass starts the stream again


def test_loader_batches_have_torch_dtypes():
    (x, y), = mdata.DataLoader(_stream(mdata.IterableDataset, 2), batch_size=2)
    (tx, ty), = tdata.DataLoader(_stream(tdata.IterableDataset, 2), batch_size=2)
    assert (str(x.dtype), str(y.dtype)) == (str(tx.dtype), str(ty.dtype))
    assert tuple(x.shape) == tuple(tx.shape) == (2, 2)


def test_loader_length_of_a_stream():
    for drop_last in (False, True):
        ours = mdata.DataLoader(_stream(mdata.IterableDataset, 5, True), batch_size=2,
                                drop_last=drop_last)
        theirs = tdata.DataLoader(_stream(tdata.IterableDataset, 5, True), batch_size=2,
                                  drop_last=drop_last)
        assert len(ours) == len(theirs)
    without = mdata.DataLoader(_stream(mdata.IterableDataset, 5), batch_size=2)
    with pytest.raises(TypeError, match="object of type 'Stream' has no len"):
        len(without)
    with pytest.raises(TypeError):
        len(tdata.DataLoader(_stream(tdata.IterableDataset, 5), batch_size=2))


@pytest.mark.parametrize("option, value", [("shuffle", True), ("sampler", [0, 1]),
                                           ("batch_sampler", [[0]])])
def test_loader_refuses_index_options_for_a_stream(option, value):
    message = (f"DataLoader with IterableDataset: expected unspecified {option} option, but "
               f"got {option}={value!r}")
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        mdata.DataLoader(_stream(mdata.IterableDataset, 3), **{option: value})
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        tdata.DataLoader(_stream(tdata.IterableDataset, 3), **{option: value})


def test_loader_uses_collate_fn_and_device_for_a_stream():
    loader = mdata.DataLoader(_stream(mdata.IterableDataset, 3), batch_size=2,
                              collate_fn=lambda samples: [label for _, label in samples])
    assert list(loader) == [[0, 1], [2]]
    moved = mdata.DataLoader(_stream(mdata.IterableDataset, 3), batch_size=2, device="meta")
    assert all(part.is_meta for batch in moved for part in batch)


def test_iter_from_skips_batches_of_a_stream():
    loader = mdata.DataLoader(_stream(mdata.IterableDataset, 7), batch_size=2)
    assert _plain(loader.iter_from(2)) == _plain(list(loader)[2:])
    unbatched = mdata.DataLoader(_stream(mdata.IterableDataset, 4), batch_size=None)
    assert [y for _, y in unbatched.iter_from(3)] == [3]


def test_unbatched_loading_converts_each_sample_as_torch():
    ours = list(mdata.DataLoader(_stream(mdata.IterableDataset, 3), batch_size=None))
    theirs = list(tdata.DataLoader(_stream(tdata.IterableDataset, 3), batch_size=None))
    assert [(x.tolist(), str(x.dtype), y) for x, y in ours] == \
        [(x.tolist(), str(x.dtype), y) for x, y in theirs]
    dataset = mdata.TensorDataset(mt.arange(4), mt.arange(4) * 2)
    unbatched = mdata.DataLoader(dataset, batch_size=None, shuffle=True)
    assert len(unbatched) == 4
    assert sorted((x.item(), y.item()) for x, y in unbatched) == [(i, 2 * i) for i in range(4)]
    with pytest.raises(ValueError, match="batch_size=None option disables auto-batching and is "
                                         "mutually exclusive with drop_last"):
        mdata.DataLoader(dataset, batch_size=None, drop_last=True)


# -- ChainDataset -----------------------------------------------------------------------

def test_chain_dataset_reads_streams_in_turn():
    ours = mdata.ChainDataset([_stream(mdata.IterableDataset, 2),
                               _stream(mdata.IterableDataset, 3)])
    assert [y for _, y in ours] == [0, 1, 0, 1, 2]
    assert [y for _, y in ours] == [0, 1, 0, 1, 2]
    added = _stream(mdata.IterableDataset, 1) + _stream(mdata.IterableDataset, 2)
    assert isinstance(added, mdata.ChainDataset) and [y for _, y in added] == [0, 0, 1]
    sized = mdata.ChainDataset([_stream(mdata.IterableDataset, 2, True),
                                _stream(mdata.IterableDataset, 3, True)])
    assert len(sized) == 5
    with pytest.raises(TypeError, match="has no len"):
        len(ours)


def test_chain_dataset_refuses_map_style_members():
    chain = mdata.ChainDataset([_stream(mdata.IterableDataset, 1, True),
                                mdata.TensorDataset(mt.zeros(2))])
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset, got "
                                             "TensorDataset"):
        list(chain)
    with pytest.raises(AssertionError, match="only supports IterableDataset"):
        len(chain)
    with pytest.raises(AssertionError, match="only supports IterableDataset"):
        list(tdata.ChainDataset([[1, 2]]))


def test_chain_dataset_in_a_loader():
    chain = mdata.ChainDataset([_stream(mdata.IterableDataset, 3),
                                _stream(mdata.IterableDataset, 2)])
    assert [y.tolist() for _, y in mdata.DataLoader(chain, batch_size=2)] == [[0, 1], [2, 0],
                                                                              [1]]


# -- StackDataset -----------------------------------------------------------------------

def test_stack_dataset_equals_torch():
    images, labels = [10, 20, 30], ["a", "b", "c"]
    for args, kwargs in (((images, labels), {}), ((), {"image": images, "label": labels})):
        ours, theirs = mdata.StackDataset(*args, **kwargs), tdata.StackDataset(*args, **kwargs)
        assert len(ours) == len(theirs) == 3
        assert [ours[i] for i in range(3)] == [theirs[i] for i in range(3)]


def test_stack_dataset_in_a_loader():
    dataset = mdata.StackDataset(x=mdata.TensorDataset(mt.arange(4.0)), y=list(range(4)))
    batch = next(iter(mdata.DataLoader(dataset, batch_size=3)))
    assert batch["x"][0].tolist() == [0.0, 1.0, 2.0] and batch["y"].tolist() == [0, 1, 2]


@pytest.mark.parametrize("args, kwargs, message", [
    (([1, 2], [3]), {}, r"Size mismatch between datasets: their lengths are \[2, 1\]"),
    (([1],), {"b": [1]}, "Supported either ``tuple``- .* but both types are given"),
    ((), {}, "At least one dataset should be passed"),
])
def test_stack_dataset_errors(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        mdata.StackDataset(*args, **kwargs)
    with pytest.raises(ValueError):
        tdata.StackDataset(*args, **kwargs)


# -- get_worker_info and default_convert ------------------------------------------------

def test_get_worker_info_is_none_in_the_loading_thread():
    seen = []

    class Sharded(mdata.IterableDataset):
        def __iter__(self):
            seen.append(mdata.get_worker_info())
            return iter(range(3))

    assert [b.tolist() for b in mdata.DataLoader(Sharded(), batch_size=2)] == [[0, 1], [2]]
    assert seen == [None] and tdata.get_worker_info() is None


Point = collections.namedtuple("Point", "x y")


def _describe(value):
    """A structure with tensors written as (values, dtype), comparable across libraries."""
    if hasattr(value, "tolist") and hasattr(value, "dtype") and not isinstance(value,
                                                                               np.ndarray):
        return ("tensor", value.tolist(), str(value.dtype))
    if isinstance(value, dict):
        return {k: _describe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_describe(v) for v in value])
    if isinstance(value, np.ndarray):
        return ("array", value.tolist())
    return value


@pytest.mark.parametrize("data", [
    np.array([1, 2]), np.float64(2.5), np.int64(3), np.array(["a", "b"]), "text", 3, 1.5,
    (np.zeros(2), 3), [np.ones(1, dtype=np.float32), "x"], {"k": np.int64(5), "s": "v"},
    Point(np.ones(1), 2), collections.OrderedDict(a=np.zeros(1)), [[np.int64(1)]], None,
], ids=repr)
def test_default_convert_equals_torch(data):
    assert _describe(mdata.default_convert(data)) == _describe(tdata.default_convert(data))


def test_default_convert_shares_array_memory_and_keeps_tensors():
    array = np.zeros(3)
    converted = mdata.default_convert(array)
    array[0] = 7.0
    assert converted.tolist() == [7.0, 0.0, 0.0]
    t = mt.ones(2)
    assert mdata.default_convert(t) is t
