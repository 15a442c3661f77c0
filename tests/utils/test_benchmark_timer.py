"""benchmark.Timer: the same calls on a deterministic clock give PyTorch's measurements;
the thread count is set for the timing and restored; CUDA is synchronised before the clock
is read; C++ and Callgrind are refused saying why."""

import sys

import pytest

import minitorch_meta as mt
from minitorch_meta.utils import benchmark

from ..devices import cuda_param
from .benchmark_clock import FakeClock


def _pair(jitter):
    """Our Timer and PyTorch's over the same code, each on its own identical clock."""
    from torch.utils import benchmark as torch_benchmark

    timers = []
    for module in (benchmark, torch_benchmark):
        clock = FakeClock(tick_seconds=1e-6, jitter=jitter)
        timers.append(module.Timer(stmt="clock.tick()", timer=clock, globals={"clock": clock},
                                   label="tick", sub_label="fake clock", description="d"))
    return timers


def _same(ours, theirs):
    assert (ours.number_per_run, ours.raw_times) == (theirs.number_per_run, theirs.raw_times)
    assert repr(ours).splitlines()[1:] == repr(theirs).splitlines()[1:]


@pytest.mark.parametrize("method, kwargs", [
    ("timeit", dict(number=1000)),
    ("timeit", dict(number=1)),
    ("blocked_autorange", dict()),
    ("blocked_autorange", dict(min_run_time=0.05)),
    ("adaptive_autorange", dict()),
    ("adaptive_autorange", dict(threshold=0.01, max_run_time=1.0)),
])
@pytest.mark.parametrize("jitter", [0.0, 2e-4])
def test_measurements_as_pytorch_on_a_fake_clock(torch_ref, method, kwargs, jitter):
    ours, theirs = _pair(jitter)
    _same(getattr(ours, method)(**kwargs), getattr(theirs, method)(**kwargs))


def test_block_size_and_counts_by_hand():
    # 1 us per run, no clock cost: blocks grow 1, 10, 100, 1000 until a block takes at
    # least min_run_time / 1000 = 0.2 ms; then 0.2 s / 1 ms = 200 blocks
    clock = FakeClock(tick_seconds=1e-6)
    m = benchmark.Timer("clock.tick()", timer=clock, globals={"clock": clock}).blocked_autorange()
    assert m.number_per_run == 1000 and len(m.raw_times) == 200
    assert m.median == pytest.approx(1e-6) and m.iqr == pytest.approx(0, abs=1e-15)


def test_callback_sees_every_block():
    clock = FakeClock(tick_seconds=1e-6)
    seen = []
    m = benchmark.Timer("clock.tick()", timer=clock, globals={"clock": clock}).blocked_autorange(
        callback=lambda number, seconds: seen.append((number, seconds)))
    assert seen == [(m.number_per_run, t) for t in m.raw_times]


def test_timeit_warms_up_then_times_number_runs():
    clock = FakeClock(tick_seconds=1e-3)
    m = benchmark.Timer("clock.tick()", timer=clock, globals={"clock": clock}).timeit(500)
    assert m.raw_times == [pytest.approx(0.5)] and m.number_per_run == 500
    assert clock.now == pytest.approx((5 + 500) * 1e-3)  # warm-up of 500 // 100 runs


def test_setup_globals_and_torch_is_minitorch_meta():
    seen = {}
    timer = benchmark.Timer("""
        out['torch'] = torch
        out['y'] = x + 1
    """, setup="x = 41", globals={"out": seen})
    timer.timeit(3)
    assert seen == {"torch": mt, "y": 42}
    assert timer._task_spec.stmt == "out['torch'] = torch\nout['y'] = x + 1"
    given = object()
    benchmark.Timer("out['torch'] = torch", globals={"out": seen, "torch": given}).timeit(2)
    assert seen["torch"] is given


