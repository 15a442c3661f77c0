"""``torch.profiler.profile``: which events are recorded, their names against PyTorch's, the
arithmetic of self and total times, the table, the Chrome trace, and the hook's cleanliness."""

from __future__ import annotations

import json
import os
import re
from collections import Counter

import pytest

import minitorch_meta as mt
from minitorch_meta.ops.function import _observers
from minitorch_meta.profiler import ProfilerActivity, profile, record_function
from minitorch_meta.profiler.events import BACKWARD_PREFIX, EventList, format_time

EVALUATE = BACKWARD_PREFIX  # "autograd::engine::evaluate_function: "


def _mlp_step(device):
    """Linear-ReLU-Linear, summed, backward: a graph whose events are known exactly."""
    mt.manual_seed(0)
    model = mt.nn.Sequential(mt.nn.Linear(5, 4), mt.nn.ReLU(), mt.nn.Linear(4, 3)).to(device)
    x = mt.randn(2, 5, device=device)
    with profile(record_shapes=True) as prof:
        model(x).sum().backward()
    return prof


MLP_COUNTS = {
    "aten::t": 2, "aten::addmm": 2, "aten::relu": 1, "aten::sum": 1,
    EVALUATE + "SumBackward0": 1, EVALUATE + "AddmmBackward0": 2,
    EVALUATE + "TBackward0": 2, EVALUATE + "ReluBackward0": 1,
    EVALUATE + "torch::autograd::AccumulateGrad": 4,
}


def test_call_counts_are_exact_for_a_known_model(any_device):
    prof = _mlp_step(any_device)
    assert Counter(event.name for event in prof.events()) == MLP_COUNTS
    averages = prof.key_averages()
    assert {avg.key: avg.count for avg in averages} == MLP_COUNTS
    assert sum(avg.count for avg in averages) == len(prof.events())


def test_events_are_recorded_on_meta_with_zero_cost_kernels():
    prof = _mlp_step("meta")
    addmm = [e for e in prof.events() if e.name == "aten::addmm"]
    assert [e.input_shapes for e in addmm] == [[[4], [2, 5], [5, 4]], [[3], [2, 4], [4, 3]]]
    assert all(e.cpu_time_total >= 0 for e in prof.events())


def test_backward_events_are_timed_around_each_node(any_device):
    prof = _mlp_step(any_device)
    events = prof.events()
    backward = [e for e in events if e.name.startswith(EVALUATE)]
    forward = [e for e in events if e.name.startswith("aten::")]
    assert all(e.scope == 1 for e in backward) and all(e.scope == 0 for e in forward)
    # The walk starts after the forward pass ends and visits the loss's node first.
    assert min(e.start_ns for e in backward) >= max(e.end_ns for e in forward)
    assert min(backward, key=lambda e: e.start_ns).name == EVALUATE + "SumBackward0"


def _cnn(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.ReLU(), lib.nn.MaxPool2d(2),
                              lib.nn.Flatten(), lib.nn.Linear(18, 4))
    x, y = lib.randn(2, 1, 8, 8), lib.tensor([0, 1])
    with lib.profiler.profile() as prof:
        lib.nn.functional.cross_entropy(model(x), y).backward()
    return Counter(event.name for event in prof.events())


def test_names_are_pytorchs():
    torch = pytest.importorskip("torch")
    ours, theirs = _cnn(mt), _cnn(torch)
    # Every op we record is one PyTorch records too (it also records the ops inside them).
    assert set(ours) <= set(theirs)
    assert {"aten::convolution", "aten::relu", "aten::max_pool2d_with_indices",
            "aten::addmm", "aten::log_softmax", "aten::nll_loss"} <= set(ours)
    # The backward nodes are the same, as many times.
    assert ({k: v for k, v in ours.items() if k.startswith(EVALUATE)}
            == {k: v for k, v in theirs.items() if k.startswith(EVALUATE)})


