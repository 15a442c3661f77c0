"""The meta device: LeNet forward, and forward + loss + backward, on a (1024, 3, 32, 32)
input, and one conv on a tiny and on a (2**10, 3, 2**16, 2**16) input (the time must not
grow with the size), ours against PyTorch's meta device."""

from __future__ import annotations

import pytest

from minitorch_meta.tools import bench

CASES = ["lenet forward", "lenet forward+loss+backward", "conv2d tiny (1,3,8,8)",
         "conv2d huge (2**10,3,2**16,2**16)"]


@pytest.mark.parametrize("case", CASES)
def test_meta(benchmark, case_of, case):
    benchmark.group = f"meta: {case}"
    benchmark(case_of(bench.meta_cases, case).run)
