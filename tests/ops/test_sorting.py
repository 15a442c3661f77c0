"""sort and topk: values and indices, gradients to the chosen positions, ties, errors."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 5, 4)
D = "distinct"  # no ties: the gradient's positions are then PyTorch's whatever the sort
CASES = [
    Case("sort", lambda T, F, a: a.sort(), [Arg(S, D)]),
    Case("sort_dim0_descending", lambda T, F, a: T.sort(a, 0, descending=True).values,
         [Arg(S, D)]),
    Case("sort_stable_keyword", lambda T, F, a: a.sort(dim=1, stable=True).values, [Arg(S, D)]),
    Case("sort_indices", lambda T, F, a: a.sort(-2, True).indices, [Arg(S, D)]),
    Case("sort_1d", lambda T, F, a: T.sort(a)[0], [Arg((7,), D)]),
    Case("sort_0d", lambda T, F, a: a.sort(), [Arg(())]),
    Case("sort_int", lambda T, F, a: a.sort(descending=True), [Arg(S, "int:4")]),
    Case("topk", lambda T, F, a: a.topk(2), [Arg(S, D)]),
    Case("topk_smallest_dim0", lambda T, F, a: T.topk(a, 3, dim=0, largest=False).values,
         [Arg(S, D)]),
    Case("topk_indices", lambda T, F, a: a.topk(3, 1).indices, [Arg(S, D)]),
    # PyTorch leaves the order unspecified with sorted=False: compare an order-free sum
    Case("topk_unsorted", lambda T, F, a: T.topk(a, 2, 1, sorted=False).values.sum(1),
         [Arg(S, D)]),
    Case("topk_all", lambda T, F, a: a.topk(4).values, [Arg(S, D)]),
    Case("topk_zero", lambda T, F, a: a.topk(0, dim=1).values, [Arg(S, D)]),
    Case("topk_0d", lambda T, F, a: a.topk(1), [Arg(())]),
    Case("topk_then_mean", lambda T, F, a: a.topk(2, -1)[0].mean(), [Arg(S, D)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


TIES = [3.0, 1.0, 3.0, 2.0, 1.0, 3.0, float("nan"), -0.0, 0.0, 1.0, float("inf"), 3.0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("descending", [False, True])
def test_ties_order_as_torchs_stable_sort(dtype, descending, device):
    torch = _torch()
    rng = np.random.default_rng(0)
    data = np.concatenate([np.array(TIES * 3), rng.integers(0, 3, 60)]).reshape(4, 24)
    if dtype == "bool":
        data = data > 1
    elif not dtype.startswith("float"):
        data = np.nan_to_num(data, nan=5, posinf=7).astype(dtype)
    ours = mt.tensor(data.astype(dtype), device=device).sort(1, descending)
    theirs = torch.tensor(data.astype(dtype)).sort(dim=1, descending=descending, stable=True)
    np.testing.assert_array_equal(ours.values.cpu().numpy(), theirs.values.numpy())
    np.testing.assert_array_equal(ours.indices.cpu().numpy(), theirs.indices.numpy())
    assert ours.indices.dtype is mt.int64 and ours.values.dtype is mt.tensor(data.astype(
        dtype)).dtype


def test_tied_gradients_go_to_the_chosen_positions(device):
    x = mt.tensor([2.0, 5.0, 5.0, 1.0, 5.0], device=device, requires_grad=True)
    values, indices = x.topk(2)
    assert indices.tolist() == [1, 2]  # equal values: the first ones, in order
    (values * mt.tensor([1.0, 10.0], device=device)).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 10.0, 0.0, 0.0]
    x.grad = None
    values, indices = x.sort(descending=True)
    values.backward(mt.arange(5.0, device=device))
    assert indices.tolist() == [1, 2, 4, 0, 3]
    assert x.grad.tolist() == [3.0, 0.0, 1.0, 4.0, 2.0]


def test_named_results_like_torch_return_types():
    x = mt.tensor([[1.0, 4.0, 2.0]])
    result = mt.topk(x, 2)
    assert type(result).__name__ == "topk" and result._fields == ("values", "indices")
    assert result.values.tolist() == [[4.0, 2.0]] and result.indices.tolist() == [[1, 2]]
    values, indices = x.sort(descending=True)
    assert type(x.sort()).__name__ == "sort"
    assert values.tolist() == [[4.0, 2.0, 1.0]] and indices.tolist() == [[1, 2, 0]]


def test_indices_have_no_gradient_and_values_keep_the_dtype():
    x = mt.rand(4, 3, requires_grad=True, dtype=mt.float64)
    values, indices = x.topk(2, 0)
    assert indices.grad_fn is None and not indices.requires_grad
    assert values.dtype is mt.float64 and values.grad_fn.name() == "TopkBackward0"
    with mt.no_grad():
        assert x.sort().values.grad_fn is None


def test_a_huge_meta_tensor_is_sorted_without_data():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    x.topk(5)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        top = x.topk(5, dim=1, largest=False)
        ordered = x.sort(0, descending=True)
        (top.values.sum() + ordered.values.sum()).backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert top.values.shape == top.indices.shape == (2**20, 5, 2**10)
    assert top.indices.dtype is mt.int64 and top.indices.is_meta
    assert ordered.values.shape == ordered.indices.shape == x.shape
    assert x.grad.is_meta and x.grad.shape == x.shape
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.topk(5), RuntimeError,
     "selected index k out of range: k=5, but dimension -1 of the input of shape (2, 3, 4) "
     "has 4 element(s)"),
    (lambda x: x.topk(-1, 0), RuntimeError,
     "selected index k out of range: k=-1, but dimension 0 of the input of shape (2, 3, 4) "
     "has 2 element(s)"),
    (lambda x: x.sum().topk(2), RuntimeError,
     "selected index k out of range: k=2, but dimension -1 of the input of shape () has 1 "
     "element(s)"),
    (lambda x: x.topk(2.0), TypeError, "topk(): argument 'k' must be int, not float"),
    (lambda x: x.topk(1, 3), IndexError,
     "topk: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: (x > 0).topk(1), RuntimeError,
     "topk does not support bool dtypes; convert the input first, e.g. with .int()"),
    (lambda x: x.sort(-4), IndexError,
     "sort: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: mt.sort(x.sum(), 1), IndexError,
     "sort: Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
