"""argsort, msort, kthvalue, median, nanmedian, mode, quantile and nanquantile: values,
indices and gradients against PyTorch, ties, NaN, dtypes, shapes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 5, 4)
D = "distinct"
NAN = float("nan")


def _with_nans(T, a):
    """``a`` with NaN where it is above 1 (about one element in six)."""
    return a.masked_fill(a > 1, NAN)


def _finite(T, out):
    """NaN results as 0, so that finite differences can check the others' gradients."""
    return T.where(T.isnan(out), T.zeros_like(out), out)


CASES = [
    Case("argsort", lambda T, F, a: a.argsort(), [Arg(S)]),
    Case("argsort_dim0_descending", lambda T, F, a: T.argsort(a, 0, descending=True),
         [Arg(S)]),
    Case("argsort_stable_keyword", lambda T, F, a: T.argsort(a, dim=1, stable=True),
         [Arg(S, "int:3")]),
    Case("argsort_0d", lambda T, F, a: a.argsort(), [Arg(())]),
    Case("msort", lambda T, F, a: T.msort(a), [Arg(S, D)]),
    Case("msort_method_1d", lambda T, F, a: a.msort(), [Arg((6,), D)]),
    Case("kthvalue", lambda T, F, a: a.kthvalue(2), [Arg(S, D)]),
    Case("kthvalue_dim0_keepdim", lambda T, F, a: T.kthvalue(a, 3, 0, keepdim=True),
         [Arg(S, D)]),
    Case("kthvalue_negative_dim", lambda T, F, a: T.kthvalue(a, 5, dim=-2).values,
         [Arg(S, D)]),
    Case("kthvalue_indices", lambda T, F, a: a.kthvalue(1, 1).indices, [Arg(S, D)]),
    Case("kthvalue_0d", lambda T, F, a: a.kthvalue(1), [Arg(())]),
    Case("kthvalue_int", lambda T, F, a: a.kthvalue(2, 0).values, [Arg(S, "int:100")]),
    Case("median_all", lambda T, F, a: a.median(), [Arg(S)]),
    Case("median_all_even_count", lambda T, F, a: T.median(a), [Arg((2, 4))]),
    Case("median_dim", lambda T, F, a: T.median(a, 1), [Arg(S)]),
    Case("median_dim_keepdim", lambda T, F, a: a.median(-1, keepdim=True), [Arg(S)]),
    Case("median_indices", lambda T, F, a: T.median(a, 0).indices, [Arg(S)]),
    Case("median_0d", lambda T, F, a: a.median(0), [Arg(())]),
    Case("median_int_ties", lambda T, F, a: a.median(2), [Arg(S, "int:3")]),
    Case("median_all_int", lambda T, F, a: a.median(), [Arg(S, "int:5")]),
    Case("median_nan", lambda T, F, a: _finite(T, _with_nans(T, a).median(1).values),
         [Arg(S)]),
    Case("median_all_nan", lambda T, F, a: _finite(T, _with_nans(T, a).median()), [Arg(S)]),
    Case("nanmedian_all", lambda T, F, a: T.nanmedian(_with_nans(T, a)), [Arg(S)]),
    Case("nanmedian_dim", lambda T, F, a: T.nanmedian(_with_nans(T, a), 1), [Arg(S)]),
    Case("nanmedian_keepdim", lambda T, F, a: _with_nans(T, a).nanmedian(0, True), [Arg(S)]),
    Case("nanmedian_no_nan", lambda T, F, a: a.nanmedian(-1), [Arg(S)]),
    Case("mode_distinct", lambda T, F, a: a.mode(), [Arg(S, D)]),
    Case("mode_dim0_keepdim", lambda T, F, a: T.mode(a, 0, True), [Arg(S, D)]),
    # up to 16 elements a slice, PyTorch's index of a tied mode is its last occurrence
    Case("mode_int_ties", lambda T, F, a: T.mode(a, 1), [Arg(S, "int:3")]),
    Case("mode_0d", lambda T, F, a: a.mode(), [Arg(())]),
]

QUANTILE_MODES = ("linear", "lower", "higher", "midpoint", "nearest")
for _mode in QUANTILE_MODES:
    CASES += [
        Case(f"quantile_all_{_mode}",
             lambda T, F, a, m=_mode: T.quantile(a, 0.3, interpolation=m), [Arg(S, D)]),
        Case(f"quantile_dim_{_mode}",
             lambda T, F, a, q, m=_mode: a.quantile(T.sigmoid(q), 1, interpolation=m),
             [Arg(S, D), Arg((3,), grad=False)]),
        Case(f"nanquantile_dim_{_mode}",
             lambda T, F, a, m=_mode: T.nanquantile(_with_nans(T, a), 0.7, dim=0, keepdim=True,
                                                    interpolation=m), [Arg(S)]),
    ]
