"""polygamma and mvlgamma (multigammaln): values and gradients three ways, the spellings,
errors, dtypes, special values, and gradients of gradients (with lgamma, digamma, erfc and
erfinv, whose graph formulas lead to polygamma) against PyTorch and finite differences."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.autograd.second_order import assert_hvp_matches_finite_differences
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4)
P = "positive"

CASES = [
    Case("polygamma_0", lambda T, F, a: T.polygamma(0, a), [Arg(S, P)]),
    Case("polygamma_1", lambda T, F, a: T.polygamma(1, a), [Arg(S, P)]),
    Case("polygamma_2", lambda T, F, a: T.polygamma(2, a), [Arg(S, P)]),
    Case("polygamma_3_method", lambda T, F, a: (a * 3).polygamma(3), [Arg(S, P)]),
    Case("polygamma_2_negative", lambda T, F, a: T.polygamma(2, a * 0.2 - 1.6), [Arg(S, P)]),
    Case("special_polygamma_5_0d", lambda T, F, a: T.special.polygamma(5, a + 1), [Arg((), P)]),
    Case("polygamma_empty", lambda T, F, a: T.polygamma(4, a), [Arg((0, 2), P)]),
    Case("mvlgamma_1", lambda T, F, a: T.mvlgamma(a, 1), [Arg(S, P)]),
    Case("mvlgamma_3", lambda T, F, a: T.mvlgamma(a + 1.5, p=3), [Arg(S, P)]),
    Case("mvlgamma_method", lambda T, F, a: (a + 2).mvlgamma(4), [Arg((5,), P)]),
    Case("multigammaln", lambda T, F, a: T.special.multigammaln(a * 3, 2), [Arg(S, P)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, rtol=5e-5)

# positive: below 0 PyTorch's sum of (x + k)^-(n+1) loses digits (0.2% at n = 12, x = -4.5;
# tests/backends/test_xp_polygamma.py checks ours against mpmath there)
GRID = np.concatenate([np.linspace(0.03, 60, 900), np.geomspace(1e-5, 1e4, 100)])


@pytest.mark.parametrize("n", [2, 3, 4, 7, 12])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_equal_pytorchs(n, dtype, device):
    ours = mt.polygamma(n, mt.tensor(GRID, dtype=getattr(mt, dtype), device=device))
    theirs = torch.polygamma(n, torch.tensor(GRID, dtype=getattr(torch, dtype)))
    assert ours.dtype is getattr(mt, dtype) and ours.device == tensor_device(device)
    ours, theirs = ours.cpu().numpy(), theirs.numpy()
    if dtype == "float32":  # PyTorch's float32 loses digits near float32's smallest numbers
        normal = np.abs(theirs) > 1e-30
        ours, theirs = ours[normal], theirs[normal]
    rtol = 1e-12 if dtype == "float64" else 2e-6
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=0)


@pytest.mark.parametrize("n", [2, 3])
def test_poles_and_infinities(n, device):
    values = [0.0, -0.0, -1.0, -7.0, -float("inf"), float("nan"), 1e300]
    ours = mt.polygamma(n, mt.tensor(values, dtype=mt.float64, device=device)).cpu().numpy()
    theirs = torch.polygamma(n, torch.tensor(values, dtype=torch.float64)).numpy()
    np.testing.assert_array_equal(ours, theirs)
    # PyTorch gives NaN at +inf; the limit is 0
    at_inf = mt.polygamma(n, mt.tensor([float("inf")], device=device))
    assert at_inf.item() == 0.0


@pytest.mark.parametrize("dtype", ["int64", "bool", "float16"])
def test_dtypes_as_pytorch(dtype, device):
    data = [1, 1] if dtype == "bool" else [1, 3]
    calls = [lambda T, x: T.polygamma(2, x), lambda T, x: T.polygamma(0, x)]
    if dtype != "bool":
        calls.append(lambda T, x: T.mvlgamma(x, 1))
    for call in calls:
        ours = call(mt, mt.tensor(data, dtype=getattr(mt, dtype), device=device))
        theirs = call(torch, torch.tensor(data, dtype=getattr(torch, dtype)))
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.cpu().float().numpy(), theirs.float().numpy(), rtol=2e-3)


def test_mvlgamma_refuses_bool_as_pytorch():
    message = "The input tensor may not be a boolean tensor"
    check_same_error_on_cpu_and_meta(
        lambda x: mt.special.multigammaln(x.bool(), 2), RuntimeError,
        message + "; convert it with .float() first")
    with pytest.raises(RuntimeError, match=message):
        torch.mvlgamma(torch.tensor([True]), 2)


def test_mvlgamma_below_its_domain_is_inf_or_nan_as_pytorch():
    """PyTorch 2.13 no longer refuses ``x <= (p - 1) / 2``: lgamma's poles give inf."""
    values = [0.0, 0.5, 1.0, 0.7]
    ours = mt.mvlgamma(mt.tensor(values, dtype=mt.float64), 3).numpy()
    theirs = torch.mvlgamma(torch.tensor(values, dtype=torch.float64), 3).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-14)


