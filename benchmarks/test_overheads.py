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
def test_dispatch(benchmark, lib, op):
    benchmark.group = f"tiny op: {op}"
    label = lib.__name__
    cases = {c.name[len(label) + 1:]: c for c in bench.dispatch_cases(lib, label)}
    benchmark(cases[op].run)
