"""Shared helpers of the pytest-benchmark files: PyTorch as an optional reference.

Run with ``make bench`` or ``pytest benchmarks --benchmark-columns=median,iqr,rounds``.
pytest-benchmark times each case on its own; ``benchmarks/run_all.py`` interleaves ours
and PyTorch's in one run and prints the ratios of ``docs/benchmarks.md``.
"""

from __future__ import annotations

import pytest

from minitorch_meta.tools import bench


@pytest.fixture(scope="session")
def torch():
    """PyTorch with as many threads as NumPy's BLAS, or a skip when it is not installed."""
    module = bench.optional_torch()
    if module is None:
        pytest.skip("PyTorch is not installed: it is the reference of these benchmarks")
    bench.match_torch_threads(module)
    return module


@pytest.fixture(params=["minitorch_meta", "torch"])
def lib(request):
    """Each framework in turn: ours, then PyTorch (skipped when not installed)."""
    if request.param == "torch":
        return request.getfixturevalue("torch")
    import minitorch_meta

    return minitorch_meta


@pytest.fixture
def case_of(lib):
    """``case_of(bench.meta_cases, "lenet forward")``: that case of ``lib``, by its name
    without the framework label that ``bench`` puts in front."""
    label = lib.__name__

    def find(make_cases, name: str):
        cases = {c.name[len(label) + 1:]: c for c in make_cases(lib, label)}
        return cases[name]

    return find