def test_op_names_without_gradient_and_of_indexing():
    a, b = mt.randn(3, 4), mt.randn(3, 4)
    with profile() as prof:
        a < b  # noqa: B015 - recorded, not used
        a.argmax()
        a[0]
        a[mt.tensor([0, 2])]
    assert [e.name for e in prof.events()] == ["aten::lt", "aten::argmax", "aten::select",
                                               "aten::index"]


def test_self_times_add_up(any_device):
    prof = _mlp_step(any_device)
    events = prof.events()
    for event in events:
        assert 0 <= event.self_cpu_time_total <= event.cpu_time_total
        children = sum(child.duration_ns for child in event.cpu_children)
        assert event.self_ns == event.duration_ns - children
    # Every moment is counted once: the self times sum to the top-level events' durations.
    top = [e for e in events if e.cpu_parent is None]
    assert sum(e.self_ns for e in events) == sum(e.duration_ns for e in top)
    averages = prof.key_averages()
    for avg in averages:
        assert 0 <= avg.self_cpu_time_total <= avg.cpu_time_total
        same = [e for e in events if e.name == avg.key]
        assert avg.cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in same))
        assert avg.cpu_time == pytest.approx(avg.cpu_time_total / avg.count)
    assert averages.self_cpu_time_total == pytest.approx(events.self_cpu_time_total)
    assert prof.profiler.total_average().count == len(events)


def _rows(table: str) -> list:
    """The table's data rows, each split on runs of two or more spaces."""
    lines = table.splitlines()  # rule, header, rule, rows..., rule, footer
    body = lines[3:lines.index(lines[0], 3)]
    return [re.split(r"\s{2,}", line.strip()) for line in body]


def _us(text: str) -> float:
    for unit, scale in (("ms", 1e3), ("us", 1.0), ("s", 1e6)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * scale
    raise AssertionError(f"not a time: {text!r}")


def test_table_columns_and_arithmetic():
    with profile() as prof:
        with record_function("step"):
            _mlp_step("cpu")  # a nested profiler: both record the same ops
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=-1)
    header = re.split(r"\s{2,}", table.splitlines()[1].strip())
    assert header == ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                      "CPU time avg", "# of Calls"]
    rows = _rows(table)
    assert [row[0] for row in rows][0] == "step"  # everything is inside it: the longest
    assert rows[0][3] == "100.00%"
    assert len(rows) == len(MLP_COUNTS) + 1
    for _name, self_share, self_time, total_share, total, avg, calls in rows:
        assert _us(self_time) <= _us(total) + 1e-3
        assert float(self_share[:-1]) <= float(total_share[:-1]) + 1e-2
        assert _us(avg) == pytest.approx(_us(total) / int(calls), rel=1e-2, abs=2e-3)
    assert sum(float(row[1][:-1]) for row in rows) == pytest.approx(100, abs=0.1)
    totals = [_us(row[4]) for row in rows]
    assert totals == sorted(totals, reverse=True)
    footer = table.splitlines()[-1]
    assert footer == f"Self CPU time total: {format_time(prof.profiler.self_cpu_time_total)}"


def test_table_options():
    prof = _mlp_step("cpu")
    averages = prof.key_averages()
    assert len(_rows(averages.table(row_limit=3))) == 3
    by_count = [int(row[-1]) for row in _rows(averages.table(sort_by="count"))]
    assert by_count == sorted(by_count, reverse=True)
    assert "ms" not in averages.table(time_unit="us").split("Self CPU time total")[0]
    shapes = prof.key_averages(group_by_input_shape=True).table(row_limit=-1)
    assert re.split(r"\s{2,}", shapes.splitlines()[1].strip())[-1] == "Input Shapes"
    assert "[[4], [2, 5], [5, 4]]" in shapes and "[[3], [2, 4], [4, 3]]" in shapes
    assert "Input Shapes" not in averages.table()
    assert EventList().table() == ""
    with pytest.raises(AttributeError, match="cannot sort by 'speed'"):
        averages.table(sort_by="speed")


