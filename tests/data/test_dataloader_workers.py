"""DataLoader with worker processes (num_workers > 0) and PyTorch's other loader options:
the same batches as without workers, worker info and seeds, errors, timeout, shutdown,
persistent workers, and the argument checks and warnings against PyTorch's."""

from __future__ import annotations

import gc
import multiprocessing
import os
import time

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.data import (
    DataLoader,
    Dataset,
    IterableDataset,
    TensorDataset,
    get_worker_info,
)
from tests.devices import tensor_device

# fork starts a worker in milliseconds (spawn re-imports everything); the platform's
# default elsewhere.
CONTEXT = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
WORKERS = {"num_workers": 2, "multiprocessing_context": CONTEXT}


class Samples(Dataset):
    """Read sample by sample (no get_batch)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return mt.tensor([float(i), 2.0 * i]), i


def _stream_class(base, worker_info):
    class Stream(base):
        """0..n-1; with ``shard``, each worker reads every num_workers-th sample."""

        def __init__(self, n, shard=False):
            self.n, self.shard = n, shard

        def __iter__(self):
            info = worker_info()
            if self.shard and info is not None:
                return iter(range(info.id, self.n, info.num_workers))
            return iter(range(self.n))
    return Stream


Stream = _stream_class(IterableDataset, get_worker_info)


class WhoAmI(Dataset):
    """Each sample says which worker read it, with its seed and a draw from its default
    generator; ``tag`` is set per worker by a worker_init_fn."""

    tag = -1

    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = get_worker_info()
        return {"id": info.id, "workers": info.num_workers, "seed": info.seed,
                "same": info.dataset is self, "tag": self.tag, "pid": os.getpid(),
                "draw": float(mt.rand(()).item())}


class Failing(Dataset):
    def __init__(self, error, at=3):
        self.error, self.at = error, at

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == self.at:
            raise self.error
        return i


class Ints(Dataset):
    """Plain ints: PyTorch's loader collates them too."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return i


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            time.sleep(1.5)
        return i


