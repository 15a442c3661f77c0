"""logsumexp: values and gradients, stability with large values, inf/-inf rows, dtypes, errors."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4, 5)
CASES = [
    Case("logsumexp", lambda T, F, a: a.logsumexp(1), [Arg(S)]),
    Case("logsumexp_function", lambda T, F, a: T.logsumexp(a, dim=-1), [Arg(S)]),
    Case("logsumexp_dims_keepdim", lambda T, F, a: T.logsumexp(a, (0, 2), keepdim=True),
         [Arg(S)]),
    Case("logsumexp_list_of_dims", lambda T, F, a: a.logsumexp([2, -3]), [Arg(S)]),
    Case("logsumexp_every_dim", lambda T, F, a: a.logsumexp((0, 1, 2)), [Arg(S)]),
    Case("logsumexp_keepdim_positional", lambda T, F, a: a.logsumexp(0, True), [Arg(S)]),
    Case("logsumexp_0d", lambda T, F, a: a.logsumexp(0), [Arg(())]),
    Case("logsumexp_0d_tuple", lambda T, F, a: T.logsumexp(a, (-1,), True), [Arg(())]),
    Case("logsumexp_size_1_dim", lambda T, F, a: a.logsumexp(1), [Arg((3, 1, 2))]),
    # no overflow: exp(1000) is inf, the result is not
    Case("logsumexp_large", lambda T, F, a: (a * 1000).logsumexp(1), [Arg(S)]),
    Case("logsumexp_very_negative", lambda T, F, a: (a * 1000 - 1e4).logsumexp(-1), [Arg(S)]),
    Case("logsumexp_empty_slices", lambda T, F, a: a.logsumexp(0), [Arg((0, 3))]),
    Case("logsumexp_empty_elsewhere", lambda T, F, a: a.logsumexp(1), [Arg((0, 3))]),
    Case("logsumexp_then_mul", lambda T, F, a: a.logsumexp(2) * a.sum(2), [Arg(S)]),
    Case("logsumexp_int", lambda T, F, a: a.logsumexp(1), [Arg(S, "int:5")]),
    Case("logsumexp_int32", lambda T, F, a: a.int().logsumexp((0, 1)), [Arg(S, "int:5")]),
    Case("logsumexp_bool", lambda T, F, a: T.logsumexp(a, 2), [Arg(S, "bool")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


INF, NAN = float("inf"), float("nan")
ROWS = [[INF, 1.0], [-INF, -INF], [INF, -INF], [NAN, 1.0], [-INF, 2.0], [INF, INF],
        [1e30, 1e30], [-1e30, 3.0]]


@pytest.mark.parametrize("keepdim", [False, True])
def test_infinite_rows_values_and_gradients_as_torch(keepdim, device):
    torch = _torch()
    x = mt.tensor(ROWS, device=device, requires_grad=True)
    tx = torch.tensor(ROWS, requires_grad=True)
    out, ref = x.logsumexp(1, keepdim), tx.logsumexp(1, keepdim)
    np.testing.assert_array_equal(out.detach().cpu().numpy(), ref.detach().numpy())
    assert out.cpu().tolist()[:3] == ([[INF], [-INF], [INF]] if keepdim else [INF, -INF, INF])
    weights = np.arange(1.0, 1.0 + ref.numel(), dtype=np.float32).reshape(tuple(ref.shape))
    out.backward(mt.tensor(weights, device=device))
    ref.backward(torch.tensor(weights))
    np.testing.assert_array_equal(x.grad.cpu().numpy(), tx.grad.numpy())  # nan where torch's


def test_an_empty_tuple_reduces_every_dim():
    # PyTorch 2.13 fails on dim=() without keepdim; we reduce every dim (docs/differences.md)
    x = mt.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=mt.float64)
    expected = np.log(np.exp([0.0, 1.0, 2.0, 3.0]).sum())
    assert x.logsumexp(()).shape == () and np.isclose(x.logsumexp(()).item(), expected)
    assert x.logsumexp([], keepdim=True).shape == (1, 1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool"])
def test_dtypes_as_torch(dtype, device):
    torch = _torch()
    data = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    ours = mt.tensor(data, device=device).logsumexp((0, 2))
    theirs = torch.tensor(data).logsumexp((0, 2))
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-6)


def test_a_huge_meta_tensor_is_reduced_without_data():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    x.logsumexp(0)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        y = x.logsumexp((0, 2), keepdim=True)
        y.sum().backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert y.shape == (1, 2**20, 1) and y.grad_fn.name() == "LogsumexpBackward0"
    assert x.grad.is_meta and x.grad.shape == x.shape
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.logsumexp(3), IndexError,
     "logsumexp: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: mt.logsumexp(x, (0, -4)), IndexError,
     "logsumexp: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: x.logsumexp((1, -2)), RuntimeError,
     "logsumexp(): dim 1 appears multiple times in the list of dims (1, -2)"),
    (lambda x: x.logsumexp(None), TypeError,
     "logsumexp(): argument 'dim' (position 2) must be tuple of ints, not NoneType"),
    (lambda x: x.logsumexp(1.0), TypeError,
     "logsumexp(): argument 'dim' must be an int or a tuple of ints, but got float (1.0)"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