def test_spellings_and_in_place(device):
    x = mt.tensor([0.5, 1.5, 4.0], device=device)
    expected = mt.polygamma(2, x).cpu().numpy()
    for value in (x.polygamma(2), mt.special.polygamma(2, x), mt.polygamma(n=2, input=x)):
        np.testing.assert_array_equal(value.cpu().numpy(), expected)
    y = x.clone()
    assert y.polygamma_(2) is y
    np.testing.assert_array_equal(y.cpu().numpy(), expected)
    expected = mt.mvlgamma(x + 1, 2).cpu().numpy()
    for value in ((x + 1).mvlgamma(2), mt.special.multigammaln(x + 1, 2),
                  mt.mvlgamma(x + 1, p=2)):
        np.testing.assert_array_equal(value.cpu().numpy(), expected)
    z = x + 1
    assert z.mvlgamma_(2) is z
    np.testing.assert_array_equal(z.cpu().numpy(), expected)
    out = mt.empty(3, device=device)
    assert mt.polygamma(3, x, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), mt.polygamma(3, x).cpu().numpy())


@pytest.mark.parametrize("call", [
    lambda T, x: T.polygamma(1.5, x), lambda T, x: T.polygamma(True, x),
    lambda T, x: T.polygamma(x, 1), lambda T, x: x.polygamma(2.0),
    lambda T, x: T.mvlgamma(x, 1.5), lambda T, x: x.mvlgamma(None),
    lambda T, x: x.mvlgamma_(1.5), lambda T, x: x.polygamma_(1.5),
    lambda T, x: T.special.multigammaln(x, 2.0), lambda T, x: T.special.polygamma(0.0, x)])
def test_a_whole_number_is_required_as_pytorch(call):
    with pytest.raises(TypeError) as ours:
        call(mt, mt.ones(2))
    with pytest.raises(TypeError) as theirs:
        call(torch, torch.ones(2))
    assert str(ours.value) == str(theirs.value)


def test_negative_n_and_p_below_one_are_refused_on_every_device():
    check_same_error_on_cpu_and_meta(
        lambda x: mt.polygamma(-1, x), RuntimeError,
        "polygamma(n, x) does not support negative n; got n = -1")
    check_same_error_on_cpu_and_meta(
        lambda x: mt.mvlgamma(x, 0), RuntimeError,
        "mvlgamma: p has to be greater than or equal to 1; got p = 0")
    with pytest.raises(RuntimeError, match="does not support negative n"):
        torch.polygamma(-1, torch.ones(2))
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        torch.mvlgamma(torch.ones(2), 0)


# -- gradients of gradients -------------------------------------------------------------
SECOND_ORDER = {
    "lgamma": (lambda L, x: L.lgamma(x * x + 0.5), [(3, 4)]),
    "digamma": (lambda L, x: L.digamma(x * x + 0.5), [(3, 4)]),
    "polygamma_1": (lambda L, x: L.polygamma(1, x * x + 0.5), [(3, 4)]),
    "polygamma_3": (lambda L, x: L.polygamma(3, x * x + 0.5), [(3, 4)]),
    "mvlgamma": (lambda L, x: L.mvlgamma(x * x + 1.5, 3), [(3, 4)]),
    "erfc": (lambda L, x: L.erfc(x), [(3, 4)]),
    "erfinv": (lambda L, x: L.erfinv(L.tanh(x) * 0.9), [(3, 4)]),
    "chain": (lambda L, x, y: L.lgamma(x * x + 1) * L.digamma(y * y + 2)
              + L.special.i0e(x * y) * L.erfc(y), [(3, 4), (3, 4)]),
}


def _run(lib, device, fn, arrays):
    """The gradients (made with ``create_graph``) and the gradient of their squared sum."""
    kwargs = {"device": device} if lib is mt else {}
    xs = [lib.tensor(a, requires_grad=True, **kwargs) for a in arrays]
    weights = lib.tensor(np.linspace(0.5, 1.5, 12).reshape(3, 4), **kwargs)
    grads = lib.autograd.grad((fn(lib, *xs) * weights).sum(), xs, create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in grads), xs)
    return [g.detach().cpu().numpy() for g in grads], [h.cpu().numpy() for h in second]


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_second_order_gradients_equal_pytorchs(name, device):
    fn, shapes = SECOND_ORDER[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    arrays = [rng.standard_normal(shape) for shape in shapes]
    ours = _run(mt, device, fn, arrays)
    theirs = _run(torch, None, fn, arrays)
    for our_list, their_list in zip(ours, theirs):
        for a, b in zip(our_list, their_list):
            # PyTorch's trigamma is good to about 1e-9 (ours to round-off)
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("name", ["polygamma_3", "mvlgamma", "erfinv", "chain"])
def test_hessian_vector_products_match_finite_differences(name):
    fn, shapes = SECOND_ORDER[name]
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(shape) for shape in shapes]
    directions = [rng.standard_normal(shape) for shape in shapes]
    assert_hvp_matches_finite_differences(lambda L, d, *xs: fn(L, *xs).sum(), arrays,
                                          directions, atol=1e-5)


def test_second_order_node_names_as_pytorch():
    x = mt.tensor([1.5], dtype=mt.float64, requires_grad=True)
    t = torch.tensor([1.5], dtype=torch.float64, requires_grad=True)
    for ours, theirs in ((mt.lgamma(x), torch.lgamma(t)), (mt.digamma(x), torch.digamma(t)),
                         (mt.polygamma(2, x), torch.polygamma(2, t))):
        (g,) = mt.autograd.grad(ours.sum(), x, create_graph=True)
        (tg,) = torch.autograd.grad(theirs.sum(), t, create_graph=True)
        names = [f.name() for f, _ in g.grad_fn.next_functions if f is not None]
        their_names = [f.name() for f, _ in tg.grad_fn.next_functions if f is not None]
        assert set(their_names) <= set(names) | {"AccumulateGrad"}, (names, their_names)