class Pids(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return os.getpid()


def _values(batches):
    def plain(value):
        if isinstance(value, mt.Tensor):
            return value.tolist()
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value
    return [plain(batch) for batch in batches]


def _gone(pid):
    """True when the process ``pid`` no longer exists (exited and reaped: no zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _wait_gone(pids, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(map(_gone, pids)):
        time.sleep(0.05)
    return all(map(_gone, pids))


# -- the same batches with and without workers --------------------------------------------

MAP_OPTIONS = [
    {"batch_size": 3},
    {"batch_size": 4, "drop_last": True},
    {"batch_size": None},
    {"batch_sampler": [[5, 0], [2], [1, 3, 4]]},
    {"batch_size": 2, "sampler": [4, 4, 1, 0, 2]},
]


@pytest.mark.parametrize("options", MAP_OPTIONS)
@pytest.mark.parametrize("make", [lambda: TensorDataset(mt.arange(7), mt.arange(7.0) * 2),
                                  lambda: Samples(7)], ids=["get_batch", "getitem"])
def test_map_style_batches_match_the_single_process_ones(make, options):
    expected = _values(DataLoader(make(), **options))
    assert _values(DataLoader(make(), **options, **WORKERS)) == expected
    assert _values(DataLoader(make(), **options, **WORKERS, prefetch_factor=1)) == expected


def test_shuffled_order_is_the_single_process_one_at_every_epoch():
    plain = DataLoader(Samples(9), batch_size=2, shuffle=True,
                       generator=mt.Generator().manual_seed(5))
    workers = DataLoader(Samples(9), batch_size=2, shuffle=True, **WORKERS,
                         generator=mt.Generator().manual_seed(5))
    for _ in range(2):
        assert _values(workers) == _values(plain)


def test_out_of_order_delivery_gives_every_batch_once():
    loader = DataLoader(Samples(9), batch_size=2, **WORKERS, in_order=False)
    got = sorted(_values(loader), key=lambda batch: batch[1])
    assert got == _values(DataLoader(Samples(9), batch_size=2))


@pytest.mark.parametrize("options", [{"batch_size": 2}, {"batch_size": 2, "drop_last": True},
                                     {"batch_size": None}])
@pytest.mark.parametrize("shard", [False, True])
def test_iterable_dataset_in_workers_as_pytorch(torch_ref, options, shard):
    # Without sharding each worker reads the whole stream (every batch twice,
    # interleaved worker by worker); with it each sample comes once.
    tdata = torch_ref.utils.data
    ours = DataLoader(Stream(5, shard), **options, **WORKERS)
    their_stream = _stream_class(tdata.IterableDataset, tdata.get_worker_info)(5, shard)
    theirs = tdata.DataLoader(their_stream, **options, **WORKERS)
    assert _values(ours) == [getattr(batch, "tolist", lambda b=batch: b)() for batch in theirs]


def test_iter_from_skips_batches_with_workers():
    loader = DataLoader(Samples(7), batch_size=2, **WORKERS)
    assert _values(loader.iter_from(2)) == _values(DataLoader(Samples(7), batch_size=2))[2:]
    stream = DataLoader(Stream(6, shard=True), batch_size=1, **WORKERS)
    assert _values(stream.iter_from(3)) == [[3], [4], [5]]


def test_device_moves_batches_in_the_main_process(device):
    loader = DataLoader(TensorDataset(mt.arange(4.0)), batch_size=2, device=device, **WORKERS)
    batches = list(loader)
    assert [batch[0].device for batch in batches] == [tensor_device(device)] * 2
    assert [batch[0].tolist() for batch in batches] == [[0.0, 1.0], [2.0, 3.0]]


# -- worker info, worker_init_fn and seeds -------------------------------------------------

def _tag_worker(worker_id):
    get_worker_info().dataset.tag = 10 * worker_id + 1


def test_worker_info_seed_and_init_fn_in_each_worker():
    generator = mt.Generator().manual_seed(3)
    base = int(mt.empty((), dtype=mt.int64).random_(
        generator=mt.Generator().manual_seed(3)).item())
    loader = DataLoader(WhoAmI(), batch_size=None, generator=generator,
                        worker_init_fn=_tag_worker, **WORKERS)
    samples = list(loader)
    # Tasks go to the workers in turn; each worker is seeded with base + id, and its
    # default generator draws from that seed.
    assert [s["id"] for s in samples] == [0, 1] * 3
    assert {s["workers"] for s in samples} == {2}
    assert [s["seed"] for s in samples[:2]] == [base, base + 1]
    assert [s["tag"] for s in samples[:2]] == [1, 11]
    assert all(s["same"] for s in samples)
    for worker_id in (0, 1):
        mt.manual_seed(base + worker_id)
        draws = [float(mt.rand(()).item()) for _ in range(3)]
        assert [s["draw"] for s in samples if s["id"] == worker_id] == draws
    assert get_worker_info() is None


def test_worker_info_cannot_be_changed():
    def check(_):
        with pytest.raises(RuntimeError, match="Cannot assign attributes to WorkerInfo"):
            get_worker_info().id = 5
    list(DataLoader(Samples(2), batch_size=1, worker_init_fn=check, **WORKERS))


# -- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize("error, kind", [(ValueError("bad sample"), ValueError),
                                         (KeyError("bad sample"), KeyError),
                                         (UnicodeDecodeError("utf-8", b"x", 0, 1, "bad sample"),
                                          RuntimeError)])
def test_an_error_in_a_worker_is_raised_in_the_main_process(error, kind):
    iterator = iter(DataLoader(Failing(error), batch_size=2, **WORKERS))
    assert next(iterator).tolist() == [0, 1]
    with pytest.raises(kind) as caught:
        next(iterator)
    text = str(caught.value)
    assert f"Caught {type(error).__name__} in DataLoader worker process 1." in text
    assert "Original Traceback (most recent call last):" in text
    assert "in __getitem__" in text and "bad sample" in text
    # The next batches still come (as in PyTorch).
    assert next(iterator).tolist() == [4, 5]


def test_the_error_message_matches_pytorchs(torch_ref):
    def first_line(loader):
        with pytest.raises(ValueError) as caught:
            list(loader)
        return str(caught.value).splitlines()[:2]
    ours = first_line(DataLoader(Failing(ValueError("x"), at=0), batch_size=2, **WORKERS))
    theirs = first_line(torch_ref.utils.data.DataLoader(Failing(ValueError("x"), at=0),
                                                        batch_size=2, **WORKERS))
    assert ours == theirs


def _fail_init(worker_id):
    raise OSError(f"no disk for worker {worker_id}")


def test_an_error_in_worker_init_fn_comes_with_the_first_batch():
    with pytest.raises(OSError, match="Caught OSError in DataLoader worker process 0") as caught:
        list(DataLoader(Samples(4), batch_size=1, worker_init_fn=_fail_init, **WORKERS))
    assert "no disk for worker 0" in str(caught.value)


def test_timeout_raises_pytorchs_error():
    iterator = iter(DataLoader(Slow(), batch_size=1, timeout=0.3, **WORKERS))
    assert next(iterator).tolist() == [0] and next(iterator).tolist() == [1]
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.3 seconds$"):
        next(iterator)
    iterator.shutdown()


class Dies(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        os._exit(3)


def test_a_dead_worker_is_reported():
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) [\d, ]+\) exited "
                                           r"unexpectedly"):
        list(DataLoader(Dies(), batch_size=1, timeout=2, **WORKERS))


# -- shutdown and persistent workers ----------------------------------------------------------

def test_workers_end_when_the_pass_ends():
    iterator = iter(DataLoader(Pids(), batch_size=None, **WORKERS))
    pids = set(iterator)  # the iterator lives on: its end stopped the workers
    assert len(pids) == 2 and os.getpid() not in pids
    assert _wait_gone(pids)
    assert iterator.workers


def test_workers_end_when_the_iterator_is_dropped_mid_pass():
    iterator = iter(DataLoader(Pids(), batch_size=None, **WORKERS))
    pids = {worker.pid for worker in iterator.workers}
    assert next(iterator) in pids
    del iterator
    gc.collect()
    assert _wait_gone(pids)


def test_persistent_workers_serve_every_epoch_then_end_with_the_loader():
    loader = DataLoader(Pids(), batch_size=None, persistent_workers=True, **WORKERS)
    first, second = list(loader), list(loader)
    assert set(first) == set(second) and len(set(first)) == 2
    half = iter(loader)
    next(half)  # an unfinished pass: the next one starts afresh
    assert len(list(loader)) == 4
    stream = DataLoader(Stream(3), batch_size=2, persistent_workers=True, **WORKERS)
    assert _values(stream) == _values(stream) == [[0, 1], [0, 1], [2], [2]]
    del loader, half, stream
    gc.collect()
    assert _wait_gone(set(first))


def test_non_persistent_workers_are_new_at_each_epoch():
    loader = DataLoader(Pids(), batch_size=None, **WORKERS)
    assert not set(loader) & set(loader)


def test_at_most_prefetch_factor_tasks_per_worker_are_outstanding():
    iterator = iter(DataLoader(Samples(20), batch_size=1, prefetch_factor=3, **WORKERS))
    assert iterator.sent == 6
    next(iterator)
    assert iterator.sent == 7 and iterator.outstanding <= 6
    iterator.shutdown()


# -- arguments, against PyTorch ----------------------------------------------------------------

BAD_OPTIONS = [
    ({"num_workers": -1}, ValueError),
    ({"timeout": -1}, ValueError),
    ({"prefetch_factor": 2}, ValueError),
    ({"num_workers": 1, "prefetch_factor": -1}, ValueError),
    ({"persistent_workers": True}, ValueError),
    ({"multiprocessing_context": "fork"}, ValueError),
    ({"num_workers": 1, "multiprocessing_context": "threads"}, ValueError),
    ({"num_workers": 1, "multiprocessing_context": 5}, TypeError),
    ({"num_workers": -1, "timeout": -1}, ValueError),
]


@pytest.mark.parametrize("options, kind", BAD_OPTIONS)
def test_bad_options_raise_pytorchs_errors(torch_ref, options, kind):
    with pytest.raises(kind) as ours:
        DataLoader(Samples(3), **options)
    with pytest.raises(kind) as theirs:
        torch_ref.utils.data.DataLoader(Samples(3), **options)
    assert str(ours.value) == str(theirs.value)


def test_options_are_kept_and_defaulted_as_pytorch(torch_ref):
    context = multiprocessing.get_context(CONTEXT)
    options = {"num_workers": 2, "timeout": 1.5, "multiprocessing_context": context,
               "persistent_workers": True, "in_order": False}
    ours, theirs = DataLoader(Samples(3), **options), torch_ref.utils.data.DataLoader(
        Samples(3), **options)
    for name in ("num_workers", "timeout", "multiprocessing_context", "persistent_workers",
                 "in_order", "prefetch_factor", "pin_memory", "pin_memory_device"):
        assert getattr(ours, name) == getattr(theirs, name), name
    plain = DataLoader(Samples(3))
    assert plain.prefetch_factor is None and plain.num_workers == 0
    named = DataLoader(Samples(3), num_workers=1, multiprocessing_context=CONTEXT or "spawn")
    assert isinstance(named.multiprocessing_context, multiprocessing.context.BaseContext)


def test_positional_arguments_in_pytorchs_order():
    loader = DataLoader(Samples(4), 2, False, None, None, 0, None, False, True)
    assert loader.drop_last and len(loader) == 2


@pytest.mark.parametrize("num_workers", [0, 2])
def test_pin_memory_warns_as_pytorch_without_an_accelerator(torch_ref, num_workers):
    if mt.accelerator.is_available() or torch_ref.accelerator.is_available():
        pytest.skip("the warning is for machines without an accelerator")
    options = {"batch_size": 2, "pin_memory": True, "num_workers": num_workers}
    if num_workers:
        options["multiprocessing_context"] = CONTEXT
    message = "'pin_memory' argument is set as true but no accelerator is found"
    with pytest.warns(UserWarning, match=message):
        ours = _values(DataLoader(Ints(), **options))
    with pytest.warns(UserWarning, match=message):
        theirs = [batch.tolist() for batch in torch_ref.utils.data.DataLoader(Ints(), **options)]
    assert ours == theirs == [[0, 1], [2, 3]]


def test_pin_memory_device_is_deprecated_as_in_pytorch(torch_ref):
    def warnings_of(loader):
        with pytest.warns(UserWarning) as record:
            iter(loader)
        return sorted(str(w.message) for w in record)
    ours = warnings_of(DataLoader(Samples(2), pin_memory=True, pin_memory_device="cuda"))
    theirs = warnings_of(torch_ref.utils.data.DataLoader(Samples(2), pin_memory=True,
                                                         pin_memory_device="cuda"))
    assert ours == theirs


def test_more_workers_than_cpus_warns_as_pytorch(torch_ref):
    too_many = len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else 512
    with pytest.warns(UserWarning) as ours:
        DataLoader(Samples(2), num_workers=too_many)
    with pytest.warns(UserWarning) as theirs:
        torch_ref.utils.data.DataLoader(Samples(2), num_workers=too_many)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert "This DataLoader will create" in str(ours[0].message)


def test_the_loading_thread_draws_the_same_stream_as_pytorch_does():
    # One base seed per iterator, then the order: a loop over the loader moves the
    # default generator as PyTorch's does (one draw), with or without shuffling.
    mt.manual_seed(0)
    list(DataLoader(Samples(3)))
    after = float(mt.rand(()).item())
    mt.manual_seed(0)
    mt.empty((), dtype=mt.int64).random_()
    assert float(mt.rand(()).item()) == after
    assert np.isfinite(after)
