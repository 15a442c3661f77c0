"""``record_function``: named ranges that nest, as a ``with`` block and as a decorator."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from minitorch_meta.profiler import profile, record_function


def _by_name(prof) -> dict:
    return {event.name: event for event in prof.events()}


def test_ranges_nest_and_children_count_in_total_not_self(any_device):
    x = mt.randn(4, 4, device=any_device)
    with profile() as prof:
        with record_function("outer"):
            x.exp()
            with record_function("inner"):
                x.mm(x)
    events = _by_name(prof)
    outer, inner, exp, mm = (events[k] for k in ("outer", "inner", "aten::exp", "aten::mm"))
    assert inner.cpu_parent is outer and mm.cpu_parent is inner and exp.cpu_parent is outer
    assert outer.cpu_children == [exp, inner] and inner.cpu_children == [mm]
    assert outer.self_ns == outer.duration_ns - exp.duration_ns - inner.duration_ns
    assert inner.self_ns == inner.duration_ns - mm.duration_ns
    assert outer.start_ns <= exp.start_ns and inner.end_ns <= outer.end_ns
    assert outer.is_user_annotation and not mm.is_user_annotation
    averages = {avg.key: avg for avg in prof.key_averages()}
    assert averages["outer"].cpu_time_total == outer.cpu_time_total
    assert averages["outer"].self_cpu_time_total < averages["outer"].cpu_time_total


def test_as_a_decorator_and_recursively():
    @record_function("fact")
    def fact(n):
        return mt.ones(1) if n == 0 else fact(n - 1) * n

    with profile() as prof:
        fact(2)
    facts = [event for event in prof.events() if event.name == "fact"]
    assert len(facts) == 3
    assert facts[1].cpu_parent is facts[0] and facts[2].cpu_parent is facts[1]
    assert {avg.key: avg.count for avg in prof.key_averages()}["fact"] == 3


def test_outside_a_profiler_it_records_nothing():
    with record_function("alone") as block:
        mt.ones(2).exp()
    assert isinstance(block, record_function)
    with profile() as prof:
        pass
    assert len(prof.events()) == 0


def test_a_range_left_after_the_profiler_stopped_is_dropped():
    block = record_function("late")
    with profile() as prof:
        block.__enter__()
        mt.ones(2).exp()
    block.__exit__(None, None, None)
    assert [event.name for event in prof.events()] == ["aten::exp"]


def test_overlapping_ranges_are_not_nested():
    first, second = record_function("first"), record_function("second")
    with profile() as prof:
        first.__enter__()
        second.__enter__()
        first.__exit__(None, None, None)
        second.__exit__(None, None, None)
    events = _by_name(prof)
    assert events["second"].cpu_parent is None  # it outlives "first": not its child
    assert events["first"].self_ns == events["first"].duration_ns


def test_name_must_be_a_str():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):  # PyTorch's op schema refuses it on entry
        with torch.profiler.record_function(123):
            pass
    with pytest.raises(TypeError, match="expected the range's name as a str, got int"):
        record_function(123)
