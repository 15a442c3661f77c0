"""nansum, nanmean, var_mean, std_mean, count_nonzero and aminmax: values and gradients
against PyTorch, NaN, dtypes, shapes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 5, 4)
NAN = float("nan")


def _with_nans(T, a):
    """``a`` with NaN where it is above 1 (about one element in six)."""
    return a.masked_fill(a > 1, NAN)


def _finite(T, out):
    """NaN results as 0, so that finite differences can check the others' gradients."""
    return T.where(T.isnan(out), T.zeros_like(out), out)


CASES = [
    Case("nansum", lambda T, F, a: T.nansum(_with_nans(T, a)), [Arg(S)]),
    Case("nansum_dim", lambda T, F, a: _with_nans(T, a).nansum(1), [Arg(S)]),
    Case("nansum_dims_keepdim", lambda T, F, a: T.nansum(_with_nans(T, a), (0, -1), True),
         [Arg(S)]),
    Case("nansum_empty_dims", lambda T, F, a: T.nansum(a, dim=[]), [Arg(S)]),
    Case("nansum_dtype", lambda T, F, a: T.nansum(a, 2, dtype=T.float64), [Arg(S)]),
    Case("nansum_int", lambda T, F, a: a.nansum(0), [Arg(S, "int:9")]),
    Case("nansum_bool", lambda T, F, a: a.nansum(), [Arg(S, "bool")]),
    Case("nansum_0d", lambda T, F, a: a.nansum(), [Arg(())]),
    Case("nanmean", lambda T, F, a: T.nanmean(_with_nans(T, a)), [Arg(S)]),
    Case("nanmean_dim", lambda T, F, a: _finite(T, _with_nans(T, a).nanmean(1)), [Arg(S)]),
    Case("nanmean_keepdim", lambda T, F, a: T.nanmean(_with_nans(T, a), (0, 2), keepdim=True),
         [Arg(S)]),
    Case("var_mean", lambda T, F, a: T.var_mean(a)[0], [Arg(S)]),
    Case("var_mean_mean", lambda T, F, a: T.var_mean(a, 1)[1], [Arg(S)]),
    Case("var_mean_unbiased_false", lambda T, F, a: T.var_mean(a, 1, False, True)[0],
         [Arg(S)]),
    Case("var_mean_unbiased_positional", lambda T, F, a: T.var_mean(a, False)[0], [Arg(S)]),
    Case("var_mean_correction", lambda T, F, a: T.var_mean(a, (0, 2), correction=2)[0],
         [Arg(S)]),
    Case("std_mean", lambda T, F, a: T.std_mean(a)[0], [Arg(S)]),
    Case("std_mean_dims", lambda T, F, a: T.std_mean(a, dim=[-1, 0], keepdim=True)[0],
         [Arg(S)]),
    Case("std_mean_mean", lambda T, F, a: T.std_mean(a, 2, correction=0)[1], [Arg(S)]),
    Case("var_mean_dim_empty_mean", lambda T, F, a: T.var_mean(a, ())[1], [Arg(S)]),
    Case("std_mean_dim_empty_keepdim", lambda T, F, a: T.std_mean(a, [], keepdim=True)[1],
         [Arg(S)]),
    Case("count_nonzero", lambda T, F, a: T.count_nonzero(a), [Arg(S, "int:3")]),
    Case("count_nonzero_dim", lambda T, F, a: a.count_nonzero(1), [Arg(S, "int:3")]),
    Case("count_nonzero_dims", lambda T, F, a: T.count_nonzero(a, (0, -1)), [Arg(S, "bool")]),
    Case("count_nonzero_float_nan", lambda T, F, a: T.count_nonzero(_with_nans(T, a), 2),
         [Arg(S)]),
    Case("count_nonzero_0d", lambda T, F, a: T.count_nonzero(a * 0, 0), [Arg(())]),
    Case("aminmax_min", lambda T, F, a: T.aminmax(a).min, [Arg(S, "distinct")]),
    Case("aminmax_max", lambda T, F, a: a.aminmax().max, [Arg(S, "distinct")]),
    Case("aminmax_dim_min", lambda T, F, a: T.aminmax(a, dim=1)[0], [Arg(S, "distinct")]),
    Case("aminmax_dim_max", lambda T, F, a: a.aminmax(dim=-1, keepdim=True)[1],
         [Arg(S, "distinct")]),
    Case("aminmax_0d", lambda T, F, a: T.aminmax(a, dim=0).max, [Arg(())]),
    Case("aminmax_int", lambda T, F, a: T.aminmax(a, dim=0).min, [Arg(S, "int:5")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def test_both_outputs_carry_gradients_named_as_torchs(device):
    torch = _torch()
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    data[0, :2] = data[0, 2]  # tied minima or maxima share the gradient
    for name in ("var_mean", "std_mean", "aminmax"):
        x = mt.tensor(data, device=device, requires_grad=True)
        ref = torch.tensor(data, requires_grad=True)
        ours = getattr(mt, name)(x, dim=1)
        theirs = getattr(torch, name)(ref, dim=1)
        assert [o.grad_fn.name() for o in ours] == [type(t.grad_fn).__name__ for t in theirs]
        (ours[0] * 2 + ours[1] * 3).sum().backward()
        (theirs[0] * 2 + theirs[1] * 3).sum().backward()
        np.testing.assert_allclose(x.grad.cpu().numpy(), ref.grad.numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_nan_edge_values(device):
    torch = _torch()
    for data in ([NAN, NAN], [1.0, NAN, 2.0], []):
        for name in ("nansum", "nanmean"):
            ours = getattr(mt.tensor(data, device=device), name)()
            theirs = getattr(torch.tensor(data), name)()
            np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())
    x = mt.tensor([1.0, NAN, 2.0], device=device, requires_grad=True)
    x.nanmean().backward()
    assert x.grad.tolist() == [0.5, 0.0, 0.5]
    assert mt.ones(2, 0, device=device).nanmean(1).isnan().all().item()


def test_dtypes_and_named_results(device):
    x = mt.tensor([[0, 3, 1], [0, 0, 7]], dtype=mt.uint8, device=device)
    assert x.nansum().dtype is mt.int64 and x.nansum().item() == 11
    assert x.count_nonzero().dtype is mt.int64 and x.count_nonzero(0).tolist() == [0, 1, 2]
    result = x.aminmax()
    assert type(result).__name__ == "aminmax" and result._fields == ("min", "max")
    assert result.min.item() == 0 and result.max.item() == 7 and result.max.dtype is mt.uint8
    low, high = mt.tensor([True, False], device=device).aminmax()
    assert low.item() is False and high.item() is True
    v, m = mt.var_mean(mt.ones(4, 2, dtype=mt.float64, device=device), 0)
    assert v.dtype is m.dtype is mt.float64 and v.tolist() == [0.0, 0.0]
    assert mt.ones(2, 0, device=device).aminmax(dim=0).min.shape == (0,)


def test_a_huge_meta_tensor_needs_no_data():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    s = x.nansum((0, 2), keepdim=True)
    assert s.shape == (1, 2**20, 1)
    low, high = x.aminmax(dim=1)
    v, m = mt.std_mean(x, 0)
    assert x.count_nonzero(1).shape == (2**20, 2**10)
    (s.sum() + low.sum() + high.sum() + v.sum() + m.sum() + x.nanmean().sum()).backward()
    assert x.grad.is_meta and x.grad.shape == x.shape


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.nansum(3), IndexError,
     "nansum: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.nansum((1, -2)), RuntimeError,
     "nansum(): dim 1 appears multiple times in the list of dims (1, -2)"),
    (lambda x: x.long().nanmean(), RuntimeError,
     "nanmean(): expected input to have floating point dtype but got torch.int64; convert it "
     "with .float()"),
    (lambda x: mt.var_mean(x.long()), RuntimeError,
     "var_mean only support floating point and complex dtypes, but got torch.int64; convert "
     "the input with .float()"),
    (lambda x: mt.std_mean(x, 1, True, correction=1), TypeError,
     "std_mean(): pass either unbiased or correction, not both (unbiased=False is "
     "correction=0)"),
    (lambda x: x.count_nonzero(-4), IndexError,
     "count_nonzero: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: x.count_nonzero((1, 1)), RuntimeError,
     "count_nonzero(): dim 1 appears multiple times in the list of dims (1, 1)"),
    (lambda x: x[:0].aminmax(), RuntimeError,
     "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
     "identity (input shape (0, 3, 4)); pass dim= to reduce one non-empty dim"),
    (lambda x: x[:, :0].aminmax(dim=1), IndexError,
     "aminmax(): Expected reduction dim 1 to have non-zero size (input shape (2, 0, 4))."),
    (lambda x: x.aminmax(dim=(0, 1)), TypeError, "aminmax(): argument 'dim' must be int, not "
                                                 "tuple"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