def test_group_by_input_shape_splits_rows(any_device):
    x, y = mt.randn(2, 3, device=any_device), mt.randn(4, 3, device=any_device)
    with profile(record_shapes=True) as prof:
        x.relu()
        x.relu()
        y.relu()
    relus = [avg for avg in prof.key_averages(group_by_input_shape=True)
             if avg.key == "aten::relu"]
    assert sorted((avg.input_shapes, avg.count) for avg in relus) == [([[2, 3]], 2),
                                                                     ([[4, 3]], 1)]
    merged = [avg for avg in prof.key_averages() if avg.key == "aten::relu"]
    assert [(avg.count, avg.input_shapes) for avg in merged] == [(3, "")]


def test_profile_memory_counts_the_outputs_bytes():
    x = mt.randn(8, 4)
    with profile(profile_memory=True) as prof:
        x.exp()
        x.view(32)
    exp, view = prof.events()
    assert (exp.cpu_memory_usage, view.cpu_memory_usage) == (8 * 4 * 4, 0)  # a view owns none
    assert "CPU Mem" in prof.key_averages().table() and "128 B" in prof.key_averages().table()
    with profile(profile_memory=True) as prof:
        mt.randn(8, 4, device="meta").exp()
    assert prof.events()[0].cpu_memory_usage == 0  # meta allocates nothing


def test_profile_memory_counts_device_bytes_apart(device):
    x = mt.randn(8, 4, device=device)
    with profile(profile_memory=True) as prof:
        x.exp()
    (event,) = prof.events()
    on_cuda = mt.device(device).type == "cuda"
    assert (event.cpu_memory_usage, event.device_memory_usage) == ((0, 128) if on_cuda
                                                                   else (128, 0))


def test_an_op_instance_called_twice_is_recorded_twice():
    from minitorch_meta.ops.elementwise import Neg

    x, op = mt.randn(3), Neg()
    with profile() as prof:
        op(x)
        op(x)
    assert [event.name for event in prof.events()] == ["aten::neg", "aten::neg"]


def test_with_stack_names_the_callers_line():
    x = mt.randn(3)
    with profile(with_stack=True) as prof:
        x.exp()
    (event,) = prof.events()
    assert event.stack[0].startswith(f"{__file__}(")
    assert event.stack[0].endswith("test_with_stack_names_the_callers_line")
    assert not any(os.sep + "minitorch_meta" + os.sep in entry for entry in event.stack)
    table = prof.key_averages(group_by_stack_n=1).table()
    assert "Source Location" in table


def test_a_failing_op_is_recorded_and_leaves_no_observer():
    x = mt.randn(2, 3)
    with pytest.raises(ValueError), profile() as prof:
        with record_function("outer"):
            x.exp()
            x.view(7)  # a shape error inside the op's dispatch
    assert not _observers
    names = [e.name for e in prof.events()]
    assert names == ["outer", "aten::exp", "aten::view"]
    outer = prof.events()[0]
    assert [child.name for child in outer.cpu_children] == ["aten::exp", "aten::view"]
    x.exp()  # no longer recorded: the observer left
    assert len(prof.events()) == 3


def test_no_observer_outside_the_block_and_int_indexing_is_seen():
    x = mt.randn(3, 2)
    with profile() as prof:
        assert len(_observers) == 1
        x[1]  # the fast path of Tensor.__getitem__ is skipped while observed
    assert not _observers
    assert [e.name for e in prof.events()] == ["aten::select"]


def test_chrome_trace_is_valid_json(tmp_path, any_device):
    prof = _mlp_step(any_device)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    assert len(events) == len(prof.events())
    for entry in events:
        assert entry["ph"] == "X" and entry["dur"] >= 0 and entry["ts"] >= 0
        assert isinstance(entry["name"], str) and "pid" in entry and "tid" in entry
    assert Counter(e["name"] for e in events) == MLP_COUNTS
    addmm = [e for e in events if e["name"] == "aten::addmm"]
    assert addmm[0]["args"]["Input Dims"] == [[4], [2, 5], [5, 4]]
    assert os.listdir(tmp_path) == ["trace.json"]  # the temporary file was renamed