CASES += [
    Case("quantile_q_gradient", lambda T, F, a, q: T.quantile(a, T.sigmoid(q), dim=-1),
         [Arg(S, D), Arg((4,))]),
    Case("quantile_q_0d_gradient", lambda T, F, a, q: T.quantile(a, T.sigmoid(q)),
         [Arg(S, D), Arg(())]),
    Case("nanquantile_q_gradient",
         lambda T, F, a, q: T.nanquantile(_with_nans(T, a), T.sigmoid(q), dim=2, keepdim=True),
         [Arg(S), Arg((2,))]),
    Case("quantile_keepdim_all", lambda T, F, a: a.quantile(0.9, keepdim=True), [Arg(S, D)]),
    Case("quantile_ends",
         lambda T, F, a: a.quantile(T.tensor([0.0, 1.0], dtype=a.dtype, device=a.device), 0),
         [Arg(S, D)], meta=False),
    Case("quantile_nan_gives_nan",
         lambda T, F, a: _finite(T, T.quantile(_with_nans(T, a), 0.4, dim=1)), [Arg(S)]),
    Case("quantile_0d", lambda T, F, a: a.quantile(0.5), [Arg(())]),
    Case("quantile_0d_dim", lambda T, F, a: a.quantile(0.5, 0, True), [Arg(())]),
    Case("nanquantile_all", lambda T, F, a: a.nanquantile(0.25), [Arg(S, D)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _ties(rng, n, nans=False, dtype="float32"):
    data = rng.integers(0, 5, (3, n)).astype(dtype)
    if nans:
        data[rng.random((3, n)) < 0.2] = NAN
    return data


@pytest.mark.parametrize("n", [1, 2, 7, 40, 301])
@pytest.mark.parametrize("nans", [False, True])
def test_median_indices_of_ties_and_nans_are_torchs(n, nans, device):
    torch = _torch()
    rng = np.random.default_rng(n)
    for _ in range(5):
        data = _ties(rng, n, nans)
        for name in ("median", "nanmedian"):
            ours = getattr(mt.tensor(data, device=device), name)(1)
            theirs = getattr(torch.tensor(data), name)(1)
            np.testing.assert_array_equal(ours.values.cpu().numpy(), theirs.values.numpy())
            np.testing.assert_array_equal(ours.indices.cpu().numpy(), theirs.indices.numpy())


@pytest.mark.parametrize("n", [1, 5, 16, 17, 200])
def test_kthvalue_and_mode_values_with_ties_are_torchs(n, device):
    """The values always; the index where PyTorch's is the stable one (a tied mode's
    last occurrence up to 16 elements; see docs/differences.md for the rest)."""
    torch = _torch()
    rng = np.random.default_rng(n)
    data = _ties(rng, n, dtype="int64")
    x, ref = mt.tensor(data, device=device), torch.tensor(data)
    for k in {1, (n + 1) // 2, n}:
        np.testing.assert_array_equal(x.kthvalue(k).values.cpu().numpy(),
                                      ref.kthvalue(k).values.numpy())
        # the index points at an element of that value
        chosen = np.take_along_axis(data, x.kthvalue(k).indices.cpu().numpy()[:, None], 1)
        np.testing.assert_array_equal(chosen[:, 0], ref.kthvalue(k).values.numpy())
    ours, theirs = x.mode(), ref.mode()
    np.testing.assert_array_equal(ours.values.cpu().numpy(), theirs.values.numpy())
    last = [np.nonzero(row == v)[0][-1] for row, v in zip(data, theirs.values.numpy())]
    assert ours.indices.cpu().tolist() == last
    if n <= 16:
        np.testing.assert_array_equal(ours.indices.cpu().numpy(), theirs.indices.numpy())


def test_mode_gradient_goes_to_the_last_occurrence(device):
    x = mt.tensor([[2.0, 1.0, 2.0, 1.0, 3.0], [4.0, 4.0, 0.0, 5.0, 4.0]], device=device,
                  requires_grad=True)
    values, indices = x.mode(1)
    assert values.tolist() == [1.0, 4.0] and indices.tolist() == [3, 4]
    (values * mt.tensor([10.0, 20.0], device=device)).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0, 10.0, 0.0], [0.0, 0.0, 0.0, 0.0, 20.0]]


def test_median_of_everything_shares_the_gradient_between_ties(device):
    torch = _torch()
    data = [[3.0, 1.0, 2.0], [2.0, 5.0, 2.0]]
    for name in ("median", "nanmedian"):
        x = mt.tensor(data, device=device, requires_grad=True)
        ref = torch.tensor(data, requires_grad=True)
        getattr(x, name)().backward()
        getattr(ref, name)().backward()
        np.testing.assert_allclose(x.grad.cpu().numpy(), ref.grad.numpy())
        np.testing.assert_allclose(x.grad.cpu().numpy(), [[0, 0, 1 / 3], [1 / 3, 0, 1 / 3]])
    # a NaN median: the NaNs share it
    x = mt.tensor([1.0, NAN, 2.0, NAN], device=device, requires_grad=True)
    x.median().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.0, 0.5]


def test_nan_and_empty_edge_values(device):
    torch = _torch()
    cases = [[NAN, NAN], [1.0, NAN, 2.0], [NAN]]
    for data in cases:
        for name in ("median", "nanmedian"):
            ours = getattr(mt.tensor(data, device=device), name)(0)
            theirs = getattr(torch.tensor(data), name)(0)
            np.testing.assert_array_equal(ours.values.cpu().numpy(), theirs.values.numpy())
            assert ours.indices.item() == theirs.indices.item()
        for name in ("quantile", "nanquantile"):
            ours = getattr(mt.tensor(data, device=device), name)(0.3)
            theirs = getattr(torch.tensor(data), name)(0.3)
            np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())
    assert np.isnan(mt.ones(0, device=device).median().item())
    assert np.isnan(mt.ones(2, 0, device=device).nanmedian().item())
    # an empty dim other than the reduced one: empty results
    values, indices = mt.ones(0, 3, device=device).median(1)
    assert values.shape == indices.shape == (0,) and indices.dtype is mt.int64
    assert mt.ones(0, 3, device=device).mode(1).values.shape == (0,)


