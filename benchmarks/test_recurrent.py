"""Recurrent layers, ours against PyTorch with the same thread count: ``RNN`` (tanh),
``GRU`` and ``LSTM`` of 128 units over 50 steps of a batch of 32 (64 input features),
float32 on the CPU, as inference (``no_grad``) and as forward + backward; and a 2-layer
LSTM over 100 steps on the meta device (shapes only).

``test_recurrent`` times each case of each framework on its own (pytest-benchmark);
``test_recurrent_interleaved`` times all of them in one run, interleaved round by round with
a pause before each call (``bench.compare``), and prints medians and ratios ours / PyTorch,
the table of docs/benchmarks.md ("Recurrent layers"):

    .venv/bin/python -m pytest benchmarks/test_recurrent.py -k interleaved -s
"""

from __future__ import annotations

import numpy as np
import pytest

from minitorch_meta.tools import bench

STEPS, BATCH, FEATURES, HIDDEN = 50, 32, 64, 128
META_STEPS = 100
ROUNDS = 7
LAYERS = ("RNN", "GRU", "LSTM")
NAMES = ([f"{layer} {kind}" for layer in LAYERS for kind in ("forward", "forward+backward")]
         + [f"meta LSTM x2 over {META_STEPS} steps forward+backward"])


def recurrent_cases(lib, label: str) -> list[bench.Case]:
    """For each layer: inference under ``no_grad``, and forward + backward of the output's
    sum (the parameters' gradients reset before each call); then the meta LSTM."""
    lib.manual_seed(0)
    data = np.random.default_rng(0).standard_normal((STEPS, BATCH, FEATURES),
                                                    dtype=np.float32)
    x = lib.tensor(data)
    cases = []
    for name in LAYERS:
        layer = getattr(lib.nn, name)(FEATURES, HIDDEN)

        def infer(layer=layer):
            with lib.no_grad():
                return layer(x)[0]

        def train(layer=layer):
            layer.zero_grad(set_to_none=True)
            layer(x)[0].sum().backward()
            return layer.weight_hh_l0.grad

        cases += [bench.Case(f"{label} {name} forward", infer),
                  bench.Case(f"{label} {name} forward+backward", train)]
    return cases + [bench.Case(f"{label} {NAMES[-1]}", _meta_lstm(lib))]


def _meta_lstm(lib):
    layer = lib.nn.LSTM(FEATURES, HIDDEN, num_layers=2, device="meta")
    x = lib.empty(META_STEPS, BATCH, FEATURES, device="meta")

    def run():
        layer.zero_grad(set_to_none=True)
        layer(x)[0].sum().backward()
        return layer.weight_hh_l1.grad.shape

    return run


@pytest.mark.parametrize("name", NAMES)
def test_recurrent(benchmark, case_of, name):
    benchmark.group = f"recurrent: {name}"
    benchmark.pedantic(case_of(recurrent_cases, name).run, rounds=ROUNDS, warmup_rounds=1)


def test_recurrent_interleaved(torch):
    """Ours and PyTorch's cases interleaved in one run; prints the table."""
    rows = bench.compare(recurrent_cases, repeat=ROUNDS, settle=bench.STEADY_STATE_SETTLE)
    print(f"\n# {bench.environment()}")
    print(bench.format_comparison(f"recurrent layers, {STEPS} steps, batch {BATCH}, "
                                  f"{FEATURES} -> {HIDDEN}, float32, CPU (medians of "
                                  f"{ROUNDS} rounds)", rows))
    assert len(rows) == len(NAMES)
