"""The meta backend: shapes and dtypes only, constant in memory whatever the sizes."""

from __future__ import annotations

import tracemalloc

import minitorch_meta as mt
import minitorch_meta.nn.functional as F


def test_huge_conv_allocates_no_data():
    x = mt.empty(2**10, 3, 2**16, 2**16, device="meta")
    w = mt.empty(5, 3, 2, 2, device="meta", requires_grad=True)
    F.conv2d(x, w)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        y = F.conv2d(x, w)
        text = repr(y)
        z = F.max_pool2d(F.relu(y), 2)
        z.sum().backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # past 80 characters the last suffix goes on its own line, as in PyTorch
    assert text == ("tensor(..., device='meta', size=(1024, 5, 65535, 65535),\n"
                    "       grad_fn=<ConvolutionBackward0>)")
    assert z.shape == (1024, 5, 32767, 32767) and w.grad.shape == (5, 3, 2, 2)
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


def test_meta_training_step_shapes():
    x = mt.empty(8, 1, 28, 28, device="meta")
    w1 = mt.empty(6, 1, 5, 5, device="meta", requires_grad=True)
    b1 = mt.empty(6, device="meta", requires_grad=True)
    w2 = mt.empty(10, 6 * 12 * 12, device="meta", requires_grad=True)
    h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1)), 2).flatten(1)
    loss = F.cross_entropy(F.linear(h, w2), mt.empty(8, dtype=mt.int64, device="meta"))
    assert loss.shape == () and loss.is_meta
    loss.backward()
    for p in (w1, b1, w2):
        assert p.grad.is_meta and p.grad.shape == p.shape and p.grad.dtype is p.dtype


def test_meta_dtypes_follow_promotion():
    a = mt.empty(2, dtype=mt.int64, device="meta")
    assert (a / 2).dtype is mt.float32 and (a + 1).dtype is mt.int64
    assert (a > 0).dtype is mt.bool and (a.float() * 2.0).dtype is mt.float32
    assert mt.empty(2, device="meta").to(mt.float64).dtype is mt.float64