@pytest.mark.parametrize("q", [0.0, 0.1, 0.25, 0.5, 1 / 3, 0.75, 0.9999, 1.0])
@pytest.mark.parametrize("interpolation", QUANTILE_MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_quantile_bits_equal_torchs(q, interpolation, dtype, device):
    """Ranks in the input's dtype, rounding half to even, PyTorch's lerp: the same bits, but
    for an interpolation's last rounding (PyTorch's vectorised lerp fuses its multiply-add)."""
    torch = _torch()
    data = np.random.default_rng(3).standard_normal((4, 13)).astype(dtype)
    data[1, :4] = 0.5  # ties
    for dim in (None, 0, 1):
        ours = mt.tensor(data, device=device).quantile(q, dim, interpolation=interpolation)
        theirs = torch.tensor(data).quantile(q, dim, interpolation=interpolation)
        assert ours.dtype is mt.tensor(data).dtype
        ulp = np.finfo(dtype).eps if interpolation in ("linear", "midpoint") else 0
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=ulp, atol=ulp)


def test_quantile_nearest_rounds_half_to_even(device):
    x = mt.tensor([0.0, 1.0, 2.0, 3.0, 4.0], device=device)
    q = mt.tensor([0.125, 0.375, 0.625, 0.875], device=device)  # ranks 0.5, 1.5, 2.5, 3.5
    assert x.quantile(q, interpolation="nearest").tolist() == [0.0, 2.0, 2.0, 4.0]


def test_named_results_and_methods():
    x = mt.tensor([[1.0, 4.0, 2.0], [0.0, 0.0, 3.0]])
    for name, type_name in (("kthvalue", "kthvalue"), ("median", "median"),
                            ("nanmedian", "nanmedian"), ("mode", "mode")):
        args = (1, 1) if name == "kthvalue" else (1,)
        result = getattr(mt, name)(x, *args)
        assert type(result).__name__ == type_name and result._fields == ("values", "indices")
        method = getattr(x, name)(*args)
        assert method.values.tolist() == result.values.tolist()
    assert mt.mode(x).values.tolist() == [1.0, 0.0] and mt.mode(x).indices.tolist() == [0, 1]
    assert x.argsort(descending=True).tolist() == [[1, 2, 0], [2, 0, 1]]
    assert mt.argsort(x, 0).tolist() == [[1, 1, 0], [0, 0, 1]]
    assert x.msort().tolist() == [[0.0, 0.0, 2.0], [1.0, 4.0, 3.0]]