def test_the_thread_count_is_set_while_timing_and_restored():
    before = mt.get_num_threads()
    if before == 1 and mt.threads.usable_cores() > 1:
        mt.set_num_threads(2)
        before = 2
    counts = []
    try:
        for method, kwargs in [("timeit", dict(number=5)),
                               ("blocked_autorange", dict(min_run_time=0.001)),
                               ("adaptive_autorange", dict(max_run_time=0.01))]:
            timer = benchmark.Timer("counts.append(torch.get_num_threads())",
                                    globals={"counts": counts}, num_threads=1)
            getattr(timer, method)(**kwargs)
            assert set(counts) == {1} and mt.get_num_threads() == before, method
            counts.clear()
        failing = benchmark.Timer("counts.append(torch.get_num_threads()); 1 / 0",
                                  globals={"counts": counts}, num_threads=1)
        with pytest.raises(ZeroDivisionError):
            failing.timeit(1)
        assert counts == [1] and mt.get_num_threads() == before
    finally:
        mt.set_num_threads(before)


def test_thread_count_is_that_of_the_timer():
    if mt.threads.usable_cores() < 2:
        pytest.skip("needs two cores to tell thread counts apart")
    before = mt.get_num_threads()
    mt.set_num_threads(1)
    counts = []
    try:
        benchmark.Timer("counts.append(torch.get_num_threads())", globals={"counts": counts},
                        num_threads=2).timeit(3)
        assert set(counts) == {2} and mt.get_num_threads() == 1
    finally:
        mt.set_num_threads(before)


@pytest.mark.parametrize("kinds, synchronised", [([], False), (["cpu", "meta"], False),
                                                  (["cpu", "cuda"], True)])
def test_the_default_timer_synchronises_once_cuda_was_used(monkeypatch, kinds, synchronised):
    calls = []
    monkeypatch.setattr(mt.cuda, "synchronize", lambda *args: calls.append(args))
    monkeypatch.setattr(sys.modules["minitorch_meta.utils.benchmark.timing"], "any_created",
                        lambda device_type: device_type in kinds)
    assert isinstance(benchmark.timer(), float)
    assert calls == ([()] if synchronised else [])


def test_any_created_sees_the_backends_made():
    from minitorch_meta.backends import registry

    mt.ones(1)
    assert registry.any_created("cpu")
    assert registry.any_created("cuda") == any(
        b.device.type == "cuda" for b in registry.created_backends())


@pytest.mark.parametrize("device", [cuda_param()])
def test_cuda_is_synchronised_before_the_clock_is_read(device, monkeypatch):
    x = mt.ones(3, device=device)  # a CUDA backend exists from here on
    calls = []
    synchronize = mt.cuda.synchronize
    monkeypatch.setattr(mt.cuda, "synchronize", lambda *a: (calls.append(a), synchronize(*a)))
    m = benchmark.Timer("x + 1", globals={"x": x}).timeit(10)
    # each timing reads the clock twice (warm-up and measurement), synchronising first
    assert len(calls) == 4 and m.number_per_run == 10


def test_cpp_and_callgrind_are_refused():
    for language in ("c++", "cpp", benchmark.Language.CPP):
        with pytest.raises(NotImplementedError, match="no C\\+\\+ API"):
            benchmark.Timer("x", language=language)
    with pytest.raises(NotImplementedError, match="collect_callgrind.*no C\\+\\+ to count"):
        benchmark.Timer().collect_callgrind()


def test_bad_arguments_raise_as_pytorch():
    with pytest.raises(ValueError, match="Invalid language `rust`."):
        benchmark.Timer(language="rust")
    with pytest.raises(ValueError, match="Currently only a `str` stmt is supported."):
        benchmark.Timer(stmt=lambda: None)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only, got `import x`"):
        benchmark.Timer(global_setup="import x")
    for method in ("repeat", "autorange"):
        with pytest.raises(NotImplementedError, match="See `Timer.blocked_autorange.`"):
            getattr(benchmark.Timer(), method)()


def test_torch_utils_benchmark_import_paths():
    import minitorch_meta.utils.benchmark as imported

    assert mt.utils.benchmark is imported
    assert imported.Timer is benchmark.Timer
