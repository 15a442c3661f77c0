"""benchmark.Measurement and TaskSpec: statistics checked by hand, and the repr against
PyTorch's for the same times (all but the first line, which names the object's address)."""

import pickle

import pytest

from minitorch_meta.utils import benchmark


def _lines_after_address(measurement):
    return repr(measurement).splitlines()[1:]


def test_statistics_of_an_odd_count_by_hand():
    # per-run times (raw / 2): 2.0, 0.5, 1.5, 1.0, 2.5 -> sorted 0.5 1.0 1.5 2.0 2.5
    m = benchmark.Measurement(2, [4.0, 1.0, 3.0, 2.0, 5.0], benchmark.TaskSpec("f()", "pass"))
    assert m.times == [2.0, 0.5, 1.5, 1.0, 2.5]
    assert m.median == 1.5 and m.mean == 1.5
    assert m.iqr == 1.0  # 2.0 - 1.0
    assert m.has_warnings and not m.meets_confidence(0.5) and m.meets_confidence(0.7)


def test_quartiles_of_an_even_count_interpolate_linearly():
    m = benchmark.Measurement(1, [4.0, 1.0, 3.0, 2.0], benchmark.TaskSpec("f()", "pass"))
    assert m.median == 2.5
    assert m.iqr == pytest.approx(3.25 - 1.75)


def test_significant_figures_by_hand():
    # 8 times: the middle half is times[2:6] = 100, 101, 100, 101 (us): std 0.5 us,
    # ci = 1.645 * 0.5 / 2 = 0.41 us, median 100.5 us: log10(245) -> 2 figures
    times = [90e-6, 95e-6, 100e-6, 100e-6, 101e-6, 101e-6, 120e-6, 130e-6]
    m = benchmark.Measurement(1, times, benchmark.TaskSpec("f()", "pass"))
    assert m.median == pytest.approx(100.5e-6)
    assert m.significant_figures == 2
    # the same spread at half the median: log10(50.5 / 0.41125) = 2.09 -> still 2 figures
    times = [40e-6, 45e-6, 50e-6, 50e-6, 51e-6, 51e-6, 60e-6, 70e-6]
    assert benchmark.Measurement(1, times, benchmark.TaskSpec("f()", "pass")
                                 ).significant_figures == 2
    # middle half 4.8, 4.8, 5.3, 5.3 us: ci = 1.645 * 0.25 / 2 us, log10(5.05 / 0.2056) = 1.39
    times = [3e-6, 4e-6, 4.8e-6, 4.8e-6, 5.3e-6, 5.3e-6, 6e-6, 7e-6]
    assert benchmark.Measurement(1, times, benchmark.TaskSpec("f()", "pass")
                                 ).significant_figures == 1
    steady = benchmark.Measurement(1, [1.0] * 8, benchmark.TaskSpec("f()", "pass"))
    assert steady.significant_figures == 4  # ci floored at 25 ns, figures capped at 4


def test_task_fields_read_through_and_unknown_names_raise():
    spec = benchmark.TaskSpec("x + 1", "x = 1", label="add", sub_label="int",
                              description="n=1", env="A", num_threads=2)
    m = benchmark.Measurement(10, [1e-3], spec, metadata={"k": 1})
    assert (m.stmt, m.setup, m.label, m.sub_label, m.description, m.num_threads) == (
        "x + 1", "x = 1", "add", "int", "n=1", 2)
    assert m.env == "A" and m.title == "add: int" and m.as_row_name == "int"
    assert m.metadata == {"k": 1}
    with pytest.raises(AttributeError, match="'Measurement' object has no attribute 'nope'"):
        _ = m.nope


def test_merge_pools_replicates_per_task():
    a, b = benchmark.TaskSpec("f()", "pass"), benchmark.TaskSpec("g()", "pass")
    merged = benchmark.Measurement.merge([benchmark.Measurement(2, [2.0, 4.0], a),
                                          benchmark.Measurement(1, [7.0], b),
                                          benchmark.Measurement(1, [3.0], a, metadata={"x": 1})])
    assert [(m.task_spec, m.number_per_run, m.raw_times, m.metadata) for m in merged] == [
        (a, 1, [1.0, 2.0, 3.0], None), (b, 1, [7.0], None)]


def test_a_measurement_pickles():
    m = benchmark.Measurement(3, [1e-3, 2e-3], benchmark.TaskSpec("f()", "pass", label="L"))
    again = pickle.loads(pickle.dumps(m))
    assert again == m and again.median == m.median and again.label == "L"


SPECS = [
    dict(stmt="x + 1", setup="pass"),
    dict(stmt="x + 1", setup="x = torch.ones(3)", label="Add", sub_label="float",
         description="n=3", num_threads=4),
    dict(stmt="a = 1\nb = a", setup="c = 1\nd = 2", sub_label="two lines"),
    dict(stmt="f()", setup="", description="multi\nline description"),
    dict(stmt="", setup="pass", label="L"),
]
TIMES = [
    (100, [1e-4, 1.2e-4, 1.1e-4, 2e-4, 0.9e-4]),  # a system-fluctuation warning
    (10, [1e-3]),  # one measurement: no "Median:", no IQR line
    (1, [3e-9, 4e-9, 5e-9]),  # three: no IQR line
    (7, [5.0, 5.1, 4.9, 5.0, 12.0, 1.0, 5.0, 5.0]),  # seconds, a gross warning
    (1000, [2.5e-3, 2.51e-3, 2.49e-3, 2.5e-3]),  # steady, ms
    (1, [9.9999999e-7, 1e-6, 1.0000001e-6, 1e-6]),  # at the ns/us boundary
]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("number, raw_times", TIMES)
def test_repr_and_statistics_as_pytorch(torch_ref, spec, number, raw_times):
    from torch.utils import benchmark as torch_benchmark

    ours = benchmark.Measurement(number, raw_times, benchmark.TaskSpec(**spec))
    theirs = torch_benchmark.Measurement(number, raw_times, torch_benchmark.TaskSpec(**spec))
    assert _lines_after_address(ours) == _lines_after_address(theirs)
    assert repr(ours).startswith("<minitorch_meta.utils.benchmark.measurement.Measurement "
                                 "object at 0x")
    assert str(ours) == repr(ours)
    assert ours.times == theirs.times
    for name in ("median", "mean", "iqr"):
        assert getattr(ours, name) == pytest.approx(getattr(theirs, name), rel=1e-12), name
    for name in ("significant_figures", "has_warnings", "title", "env", "as_row_name"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.task_spec.summarize() == theirs.task_spec.summarize()


def test_units_as_pytorch(torch_ref):
    import random

    from torch.utils import benchmark as torch_benchmark

    rng = random.Random(0)
    for _ in range(2000):
        mantissa = rng.choice([1.0, 9.99999999, 1.00000001, rng.uniform(1, 10)])
        x = mantissa * 10.0 ** rng.randint(-10, 2)
        n = rng.randint(1, 4)
        assert benchmark.select_unit(x) == torch_benchmark.select_unit(x), x
        assert benchmark.trim_sigfig(x, n) == torch_benchmark.trim_sigfig(x, n), (x, n)
    assert benchmark.unit_to_english("us") == "microsecond"
    assert benchmark.select_unit(2.5e-5) == ("us", 1e-6)
    assert benchmark.trim_sigfig(3.14159, 2) == pytest.approx(3.1)
    with pytest.raises(AssertionError, match="must be an integer"):
        benchmark.trim_sigfig(1.0, 1.5)
