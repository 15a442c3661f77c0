"""Overheads: ``import minitorch_meta`` in a fresh interpreter, and the per-op cost of
tiny (2, 2) tensors (add, mm, view), ours against PyTorch."""

from __future__ import annotations

import pytest

from minitorch_meta.tools import bench

OPS = ["add", "mm", "view", "add (requires_grad)"]


@pytest.mark.parametrize("module", ["minitorch_meta", "torch"])
def test_import_time(benchmark, module, torch):
    benchmark.group = "import (fresh interpreter)"
    benchmark.pedantic(bench.import_seconds, args=(module, 1), rounds=5, iterations=1)


@pytest.mark.parametrize("op", OPS)
def test_dispatch(benchmark, case_of, op):
    benchmark.group = f"tiny op: {op}"
    benchmark(case_of(bench.dispatch_cases, op).run)
