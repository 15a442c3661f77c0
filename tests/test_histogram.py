"""torch.histogram / Tensor.histogram: counts, weights, density and edges against PyTorch
(bins as a count or as edges, range, NaN and out-of-range elements), the named result,
meta shapes and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


DATA = np.random.default_rng(0).standard_normal((4, 25)).astype(np.float32)


def _compare(call, data=DATA, weight=None, dtype="float32", device="cpu"):
    torch = _torch()
    ours = call(mt, mt.tensor(data, dtype=getattr(mt, dtype), device=device),
                None if weight is None else mt.tensor(weight, dtype=getattr(mt, dtype),
                                                      device=device))
    ref = call(torch, torch.tensor(data, dtype=getattr(torch, dtype)),
               None if weight is None else torch.tensor(weight, dtype=getattr(torch, dtype)))
    assert type(ours).__name__ == "histogram" and ours._fields == ("hist", "bin_edges")
    for mine, theirs in zip(ours, ref):
        assert str(mine.dtype) == str(theirs.dtype) and mine.shape == theirs.shape
        assert mine.device == tensor_device(device) and not mine.requires_grad
        np.testing.assert_allclose(mine.cpu().numpy(), theirs.numpy(), rtol=1e-6, atol=1e-7)
    return ours


@pytest.mark.parametrize("call", [
    lambda T, x, w: T.histogram(x, 10),
    lambda T, x, w: x.histogram(7, range=(-1.0, 1.5)),
    lambda T, x, w: T.histogram(x, 1),
    lambda T, x, w: T.histogram(x, bins=5, density=True),
    lambda T, x, w: T.histogram(x, 4, range=(0, 3), density=True),
    lambda T, x, w: T.histogram(x, T.tensor([-3.0, -1.0, 0.0, 0.1, 2.5], dtype=x.dtype,
                                            device=x.device)),
    lambda T, x, w: T.histogram(x, T.tensor([-0.5, 0.5], dtype=x.dtype, device=x.device),
                                    density=True),
], ids=["count", "range", "one_bin", "density", "range_density", "edges", "edges_density"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_torch(call, dtype, device):
    _compare(call, dtype=dtype, device=device)


def test_weights_with_and_without_density(device):
    weight = np.random.default_rng(1).uniform(0, 2, DATA.shape).astype(np.float32)
    _compare(lambda T, x, w: T.histogram(x, 6, weight=w), weight=weight, device=device)
    _compare(lambda T, x, w: T.histogram(x, 6, weight=w, density=True), weight=weight,
             device=device)


@pytest.mark.parametrize("data", [
    np.ones(3, dtype=np.float32),  # one value: its range widened by 0.5 each way
    np.zeros(0, dtype=np.float32),  # no values: edges over [0, 1]
    np.array([1.0, 2.0, 4.0, 4.0, 7.0], dtype=np.float32),  # elements on the edges
    np.array([3.0, np.nan, -10.0, 1.0], dtype=np.float32),
], ids=["constant", "empty", "on_edges", "nan_and_outside"])
def test_edge_cases_match_torch(data):
    if np.isnan(data).any():  # a NaN makes the data's range NaN: give one
        _compare(lambda T, x, w: T.histogram(x, 3, range=(0.0, 4.0)), data=data)
        return
    _compare(lambda T, x, w: T.histogram(x, 3), data=data)
    _compare(lambda T, x, w: T.histogram(x, T.tensor([1.0, 2.0, 4.0])), data=data)


def test_counts_on_known_data():
    x = mt.tensor([1.0, 2.0, 1.0, 4.0, 2.5, 7.0])
    hist, edges = mt.histogram(x, 4)
    assert hist.tolist() == [3, 1, 1, 1] and edges.tolist() == [1.0, 2.5, 4.0, 5.5, 7.0]


def test_meta_gives_the_shapes():
    hist, edges = mt.histogram(mt.empty(2**20, 2**10, device="meta"), 30)
    assert hist.is_meta and hist.shape == (30,) and edges.shape == (31,)
    hist, edges = mt.empty(5, device="meta").histogram(mt.empty(4, device="meta"))
    assert hist.shape == (3,) and edges.shape == (4,)


X = [1.0, 2.0, 1.0, 4.0, 2.5, 7.0]


@pytest.mark.parametrize("call, error, message", [
    (lambda T: T.histogram(T.arange(3), 2), NotImplementedError,
     "\"histogramdd\" not implemented for 'Long'"),
    (lambda T: T.histogram(T.tensor(X), 0), RuntimeError,
     "torch.histogram(): bins must be > 0, but got 0 for dimension 0"),
    (lambda T: T.histogram(T.tensor(X), T.tensor([1.0])), RuntimeError,
     "torch.histogram(): bins must be > 0, but got 0 for dimension 0"),
    (lambda T: T.histogram(T.tensor(X), 2, range=(3.0, 1.0)), RuntimeError,
     "torch.histogramdd: min should not exceed max, but got min 3 max 1 for dimension 0"),
    (lambda T: T.histogram(T.tensor(X), 2, range=(0.0, float("inf"))), RuntimeError,
     "torch.histogramdd: dimension 0's range [0, inf] is not finite"),
    (lambda T: T.histogram(T.tensor(X), 2, weight=T.ones(2)), RuntimeError,
     "torch.histogramdd: if weight tensor is provided it should have the same shape as the "
     "input tensor excluding its innermost dimension, but got input with shape [6"),
    (lambda T: T.histogram(T.tensor(X), T.tensor([[1.0, 2.0]])), RuntimeError,
     "torch.histogramdd: bins tensor should have one dimension, but got 2 dimensions in the "
     "bins tensor for dimension 0"),
    (lambda T: T.histogram(T.tensor(X), T.tensor([1, 2])), RuntimeError,
     "torch.histogramdd: input tensor and bins tensors should have the same dtype"),
    (lambda T: T.histogram(T.tensor(X), 2, weight=T.ones(6, dtype=T.float64)), RuntimeError,
     "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should "
     "have the same dtype"),
])
def test_errors_match_torch(call, error, message):
    torch = _torch()
    with pytest.raises(error) as ref:
        call(torch)
    assert str(ref.value).startswith(message)
    with pytest.raises(error) as info:
        call(mt)
    assert str(info.value).startswith(message)


def test_out_keyword_and_no_gradient():
    hist, edges = mt.empty(3), mt.empty(4)
    result = mt.histogram(mt.tensor(X), 3, out=(hist, edges))
    assert result[0] is hist and result[1] is edges and hist.tolist() == [4, 1, 1]
    x = mt.tensor(X, requires_grad=True)
    assert mt.histogram(x, 2).hist.grad_fn is None  # PyTorch's has no gradient either
