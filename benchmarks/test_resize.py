"""Resizing ops on a (64, 16, 32, 32) float32 batch, on the CPU: reflect and replicate
padding by (1, 1, 1, 1), nearest and bilinear (``align_corners=False``) x2 upsampling, and
bilinear downsampling 64 -> 24 (of a 64x64 batch), each as inference (``no_grad``) and as
forward + backward, ours against PyTorch with the same thread count.

``test_resize`` times each case of each framework on its own (pytest-benchmark);
``test_resize_interleaved`` times all of them in one run, interleaved round by round with a
pause before each call (``bench.compare``), and prints medians and ratios ours / PyTorch,
the table of docs/benchmarks.md ("Resizing ops"):

    .venv/bin/python -m pytest benchmarks/test_resize.py -k interleaved -s
"""

from __future__ import annotations

import numpy as np
import pytest

from minitorch_meta.tools import bench

BATCH, CHANNELS, SIDE = 64, 16, 32
ROUNDS = 7
# name -> (input side, the call of the op through a framework's nn.functional)
OPS = {
    "reflect pad 1": (SIDE, lambda F, x: F.pad(x, (1, 1, 1, 1), mode="reflect")),
    "replicate pad 1": (SIDE, lambda F, x: F.pad(x, (1, 1, 1, 1), mode="replicate")),
    "nearest x2": (SIDE, lambda F, x: F.interpolate(x, scale_factor=2, mode="nearest")),
    "bilinear x2": (SIDE, lambda F, x: F.interpolate(x, scale_factor=2, mode="bilinear",
                                                    align_corners=False)),
    "bilinear 64->24": (2 * SIDE, lambda F, x: F.interpolate(x, size=(24, 24),
                                                            mode="bilinear",
                                                            align_corners=False)),
}
KINDS = ("forward", "forward+backward")
NAMES = [f"{op} {kind}" for op in OPS for kind in KINDS]


def resize_cases(lib, label: str) -> list[bench.Case]:
    """For each op: inference under ``no_grad``, and forward + backward with a fixed
    upstream gradient (the input's gradient is reset before each call)."""
    F = bench.functional_of(lib)
    rng = np.random.default_rng(0)
    cases = []
    for op, (side, call) in OPS.items():
        data = rng.standard_normal((BATCH, CHANNELS, side, side), dtype=np.float32)
        x = lib.tensor(data, requires_grad=True)
        with lib.no_grad():
            out_shape = tuple(call(F, x).shape)
        gy = lib.tensor(rng.standard_normal(out_shape, dtype=np.float32))

        def infer(x=x, call=call):
            with lib.no_grad():
                return call(F, x)

        def train(x=x, call=call, gy=gy):
            x.grad = None
            call(F, x).backward(gy)
            return x.grad

        cases += [bench.Case(f"{label} {op} forward", infer),
                  bench.Case(f"{label} {op} forward+backward", train)]
    return cases


@pytest.mark.parametrize("name", NAMES)
def test_resize(benchmark, case_of, name):
    benchmark.group = f"resize: {name}"
    benchmark.pedantic(case_of(resize_cases, name).run, rounds=ROUNDS, warmup_rounds=1)


def test_resize_interleaved(torch):
    """Ours and PyTorch's cases interleaved in one run; prints the table."""
    rows = bench.compare(resize_cases, repeat=ROUNDS, settle=bench.STEADY_STATE_SETTLE)
    print(f"\n# {bench.environment()}")
    print(bench.format_comparison(f"resizing ops, ({BATCH}, {CHANNELS}, {SIDE}, {SIDE}) "
                                  f"float32, CPU (medians of {ROUNDS} rounds)", rows))
    assert len(rows) == len(NAMES)