def test_indices_have_no_gradient_and_dtypes():
    x = mt.rand(4, 3, requires_grad=True, dtype=mt.float64)
    for result in (x.kthvalue(2, 0), x.median(1), x.nanmedian(0), x.mode(1)):
        assert result.indices.dtype is mt.int64 and result.indices.grad_fn is None
        assert result.values.dtype is mt.float64 and result.values.requires_grad
    assert x.argsort().grad_fn is None and not x.argsort().requires_grad
    assert x.quantile(0.5).dtype is mt.float64
    with mt.no_grad():
        assert x.median().grad_fn is None and x.quantile(0.2).grad_fn is None
    b = mt.tensor([True, False, True])
    assert b.mode().values.item() is True and b.argsort().tolist() == [1, 0, 2]


def test_a_huge_meta_tensor_needs_no_data():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    values, indices = x.median(1)
    assert values.shape == indices.shape == (2**20, 2**10) and indices.is_meta
    q = x.quantile(mt.empty(7, device="meta"), dim=2, keepdim=True)
    assert q.shape == (7, 2**20, 2**20, 1)
    (values.sum() + q.sum() + x.mode(0, True).values.sum()).backward()
    assert x.grad.is_meta and x.grad.shape == x.shape


def test_q_values_outside_0_1_are_refused_where_there_are_values(device):
    x = mt.ones(3, device=device)
    with pytest.raises(RuntimeError) as info:
        x.quantile(mt.tensor([-0.1, 0.5], device=device))
    assert str(info.value) == ("quantile() q values must be in the range [0, 1], but got "
                               "[-0.10000000149011612, 0.5]")
    assert mt.ones(3, device="meta").quantile(mt.tensor([2.0], device="meta")).shape == (1,)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.kthvalue(5), RuntimeError,
     "kthvalue(): selected number k out of range for dimension -1: k=5, but it has 4 "
     "element(s) (input shape (2, 3, 4)); k counts from 1"),
    (lambda x: x.kthvalue(0, 0), RuntimeError,
     "kthvalue(): selected number k out of range for dimension 0: k=0, but it has 2 "
     "element(s) (input shape (2, 3, 4)); k counts from 1"),
    (lambda x: x.kthvalue(1.0), TypeError, "kthvalue(): argument 'k' must be int, not float"),
    (lambda x: x.kthvalue(1, 3), IndexError,
     "kthvalue: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.bool().kthvalue(1), NotImplementedError,
     "kthvalue(): not implemented for bool tensors (as in PyTorch); convert the input first, "
     "e.g. with .int()"),
    (lambda x: x[:, :0].median(1), IndexError,
     "median(): Expected reduction dim 1 to have non-zero size (input shape (2, 0, 4)); "
     "there is no element to pick"),
    (lambda x: x[:, :0].mode(-2), IndexError,
     "mode(): Expected reduction dim -2 to have non-zero size (input shape (2, 0, 4)); "
     "there is no element to pick"),
    (lambda x: x.long()[:0].median(), RuntimeError,
     "median(): an empty integer tensor (shape (0, 3, 4)) has no median, and no NaN to say "
     "so; convert it to float to get NaN"),
    (lambda x: x.bool().median(), NotImplementedError,
     "median(): not implemented for bool tensors (as in PyTorch); convert the input first, "
     "e.g. with .int()"),
    (lambda x: x.nanmedian(-4), IndexError,
     "nanmedian: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: x.argsort(3), IndexError,
     "argsort: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.quantile(1.5), RuntimeError,
     "quantile() q must be in the range [0, 1] but got 1.5"),
    (lambda x: x.nanquantile(-0.5), RuntimeError,
     "quantile() q must be in the range [0, 1] but got -0.5"),
    (lambda x: x.quantile(x[0, 0].double()), RuntimeError,
     "quantile() q tensor must be same dtype as the input tensor (torch.float32), but got "
     "torch.float64"),
    (lambda x: x.long().quantile(0.5), RuntimeError,
     "quantile() input tensor must be either float or double dtype, but got torch.int64; "
     "convert it with .float() or .double()"),
    (lambda x: x.quantile(x[0] / 2), RuntimeError,
     "quantile() q must be a scalar or 1D tensor, but got a tensor of shape (3, 4)"),
    (lambda x: x.quantile(0.5, interpolation="cubic"), RuntimeError,
     "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
     "but got cubic"),
    (lambda x: x[:0].quantile(0.5, 1), RuntimeError,
     "quantile() input tensor must be non-empty (input shape (0, 3, 4))"),
    (lambda x: x.quantile(0.5, 3), IndexError,
     "quantile: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.quantile([0.5]), TypeError,
     "quantile(): argument 'q' must be a Tensor or a number, not list; for several quantiles "
     "pass a 1-D tensor, e.g. torch.tensor([0.25, 0.75])"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
