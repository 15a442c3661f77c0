"""``argtopk`` (backends/xp_topk.py) is exactly the first ``k`` of the stable ``argsort``:
NaN the largest, tied values in index order, on the partial-selection path and off it."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt


def _data(rng, kind, shape):
    if kind == "ties":
        return rng.integers(0, 5, shape)
    if kind == "nan_ties":
        a = rng.integers(0, 4, shape).astype(np.float32)
        a[rng.random(shape) < 0.2] = np.nan
        return a
    if kind == "all_nan_rows":
        a = rng.standard_normal(shape)
        a[..., : shape[-1] // 2] = np.nan
        return a
    if kind == "uint8":
        return rng.integers(0, 3, shape).astype(np.uint8)
    if kind == "float16":
        return rng.integers(-3, 3, shape).astype(np.float16)
    return rng.standard_normal(shape)


@pytest.mark.parametrize("kind", ["ties", "nan_ties", "all_nan_rows", "uint8", "float16",
                                  "normal"])
@pytest.mark.parametrize("largest", [True, False])
def test_argtopk_is_the_start_of_the_stable_argsort(kind, largest, device):
    rng = np.random.default_rng(0)
    for shape, axis in [((3, 200), 1), ((200, 3), 0), ((2, 90, 4), 1), ((40,), 0),
                        ((5, 33), -1)]:
        data = _data(rng, kind, shape)
        t = mt.tensor(data, device=device)
        backend, a = t._backend, t._data
        axis = axis % data.ndim
        n = data.shape[axis]
        for k in sorted({0, 1, 2, n // 8, n // 4, n // 2, n}):
            want = backend.to_numpy(backend.argsort(a, axis, largest)).take(np.arange(k), axis)
            got = backend.to_numpy(backend.argtopk(a, axis, k, largest))
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, want, err_msg=f"{shape} k={k}")


@pytest.mark.parametrize("largest", [True, False])
def test_topk_of_long_rows_against_torch(largest, device):
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    data = np.random.default_rng(1).permutation(4 * 5000).reshape(4, 5000).astype(np.float32)
    data[0, 7] = np.nan  # the largest, as in PyTorch
    for k in (1, 5, 64):
        ours = mt.tensor(data, device=device).topk(k, 1, largest)
        theirs = torch.tensor(data).topk(k, 1, largest)
        np.testing.assert_array_equal(ours.values.cpu().numpy(), theirs.values.numpy())
        np.testing.assert_array_equal(ours.indices.cpu().numpy(), theirs.indices.numpy())
