"""Reductions: sum and mean (all, dims, keepdim), max (all and along a dim), argmax."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import (
    Arg,
    Case,
    three_way_tests,
)

S = (2, 3, 4)
CASES = [
    Case("sum_all", lambda T, F, a: a.sum(), [Arg(S)]),
    Case("sum_dim", lambda T, F, a: a.sum(1), [Arg(S)]),
    Case("sum_neg_dim_keepdim", lambda T, F, a: a.sum(-1, keepdim=True), [Arg(S)]),
    Case("sum_dims", lambda T, F, a: T.sum(a, (0, 2)), [Arg(S)]),
    Case("sum_dims_keepdim", lambda T, F, a: a.sum(dim=(0, -1), keepdim=True), [Arg(S)]),
    Case("sum_0d", lambda T, F, a: (a * 2).sum(), [Arg(())]),
    Case("mean_all", lambda T, F, a: a.mean(), [Arg(S)]),
    Case("mean_dim", lambda T, F, a: T.mean(a, 0), [Arg(S)]),
    Case("mean_dim_keepdim", lambda T, F, a: a.mean(2, keepdim=True), [Arg(S)]),
    Case("mean_dims", lambda T, F, a: a.mean((1, 2)), [Arg(S)]),
    # An empty dim list reduces every dim in PyTorch (NumPy's axis=() reduces none).
    Case("sum_empty_dims", lambda T, F, a: a.sum(dim=()), [Arg(S)]),
    Case("mean_empty_dims_keepdim", lambda T, F, a: a.mean(dim=[], keepdim=True), [Arg(S)]),
    Case("sum_0d_dim0", lambda T, F, a: (a * 2).sum(0), [Arg(())]),
    Case("max_all", lambda T, F, a: a.max(), [Arg(S, "distinct")]),
    Case("max_dim", lambda T, F, a: a.max(1)[0], [Arg(S, "distinct")]),
    Case("max_dim_keepdim", lambda T, F, a: T.max(a, -1, keepdim=True).values,
         [Arg(S, "distinct")]),
    Case("max_dim_indices", lambda T, F, a: a.max(dim=0)[1], [Arg(S, "distinct")]),
]


test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_max_ties_share_the_gradient_like_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    data = np.array([[1.0, 3.0, 3.0], [3.0, 0.0, 2.0]], np.float32)
    ours, theirs = mt.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    ours.max().backward()
    theirs.max().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy())


def test_max_dim_returns_named_values_and_indices():
    x = mt.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    values, indices = x.max(dim=1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert indices.dtype is mt.int64
    result = mt.max(x, 0)
    assert result.values.tolist() == [7.0, 5.0, 3.0] and result.indices.tolist() == [1, 0, 1]


@pytest.mark.parametrize("dim, keepdim", [(None, False), (None, True), (0, False), (1, True),
                                          (-1, False)])
def test_argmax_against_torch(dim, keepdim):
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    ours = mt.tensor(data).argmax(dim, keepdim)
    theirs = torch.tensor(data).argmax(dim, keepdim)
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype is mt.int64
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    meta = mt.empty(3, 4, device="meta").argmax(dim, keepdim)
    assert meta.shape == ours.shape and meta.dtype is mt.int64


def test_argmax_has_no_grad_fn():
    assert mt.rand(3, requires_grad=True).argmax().grad_fn is None


def test_sum_of_integers_is_int64_and_of_bools_counts():
    assert mt.tensor([1, 2, 3], dtype=mt.int32).sum().dtype is mt.int64
    t = mt.tensor([True, False, True]).sum()
    assert t.dtype is mt.int64 and t.item() == 2
    # uint8 too (NumPy would give uint64), past 255, over all dims or one
    pixels = mt.full((2, 200), 255, dtype=mt.uint8)
    for total, expected in ((pixels.sum(), 102000), (pixels.sum(1), [51000, 51000])):
        assert total.dtype is mt.int64 and total.tolist() == expected


def test_float32_reductions_stay_float32():
    x = mt.rand(3, 4)
    for out in (x.sum(), x.sum(0), x.mean(), x.mean(1), x.max(), x.max(0)[0]):
        assert out.dtype is mt.float32


def test_reduction_errors():
    x = mt.rand(2, 3)
    with pytest.raises(IndexError, match=r"sum: Dimension out of range \(expected to be in "
                                         r"range of \[-2, 1\], but got 2\)"):
        x.sum(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.max(-3)
    with pytest.raises(RuntimeError, match="mean: expected a floating-point tensor, got dtype "
                                           "torch.int64"):
        mt.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError, match="max"):
        mt.empty(0).max()
    with pytest.raises(IndexError,
                       match=r"max\(\): Expected reduction dim 1 to have non-zero size"):
        mt.empty(2, 0).max(1)


def test_a_dim_listed_twice_is_refused_as_in_pytorch():
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        mt.ones(2, 3).sum(dim=(0, -2))
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times"):
        mt.ones(2, 3, device="meta").mean(dim=[1, 1])


# ``dtype=`` of sum and mean: the input is converted first; the gradient comes back in the
# input's dtype (float64 cases run the gradcheck, float32 ones compare with PyTorch).
DTYPE_CASES = [
    Case("sum_dtype_all", lambda T, F, a: a.sum(dtype=T.float64), [Arg(S)]),
    Case("sum_dtype_dim", lambda T, F, a: T.sum(a, 1, True, dtype=T.float64), [Arg(S)]),
    Case("mean_dtype_all", lambda T, F, a: a.mean(dtype=T.float64), [Arg(S)]),
    Case("mean_dtype_dim", lambda T, F, a: T.mean(a, -1, dtype=T.float64), [Arg(S)]),
    Case("mean_dtype_dims_keepdim",
         lambda T, F, a: T.mean(a, dim=(0, 2), keepdim=True, dtype=T.float64), [Arg(S)]),
    Case("mean_int_dtype", lambda T, F, a: a.mean(1, dtype=T.float32), [Arg(S, "int:7")]),
    Case("sum_int_dtype", lambda T, F, a: T.sum(a, 0, dtype=T.int32), [Arg(S, "int:7")]),
    Case("sum_bool_dtype", lambda T, F, a: a.sum(dtype=T.float32), [Arg(S, "bool")]),
]
(test_dtype_gradcheck, test_dtype_against_torch,
 test_dtype_meta_shapes) = three_way_tests(DTYPE_CASES)


@pytest.mark.parametrize("name", ["sum", "mean", "nansum", "prod", "cumsum"])
def test_reductions_take_dtype_like_torch(name, device):
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    data = np.arange(12, dtype=np.int64).reshape(3, 4) % 5
    for dtype in ("float32", "float64", "float16"):
        ours = getattr(mt.tensor(data, device=device), name)(1, dtype=getattr(mt, dtype))
        theirs = getattr(torch.tensor(data), name)(1, dtype=getattr(torch, dtype))
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy())
    if name != "mean":
        ours = getattr(mt, name)(mt.tensor(data, device=device), 0, dtype=mt.int32)
        assert ours.dtype is mt.int32
        assert ours.tolist() == getattr(torch, name)(torch.tensor(data), 0,
                                                      dtype=torch.int32).tolist()


def test_mean_dtype_errors_like_torch():
    for device in ("cpu", "meta"):
        ints = mt.ones(2, 3, dtype=mt.int64, device=device)
        with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype: dtype "
                                               "must be a floating-point dtype, got "
                                               "torch.int64"):
            ints.mean(dtype=mt.int64)
        with pytest.raises(RuntimeError, match="pass dtype=torch.float32"):
            ints.mean()
        with pytest.raises(RuntimeError, match="autograd does not support the result dtype "
                                               "torch.int64"):
            mt.ones(2, device=device, requires_grad=True).sum(dtype=mt.int64)
    with mt.no_grad():
        assert mt.ones(2, requires_grad=True).sum(dtype=mt.int64).item() == 2


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_dtype_result_gives_the_gradient_in_the_input_dtype(name, device):
    x = mt.ones(2, 3, device=device, requires_grad=True)
    getattr(x, name)(0, dtype=mt.float64).sum().backward()
    assert x.grad.dtype is mt.float32
    expected = 1.0 if name == "sum" else 0.5
    assert x.grad.tolist() == [[expected] * 3] * 2


def test_dtype_sums_in_that_dtype_like_torch(device):
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    data = np.full(5000, 0.1, np.float16)  # float16 steps are 0.25 near 500
    ours = mt.tensor(data, device=device).sum(dtype=mt.float32)
    theirs = torch.tensor(data).sum(dtype=torch.float32)
    assert ours.item() == pytest.approx(theirs.item(), abs=1e-3)


@pytest.mark.parametrize("call", [lambda x: x.sum(5), lambda x: x.transpose(0, -3),
                                  lambda x: x.unsqueeze(3), lambda x: x.cumsum(2),
                                  lambda x: x.softmax(-3), lambda x: x.size(2)])
def test_dim_out_of_range_says_what_torch_says(call, any_device):
    """PyTorch's message after our op name, so that ``match=`` written for it still fits."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    with pytest.raises(IndexError) as theirs:
        call(torch.ones(2, 3))
    with pytest.raises(IndexError) as ours:
        call(mt.ones(2, 3, device=any_device))
    assert str(theirs.value).startswith("Dimension out of range")
    assert str(ours.value).endswith(str(theirs.value))
