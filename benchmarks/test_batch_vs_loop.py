"""EE-559's batch vs loop: ``x.mm(w.t())`` against ``for k: v[k] = w.mv(x[k])``.

x is (2500, 1000) and w is (1500, 1000), float32, on every device present, for ours,
raw NumPy and PyTorch. The lecture's printed line comes from
``python -m minitorch_meta bench batch-vs-loop``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.tools import bench

N, M, K = 2500, 1000, 1500


def _arrays():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((N, M), dtype=np.float32),
            rng.standard_normal((K, M), dtype=np.float32))


@pytest.mark.parametrize("device", bench.data_devices())
@pytest.mark.parametrize("kind", ["batch", "loop"])
def test_minitorch_meta(benchmark, device, kind):
    benchmark.group = f"batch-vs-loop {kind}"
    x, w = (mt.tensor(a, device=device) for a in _arrays())
    cases = bench.mm_cases(mt, f"minitorch_meta/{device}", x, w, bench.device_sync(mt, device))
    benchmark(cases[0 if kind == "batch" else 1].synchronised())


@pytest.mark.parametrize("kind", ["batch", "loop"])
def test_numpy(benchmark, kind):
    benchmark.group = f"batch-vs-loop {kind}"
    cases = bench.numpy_mm_cases(*_arrays())
    benchmark(cases[0 if kind == "batch" else 1].run)


@pytest.mark.parametrize("kind", ["batch", "loop"])
def test_torch(benchmark, torch, kind):
    benchmark.group = f"batch-vs-loop {kind}"
    x, w = (torch.tensor(a) for a in _arrays())
    cases = bench.mm_cases(torch, "torch/cpu", x, w, None)
    benchmark(cases[0 if kind == "batch" else 1].run)
