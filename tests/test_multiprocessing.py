"""torch.multiprocessing (multiprocessing/): tensors through queues in shared memory,
spawn/start_processes and their errors, Hogwild training. Few processes, each joined with
a timeout (and terminated if it hangs), so that none is left behind."""

import contextlib
import multiprocessing as python_multiprocessing
from multiprocessing.reduction import ForkingPickler

import pytest

import minitorch_meta as torch
import minitorch_meta.multiprocessing as mp

TIMEOUT = 60  # seconds: a spawned child imports minitorch_meta and NumPy


@contextlib.contextmanager
def _joined(*processes):
    """Join the processes on the way out, terminating any still running."""
    try:
        yield
    finally:
        for process in processes:
            process.join(TIMEOUT)
            if process.is_alive():
                process.terminate()
                process.join()


def _add_one(queue, done):
    tensor = queue.get(timeout=TIMEOUT)
    with torch.no_grad():
        tensor.add_(1)
    done.put((tensor.is_shared(), type(tensor).__name__))


def _write_after_go(tensor, go, done):
    go.wait(TIMEOUT)
    seen = tensor[0].item()  # the parent wrote it after this process started
    tensor[1] = 7
    done.put(seen)


def _fill_row(i, tensor):
    tensor[i] = i + 1


def _raise(i):
    if i == 1:
        raise ValueError("bad worker")


def _exit_code(i):
    raise SystemExit(3)


def _hogwild(i, model, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.ones(4, 2), torch.zeros(4, 1)
    for _ in range(steps):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


def test_the_module_has_multiprocessings_names():
    for name in ("Process", "Queue", "SimpleQueue", "Pool", "get_context", "set_start_method",
                 "get_start_method", "get_all_start_methods", "spawn", "start_processes",
                 "ProcessContext", "ProcessRaisedException", "ProcessExitedException",
                 "set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"):
        assert name in mp.__all__ and hasattr(mp, name), name
    assert mp.get_all_start_methods() == python_multiprocessing.get_all_start_methods()
    assert torch.multiprocessing is mp


@pytest.mark.parametrize("strategy", ["file_descriptor", "file_system"])
def test_a_tensor_through_a_queue_shares_memory(strategy):
    before = mp.get_sharing_strategy()
    mp.set_sharing_strategy(strategy)
    try:
        context = mp.get_context("fork")
        queue, done = context.Queue(), context.Queue()
        tensor = torch.nn.Parameter(torch.zeros(2, 3).t()[1:])  # a view, and a Parameter
        child = context.Process(target=_add_one, args=(queue, done))
        child.start()
        with _joined(child):
            queue.put(tensor)
            assert done.get(timeout=TIMEOUT) == (True, "Parameter")
        assert child.exitcode == 0
        assert tensor.is_shared() and tensor.tolist() == [[1, 1]] * 2
    finally:
        mp.set_sharing_strategy(before)


def test_a_spawned_process_sees_the_senders_memory():
    context = mp.get_context("spawn")
    queue, done = context.Queue(), context.Queue()
    tensor = torch.arange(3.0)
    child = context.Process(target=_add_one, args=(queue, done))
    child.start()
    with _joined(child):
        queue.put(tensor)
        assert done.get(timeout=TIMEOUT) == (True, "Tensor")
    assert tensor.tolist() == [1, 2, 3]


def test_writes_show_both_ways_in_a_forked_child():
    context = mp.get_context("fork")
    tensor = torch.zeros(2).share_memory_()
    go, done = context.Event(), context.SimpleQueue()
    child = context.Process(target=_write_after_go, args=(tensor, go, done))
    child.start()
    with _joined(child):
        tensor[0] = 5
        go.set()
    assert done.get() == 5 and tensor[1].item() == 7


def test_plain_pickling_is_not_changed():
    tensor = torch.zeros(2)
    ForkingPickler.dumps(tensor)  # multiprocessing's pickler shares
    assert tensor.is_shared()
    import pickle

    other = torch.zeros(2)
    pickle.dumps(other)
    assert not other.is_shared()


def test_a_non_leaf_that_requires_grad_is_refused(torch_ref):
    for framework in (torch, torch_ref):  # (torch registers its reducers there too)
        made = framework.ones(2, requires_grad=True) * 2
        with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf "
                                               "tensor which requires_grad"):
            ForkingPickler.dumps(made)


def test_spawn_runs_fn_with_its_index():
    tensor = torch.zeros(2)
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        assert mp.spawn(_fill_row, args=(tensor,), nprocs=2, start_method="fork") is None
    assert tensor.tolist() == [1, 2]  # the arguments crossed in shared memory


def test_start_processes_reports_an_exception():
    with pytest.raises(mp.ProcessRaisedException, match="-- Process 1 terminated with the "
                                                        "following error:") as info:
        mp.start_processes(_raise, nprocs=2, start_method="fork")
    assert "ValueError: bad worker" in str(info.value) and info.value.error_index == 1


def test_start_processes_reports_an_exit_code():
    context = mp.start_processes(_exit_code, nprocs=1, join=False, start_method="fork")
    assert isinstance(context, mp.ProcessContext) and len(context.pids()) == 1
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit "
                                                        "code 3") as info:
        while not context.join(TIMEOUT):
            pass
    assert info.value.exit_code == 3 and info.value.signal_name is None


def test_hogwild_training_updates_the_parents_model():
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    model.share_memory()
    x, y = torch.ones(4, 2), torch.zeros(4, 1)
    with torch.no_grad():
        start = torch.nn.functional.mse_loss(model(x), y).item()
    context = mp.get_context("fork")
    workers = [context.Process(target=_hogwild, args=(i, model, 5)) for i in range(2)]
    for worker in workers:
        worker.start()
    with _joined(*workers):
        pass
    assert all(worker.exitcode == 0 for worker in workers)
    with torch.no_grad():  # the workers' SGD steps reached the parent's parameters
        assert torch.nn.functional.mse_loss(model(x), y).item() < start
