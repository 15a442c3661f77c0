"""Training steps (zero_grad, forward, loss, backward, SGD step) of the lecture's MNIST net
and of the tutorial's LeNet at batch 64 and 256, and inference at batch 1024, float32 on the
CPU, ours against PyTorch with the same thread count."""

from __future__ import annotations

import pytest

from minitorch_meta.tools import bench


@pytest.mark.parametrize("model", ["lecture", "lenet"])
@pytest.mark.parametrize("batch", [64, 256])
def test_training_step(benchmark, lib, model, batch):
    benchmark.group = f"train {model} b{batch}"
    case, = bench.training_cases(lib, lib.__name__, model, batch)
    benchmark(case.run)


@pytest.mark.parametrize("model", ["lecture", "lenet"])
def test_inference(benchmark, lib, model):
    benchmark.group = f"inference {model} b1024"
    case, = bench.inference_cases(lib, lib.__name__, model, 1024)
    benchmark(case.run)
