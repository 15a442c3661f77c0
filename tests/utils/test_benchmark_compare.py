"""benchmark.Compare: the tables printed for the same measurements as PyTorch's, in every
mode (trimmed figures, colours by column and row, highlighted warnings), over random
layouts of labels, rows, columns, thread counts and environments."""

import random

import pytest

from minitorch_meta.utils import benchmark


def _random_measurements(rng, module):
    """Measurements of random tasks: labels, sub-labels, descriptions, thread counts and
    envs drawn from small sets (so cells collide, repeat as replicates, or are missing)."""
    rng_state = rng.getstate()
    out = []
    env_choices = rng.choice([[None], ["A", "B"], ["main", "a longer env"]])
    for _ in range(rng.randint(1, 14)):
        spec = module.TaskSpec(
            stmt=rng.choice(["x + 1", "torch.add(x, y)", "f(x)"]), setup="pass",
            label=rng.choice(["Add", "Mul", None]) if rng.random() < 0.9 else "Add",
            sub_label=rng.choice([None, "float", "int", "a much longer sub label"]),
            description=rng.choice(["n=1", "n=64", "[1, 2048]"]),
            env=rng.choice(env_choices), num_threads=rng.choice([1, 1, 4]))
        scale = 10.0 ** rng.randint(-8, 0)
        spread = rng.choice([0.001, 0.05, 0.3])
        times = [scale * rng.uniform(1, 9) * (1 + spread * rng.random())
                 for _ in range(rng.choice([1, 3, 8, 30]))]
        out.append(module.Measurement(rng.choice([1, 10, 1000]), times, spec))
    rng.setstate(rng_state)
    return out


def _compare(module, measurements, options):
    compare = module.Compare(measurements[:1])
    compare.extend_results(measurements[1:])
    for option in options:
        if option == "rowwise":
            compare.colorize(rowwise=True)
        else:
            getattr(compare, option)()
    return str(compare)


@pytest.mark.parametrize("seed", range(60))
def test_tables_as_pytorch(torch_ref, seed):
    from torch.utils import benchmark as torch_benchmark

    rng = random.Random(seed)
    options = rng.sample(["trim_significant_figures", "colorize", "rowwise",
                          "highlight_warnings"], rng.randint(0, 3))
    ours = _compare(benchmark, _random_measurements(rng, benchmark), options)
    theirs = _compare(torch_benchmark, _random_measurements(rng, torch_benchmark), options)
    assert ours == theirs


def test_a_table_by_hand(capsys):
    spec = dict(stmt="x + 1", setup="pass", label="Add")
    compare = benchmark.Compare([
        benchmark.Measurement(1, [1e-6, 1e-6], benchmark.TaskSpec(**spec, description="n=1")),
        benchmark.Measurement(1, [25e-6], benchmark.TaskSpec(**spec, description="n=64",
                                                               sub_label="float")),
    ])
    compare.print()
    # rows in the order their tasks came; cells in the unit of the fastest (1 us), one decimal
    assert capsys.readouterr().out == (
        "[---------- Add -----------]\n"
        "             |  n=1  |  n=64\n"
        "1 threads: -----------------\n"
        "      x + 1  |  1.0  |      \n"
        "      float  |       |  25.0\n"
        "\n"
        "Times are in microseconds (us).\n"
        "\n")


@pytest.mark.parametrize("rowwise", [False, True])
def test_colours_by_ratio_to_the_best_as_pytorch(torch_ref, rowwise):
    from torch.utils import benchmark as torch_benchmark

    from minitorch_meta.utils.benchmark.table import BAD, BEST, GOOD, VERY_BAD

    # a row and a column of ratios 1, 1.05 (good), 1.15 (plain), 3 (bad), 6 (very bad)
    ratios = [1.0, 1.05, 1.15, 3.0, 6.0]
    tables = []
    for module in (benchmark, torch_benchmark):
        results = []
        for i, ratio in enumerate(ratios):
            for spec in (dict(sub_label="row", description=f"c{i}"),
                         dict(sub_label=f"r{i}", description="column")):
                results.append(module.Measurement(1, [ratio * 1e-3],
                                                  module.TaskSpec("f()", "pass", **spec)))
        compare = module.Compare(results)
        compare.colorize(rowwise=rowwise)
        tables.append(str(compare))
    assert tables[0] == tables[1]
    for colour in (BEST, GOOD, BAD, VERY_BAD):
        assert colour in tables[0]
    # the other cells are each alone in their column (or row): the best of it
    assert tables[0].count(GOOD) == tables[0].count(VERY_BAD) == 1


def test_what_pytorch_cannot_print():
    # PyTorch raises TypeError for both: a task without description, an env beside none
    spec = dict(stmt="x + 1", setup="pass", label="L")
    table = str(benchmark.Compare([
        benchmark.Measurement(1, [2e-3], benchmark.TaskSpec(**spec)),
        benchmark.Measurement(1, [3e-3], benchmark.TaskSpec(**spec, env="A", sub_label="s")),
    ]))
    assert table.splitlines()[1:5] == ["                            |     ",
                                       "1 threads: -----------------------",
                                       "  (A)                s      |  3.0",
                                       "  (Unspecified env)  x + 1  |  2.0"]


def test_only_measurements_are_accepted():
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`, got "
                                         "<class 'float'> instead."):
        benchmark.Compare([1.0])


def test_pytorchs_compare_example_runs_with_minitorch_meta(torch_ref, capsys):
    # PyTorch's own example script (torch/utils/benchmark/examples/compare.py), with only
    # its imports changed (and fewer sizes, shorter runs, to stay quick)
    from pathlib import Path

    import torch.utils.benchmark.examples as examples

    source = (Path(examples.__file__).parent / "compare.py").read_text()
    replacements = [("import torch\n", "import minitorch_meta as torch\n"),
                    ("import torch.utils.benchmark as benchmark_utils",
                     "import minitorch_meta.utils.benchmark as benchmark_utils"),
                    ("[1, 10, 100, 1000, 10000, 50000]", "[1, 10]"),
                    ("min_run_time=0.05", "min_run_time=0.001")]
    for old, new in replacements:
        assert old in source, old
        source = source.replace(old, new)
    namespace = {"__name__": "example"}
    exec(compile(source, "compare.py", "exec"), namespace)
    namespace["main"]()
    out = capsys.readouterr().out
    assert "(severe_regression)  add" in out and "4 threads: ---" in out
    assert out.count("Times are in") == 2