def test_chrome_trace_gzip_and_atomicity(tmp_path):
    import gzip

    prof = _mlp_step("cpu")
    prof.export_chrome_trace(str(tmp_path / "t.json.gz"))
    assert json.loads(gzip.decompress((tmp_path / "t.json.gz").read_bytes()))["traceEvents"]
    with pytest.raises(FileNotFoundError, match="does not exist"):
        prof.export_chrome_trace(str(tmp_path / "missing" / "t.json"))
    assert sorted(os.listdir(tmp_path)) == ["t.json.gz"]


def test_cuda_ops_are_synchronised_only_while_profiling(device, monkeypatch):
    x = mt.randn(4, 3, device=device)
    backend = x._backend
    calls = []
    monkeypatch.setattr(backend, "synchronize", lambda: calls.append(1), raising=False)
    x.exp()
    assert calls == []
    with profile() as prof:
        x.exp()
    expected = 2 if mt.device(device).type == "cuda" else 0  # before and after the op
    assert len(calls) == expected and len(prof.events()) == 1


def test_activities_and_unsupported_options():
    torch = pytest.importorskip("torch")
    with pytest.raises(AssertionError, match="No valid profiler activities found"):
        profile(activities=[])
    with pytest.raises(AssertionError, match="No valid profiler activities found"):
        torch.profiler.profile(activities=[])
    with pytest.raises(NotImplementedError, match="Include ProfilerActivity.CPU"):
        profile(activities=[ProfilerActivity.CUDA])
    with pytest.raises(NotImplementedError, match="with_flops is not supported"):
        profile(with_flops=True)
    with pytest.raises(NotImplementedError, match="experimental_config"):
        mt.autograd.profiler.profile(experimental_config=object())
    with pytest.warns(FutureWarning, match="`use_cuda` is deprecated"):
        profile(use_cuda=False)
    assert ProfilerActivity.CPU.value == torch.profiler.ProfilerActivity.CPU.value
    assert ProfilerActivity.CUDA.value == torch.profiler.ProfilerActivity.CUDA.value
    assert ProfilerActivity.CPU in mt.profiler.supported_activities()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        mt.randn(2).exp()
    assert len(prof.events()) == 1


def test_results_before_start_raise_as_pytorch():
    prof = profile()
    with pytest.raises(AssertionError, match="Profiler must be initialized before getting "
                                             "key averages"):
        prof.key_averages()
    with pytest.raises(AssertionError, match="before exporting chrome trace"):
        prof.export_chrome_trace("never.json")


def test_autograd_profiler_profile():
    x = mt.randn(3, requires_grad=True)
    with mt.autograd.profiler.profile(record_shapes=True) as prof:
        x.exp().sum().backward()
    assert [e.name for e in prof.function_events][:2] == ["aten::exp", "aten::sum"]
    assert prof.self_cpu_time_total == pytest.approx(prof.function_events.self_cpu_time_total)
    assert "aten::exp" in prof.table() and "aten::exp" in str(prof)
    assert prof.key_averages()[0].key == "aten::exp"
    with pytest.raises(RuntimeError, match="not reentrant"), prof:
        pass
    with mt.autograd.profiler.profile(enabled=False) as off:
        x.exp()
    assert off is None and not _observers
    with pytest.warns(FutureWarning, match="use_device = 'cuda'"):
        mt.autograd.profiler.profile(use_cuda=True)
    assert mt.autograd.profiler.record_function is record_function


def test_ops_in_another_thread_carry_its_id():
    import threading

    x = mt.randn(3)
    with profile() as prof:
        x.exp()
        worker = threading.Thread(target=lambda: x.log())
        worker.start()
        worker.join()
    exp, log = prof.events()
    assert exp.thread == threading.get_native_id() and log.thread == worker.native_id
    assert log.cpu_parent is None  # another thread's event is nobody's child here
