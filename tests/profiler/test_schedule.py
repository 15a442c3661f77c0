"""Stepping a profiler through a ``schedule``: which steps record, when ``on_trace_ready``
runs, the ``ProfilerStep#n`` ranges, and ``tensorboard_trace_handler``; against PyTorch."""

from __future__ import annotations

import json
import os
import re
import warnings

import pytest

import minitorch_meta as mt
from minitorch_meta.ops.function import _observers
from minitorch_meta.profiler import (
    ProfilerAction,
    profile,
    schedule,
    tensorboard_trace_handler,
)

SCHEDULES = [dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=2, active=1, repeat=2),
             dict(wait=2, warmup=1, active=3, repeat=1, skip_first=3),
             dict(wait=3, warmup=1, active=1, skip_first=1, skip_first_wait=1)]


@pytest.mark.parametrize("arguments", SCHEDULES, ids=str)
def test_schedule_matches_pytorch(arguments):
    torch = pytest.importorskip("torch")
    ours, theirs = schedule(**arguments), torch.profiler.schedule(**arguments)
    assert [ours(step).name for step in range(25)] == [theirs(step).name for step in range(25)]


def test_schedule_checks_its_arguments_as_pytorch():
    torch = pytest.importorskip("torch")
    for bad in (dict(wait=-1, warmup=1, active=1), dict(wait=0, warmup=1, active=0),
                dict(wait=0, warmup=1, active=1, repeat=-2)):
        with pytest.raises(AssertionError) as theirs:
            torch.profiler.schedule(**bad)
        with pytest.raises(AssertionError) as ours:
            schedule(**bad)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(AssertionError, match="Step must be non-negative. Got -1."):
        schedule(wait=1, warmup=1, active=1)(-1)
    assert ([a.value for a in ProfilerAction]
            == [getattr(torch.profiler.ProfilerAction, a.name).value for a in ProfilerAction])


def _stepped(lib, steps: int, acc_events: bool = False, **arguments):
    """Run ``steps`` steps, step i running exp on a tensor of length i + 1; return, per
    call of on_trace_ready, the step number, the lengths seen and the ProfilerStep ranges."""
    ready = []

    def on_trace_ready(prof):
        names = [event.trace_name for event in prof.events()]
        lengths = sorted(event.input_shapes[0][0] for event in prof.events()
                         if event.name == "aten::exp")
        ranges = sorted(name for name in names if name.startswith("ProfilerStep#"))
        ready.append((prof.step_num, lengths, ranges))

    with lib.profiler.profile(schedule=lib.profiler.schedule(**arguments), record_shapes=True,
                              on_trace_ready=on_trace_ready, acc_events=acc_events) as prof:
        for i in range(steps):
            lib.ones(i + 1).exp()
            prof.step()
    return ready


@pytest.mark.parametrize("arguments", [dict(wait=1, warmup=1, active=2, repeat=2),
                                       dict(wait=0, warmup=1, active=1),
                                       dict(wait=2, warmup=1, active=2, skip_first=1)], ids=str)
@pytest.mark.parametrize("steps", [7, 9])
def test_stepping_records_the_active_steps_as_pytorch(arguments, steps):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():  # PyTorch warns that each cycle clears the last one's
        warnings.simplefilter("ignore")
        theirs = _stepped(torch, steps, **arguments)
    assert _stepped(mt, steps, **arguments) == theirs
    assert not _observers


def test_acc_events_keeps_every_cycle():
    torch = pytest.importorskip("torch")
    ready = _stepped(mt, 8, acc_events=True, wait=1, warmup=1, active=1)
    # The third cycle's recording starts at step 8 and stops at once, when the block ends.
    assert [lengths for _, lengths, _ in ready] == [[3], [3, 6], [3, 6]]
    assert ready == _stepped(torch, 8, acc_events=True, wait=1, warmup=1, active=1)


def test_without_schedule_everything_records_and_no_step_ranges():
    with profile() as prof:
        mt.ones(2).exp()
        prof.step()
        mt.ones(3).exp()
    assert [event.name for event in prof.events()] == ["aten::exp", "aten::exp"]


def test_an_incorrect_schedule_warns_as_pytorch():
    actions = [ProfilerAction.RECORD, ProfilerAction.NONE]
    with profile(schedule=lambda step: actions[min(step, 1)]) as prof:
        mt.ones(2).exp()
        with pytest.warns(UserWarning, match="Incorrect schedule: RECORD followed by NONE"):
            prof.step()
        mt.ones(3).exp()
    assert [event.trace_name for event in prof.events()] == ["ProfilerStep#0", "aten::exp"]
    assert prof.events()[0].name == "ProfilerStep*"  # as PyTorch names every step range


def test_tensorboard_trace_handler_writes_one_trace_per_cycle(tmp_path):
    folder = tmp_path / "log"
    handler = tensorboard_trace_handler(str(folder), worker_name="w")
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2),
                 on_trace_ready=handler) as prof:
        for _ in range(5):
            mt.ones(2).exp()
            prof.step()
    files = sorted(os.listdir(folder))
    assert len(files) == 2 and all(re.fullmatch(r"w\.\d+\.pt\.trace\.json", f) for f in files)
    for name in files:
        trace = json.loads((folder / name).read_text())
        assert {e["name"] for e in trace["traceEvents"]} == {"aten::exp", "ProfilerStep#1"} \
            or {e["name"] for e in trace["traceEvents"]} == {"aten::exp", "ProfilerStep#3"}
    gz = tensorboard_trace_handler(str(folder), worker_name="g", use_gzip=True)
    with profile(on_trace_ready=gz):  # without a schedule, ready when the block ends
        mt.ones(2).exp()
    assert any(name.startswith("g.") and name.endswith(".json.gz") for name in os.listdir(folder))


def test_tensorboard_trace_handler_cannot_create_its_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with profile() as prof:
        mt.ones(2).exp()
    with pytest.raises(RuntimeError, match="Can't create directory"):
        tensorboard_trace_handler(str(blocker / "sub"))(prof)
