"""igamma / igammac (special.gammainc / gammaincc): values and gradients three ways,
values against PyTorch and against mpmath over wide ranges (a and x from 1e-6 to 1e6),
PyTorch's special values, dtypes, errors, the spellings, in-place and out=, and gradients
of gradients."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.autograd.second_order import assert_second_order_equal_pytorchs
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests

S = (3, 4)
P = "positive"
INF, NAN = float("inf"), float("nan")
NAMES = ["gammainc", "gammaincc"]
TORCH_NAMES = {"gammainc": "igamma", "gammaincc": "igammac"}

CASES = [
    Case("igamma", lambda T, F, a, x: T.igamma(a, x), [Arg(S, P, grad=False), Arg(S, P)]),
    Case("igammac", lambda T, F, a, x: T.igammac(a * 3, x * 2), [Arg(S, P, grad=False),
                                                                 Arg(S, P)]),
    Case("gammainc_broadcast", lambda T, F, a, x: T.special.gammainc(a * 5, x * 4),
         [Arg((3, 1), P, grad=False), Arg((4,), P)]),
    Case("gammaincc_broadcast", lambda T, F, a, x: T.special.gammaincc(a / 4, x),
         [Arg((2, 1, 4), P, grad=False), Arg((3, 1), P)]),
    # Temme's region (a >= 20, x near a) and the continued fraction (x > a)
    Case("gammainc_large_a", lambda T, F, a, x: T.special.gammainc(a * 50, a * 50 + x * 4),
         [Arg(S, P, grad=False), Arg(S)]),
    Case("gammaincc_large_x", lambda T, F, a, x: T.special.gammaincc(a, x * 8),
         [Arg(S, P, grad=False), Arg(S, P)]),
    Case("igamma_method", lambda T, F, a, x: a.igamma(x) + a.igammac(x * 0.3),
         [Arg(S, P, grad=False), Arg(S, P)]),
    Case("igamma_0d", lambda T, F, a, x: T.igamma(a, x), [Arg((), P, grad=False), Arg((), P)]),
    Case("igamma_0d_with_matrix", lambda T, F, a, x: T.igammac(a, x),
         [Arg((), P, grad=False), Arg(S, P)]),
    Case("igamma_empty", lambda T, F, a, x: T.igamma(a, x), [Arg((0, 3), P, grad=False),
                                                             Arg((3,), P)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, rtol=2e-5)


def _both(name, a, x, device, dtype="float64"):
    """(ours, PyTorch's) values of ``special.<name>(a, x)`` as NumPy arrays."""
    ours = getattr(mt.special, name)(mt.tensor(a, dtype=getattr(mt, dtype), device=device),
                                     mt.tensor(x, dtype=getattr(mt, dtype), device=device))
    assert ours.dtype is getattr(mt, dtype)
    theirs = getattr(torch.special, name)(torch.tensor(a, dtype=getattr(torch, dtype)),
                                          torch.tensor(x, dtype=getattr(torch, dtype)))
    return ours.cpu().numpy(), theirs.numpy()


def _scaled_ulps(value, reference, dtype=np.float64):
    """The relative error in ulps over ``1 + |log(reference)|``: a value ``e^-700`` is
    ``exp`` of an exponent whose rounding alone is worth hundreds of ulps."""
    tiny = np.finfo(dtype).tiny
    relative = np.abs(value - reference) / np.maximum(np.abs(reference), tiny)
    return relative / np.finfo(dtype).eps / (1 + np.abs(np.log(np.maximum(reference, tiny))))


GRID = np.geomspace(1e-6, 1e6, 61)


def _wide_points():
    a, x = (g.ravel() for g in np.meshgrid(GRID, GRID))
    near = np.geomspace(1e-6, 1e6, 150)  # x near a, where the series are slowest
    return (np.concatenate([a, near, near, near, near]),
            np.concatenate([x, near * (1 + 1e-3), near * (1 - 3 / np.sqrt(near + 1)),
                            near * (1 + 1 / np.sqrt(near + 1)), near + 0.5]))


@pytest.mark.parametrize("name", NAMES)
def test_values_equal_pytorchs_over_wide_ranges(name, device):
    a, x = _wide_points()
    ours, theirs = _both(name, a, x, device)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_array_equal(ours[theirs == 0] < 1e-300, True)  # both underflow
    # PyTorch's kernel (Cephes') loses up to 1e-8 relative for a >= 20 (its Temme
    # coefficients and iteration limits) and for tiny a in Q: there a looser tolerance,
    # and the test against mpmath below holds ours to a few ulps
    normal = theirs > 1e-300
    np.testing.assert_allclose(ours[normal], theirs[normal], rtol=2e-7)
    cephes_exact = (a >= 1e-2) & (a <= 10) & normal
    assert _scaled_ulps(ours[cephes_exact], theirs[cephes_exact]).max() < 16


def _mpmath_reference(a, x, upper):
    """``P(a, x)`` (or ``Q``) to 30 digits: the smaller one computed directly, by Kummer's
    series below ``x = a`` and mpmath's upper incomplete gamma above."""
    a, x = mpmath.mpf(float(a)), mpmath.mpf(float(x))
    if x <= a:
        p = mpmath.exp(a * mpmath.log(x) - x - mpmath.loggamma(a + 1)) * mpmath.hyp1f1(
            1, a + 1, x, maxterms=10**6)
        return float(1 - p if upper else p)
    try:
        q = mpmath.gammainc(a, x, mpmath.inf, regularized=True)
    except mpmath.libmp.NoConvergence:  # x above a large a: P is not small there
        if a * (x / a - 1 - mpmath.log(x / a)) > 800:  # Q below e^-800: 0 in float64
            return 0.0 if upper else 1.0
        q = 1 - mpmath.exp(a * mpmath.log(x) - x - mpmath.loggamma(a + 1)) * mpmath.hyp1f1(
            1, a + 1, x, maxterms=10**6)
    return float(q if upper else 1 - q)


@pytest.mark.parametrize("name", NAMES)
def test_values_within_a_few_ulps_of_mpmath(name, device):
    rng = np.random.default_rng(7)
    a = 10.0 ** rng.uniform(-6, 6, 300)
    far = 10.0 ** rng.uniform(-6, 6, 300)
    close = np.abs(a * (1 + rng.normal(0, 1, 300) * np.minimum(1, 3 / np.sqrt(a))))
    x = np.where(rng.random(300) < 0.5, far, close)
    keep = (x < 30 * a + 800)  # beyond, Q underflows and mpmath's P converges slowly
    a, x = a[keep], x[keep]
    ours, _ = _both(name, a, x, device)
    with mpmath.workdps(30):
        reference = np.array([_mpmath_reference(p, q, name == "gammaincc")
                              for p, q in zip(a, x)])
    normal = reference > 1e-300
    assert _scaled_ulps(ours[normal], reference[normal]).max() < 4
    np.testing.assert_array_equal(ours[~normal] < 1e-290, True)


def test_temme_region_agrees_with_the_series_and_fraction():
    # Temme's expansion for a >= 20 against mpmath just either side of its boundaries
    a = np.array([20.0, 20.0, 20.0, 25.0, 150.0, 150.0, 1e4, 1e4, 1e6, 1e6])
    x = np.array([20.0, 12.0, 34.0, 25.0 * 1.3, 70.0, 270.0, 9800.0, 1.02e4, 999000.0,
                  1001000.0])
    for name in NAMES:
        ours, _ = _both(name, a, x, "cpu")
        with mpmath.workdps(30):
            reference = np.array([_mpmath_reference(p, q, name == "gammaincc")
                                  for p, q in zip(a, x)])
        assert _scaled_ulps(ours, reference).max() < 4


SPECIAL_A = [0.0, -0.0, 1.0, 2.5, 7.0, -1.0, INF, NAN, 1e300]
SPECIAL_X = [0.0, -0.0, 1.0, 0.5, 30.0, -1.0, INF, NAN, 1e-300, 1e300]


@pytest.mark.parametrize("name", NAMES)
def test_special_values_as_pytorch(name, device):
    a, x = (g.ravel() for g in np.meshgrid(SPECIAL_A, SPECIAL_X))
    ours, theirs = _both(name, a, x, device)
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-300)


def test_tiny_a_and_x_where_pytorch_rounds():
    # Q(a, x) tends to a E1(x) as a tends to 0; PyTorch's kernel gives 3.6 times that at
    # a = 1e-300, and 0 for P(1, 5e-324) = 5e-324
    a = np.array([1e-300, 1e-300, 5e-324, 1e-200])
    x = np.array([1.0, 1e-300, 1.0, 0.25])
    ours, _ = _both("gammaincc", a, x, "cpu")
    reference = np.array([float(mpmath.mpf(p) * mpmath.e1(q)) for p, q in zip(a, x)])
    np.testing.assert_allclose(ours, reference, rtol=1e-3, atol=0)
    lower, _ = _both("gammainc", a, x, "cpu")
    assert (lower <= 1.0).all() and (lower > 1 - 1e-15).all()
    np.testing.assert_array_equal(_both("gammainc", np.ones(2), np.array([5e-324, 1e-300]),
                                        "cpu")[0], [5e-324, 1e-300])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_narrow_dtypes_as_pytorch(name, dtype, device):
    a, x = _wide_points()
    a, x = (np.minimum(v, np.finfo(dtype).max).astype(dtype) for v in (a, x))
    ours, theirs = _both(name, a, x, device, dtype)
    # float32: PyTorch computes in float32 (up to 1e-4 off where a is large), ours in
    # float64 then rounds; float16 is rounded from float32 / float64
    normal = np.isfinite(a) & np.isfinite(x) & (theirs > np.finfo(dtype).tiny * 1e3)
    rtol = {"float32": 2e-4, "float16": 4e-3}[dtype]
    # PyTorch's float32 Q for a < 0.01 is 1 - P in float32 (10% off at Q = 1e-5); ours is
    # the float64 value rounded, checked below
    comparable = normal & ((a >= 0.01) | (name == "gammainc"))
    np.testing.assert_allclose(ours[comparable], theirs[comparable], rtol=rtol, atol=0)
    reference, _ = _both(name, a.astype(np.float64), x.astype(np.float64), device)
    good = normal & (reference > np.finfo(dtype).tiny * 1e3)
    np.testing.assert_allclose(ours[good], reference[good].astype(dtype), rtol=0, atol=0)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"),
                                    ("int64", "float32"), ("float32", "int64"),
                                    ("float16", "float32")])
def test_mixed_dtypes_promote_as_pytorch(name, dtypes, device):
    left, right = dtypes
    ours = getattr(mt, name)(mt.tensor([1, 2], dtype=getattr(mt, left), device=device),
                             mt.tensor([2, 1], dtype=getattr(mt, right), device=device))
    theirs = getattr(torch, name)(torch.tensor([1, 2], dtype=getattr(torch, left)),
                                  torch.tensor([2, 1], dtype=getattr(torch, right)))
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-3)
    # a 0-d float64 tensor does not widen a float32 one
    zero_d = getattr(mt, name)(mt.ones(2, device=device),
                               mt.tensor(2.0, dtype=mt.float64, device=device))
    assert zero_d.dtype is mt.float32


@pytest.mark.parametrize("name", ["igamma", "igammac"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_integer_tensors_are_refused_as_pytorch(name, dtype, device):
    data = [1, 2] if dtype != "bool" else [True, False]
    with pytest.raises(NotImplementedError):
        getattr(torch, name)(torch.tensor(data, dtype=getattr(torch, dtype)),
                             torch.tensor(data, dtype=getattr(torch, dtype)))
    for where in (device, "meta"):
        with pytest.raises(NotImplementedError, match=name):
            getattr(mt, name)(mt.tensor(data, dtype=getattr(mt, dtype), device=where),
                              mt.tensor(data, dtype=getattr(mt, dtype), device=where))


@pytest.mark.parametrize("name", ["igamma", "igammac", "special.gammainc", "special.gammaincc"])
def test_numbers_are_refused_as_pytorch(name):
    def function(library):
        module, _, attribute = name.rpartition(".")
        return getattr(getattr(library, module) if module else library, attribute)
    prefix = name.replace("special.", "special_")
    for args, argument in (((mt.ones(2), 2.0), "other"), ((2.0, mt.ones(2)), "input"),
                           ((mt.ones(2), 2), "other")):
        torch_args = tuple(torch.ones(2) if isinstance(v, mt.Tensor) else v for v in args)
        with pytest.raises(TypeError) as theirs:
            function(torch)(*torch_args)
        with pytest.raises(TypeError) as ours:
            function(mt)(*args)
        assert str(ours.value) == str(theirs.value)
        assert f"{prefix}(): argument '{argument}'" in str(ours.value)


def test_broadcast_errors_on_every_device():
    for device in ("cpu", "meta"):
        for name in ("igamma", "igammac"):
            with pytest.raises(RuntimeError, match=name):
                getattr(mt, name)(mt.ones(2, 3, device=device), mt.ones(4, device=device))


def _node_name(y):
    return y.grad_fn.name() if isinstance(y, mt.Tensor) else type(y.grad_fn).__name__


def test_grad_fn_names_as_pytorch():
    for library in (mt, torch):
        a = library.tensor([1.5, 2.0])
        x = library.tensor([0.5, 3.0], requires_grad=True)
        names = [_node_name(f(a, x)) for f in (
            library.igamma, library.igammac, library.special.gammainc,
            library.special.gammaincc, lambda p, q: p.igamma(q))]
        assert names == ["IgammaBackward0", "IgammacBackward0", "IgammaBackward0",
                         "IgammacBackward0", "IgammaBackward0"]


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_no_gradient_in_a_as_pytorch(name):
    messages = []
    for library in (torch, mt):
        a = library.tensor([1.5, 2.0], requires_grad=True)
        x = library.tensor([0.5, 3.0], requires_grad=True)
        with pytest.raises(NotImplementedError) as error:
            getattr(library, name)(a, x).sum().backward()
        messages.append(str(error.value))
    assert messages[0] == messages[1] == f"the derivative for '{name}: input' is not implemented."


@pytest.mark.parametrize("name", ["igamma", "igammac"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_gradient_in_x_alone_while_a_requires_grad(name, create_graph, device):
    """Only the gradients asked for are computed, as in PyTorch: ``a``'s missing one is
    not needed for ``autograd.grad(out, x)``."""
    grads = []
    for library, where in ((mt, device), (torch, "cpu")):
        a = library.tensor([1.5, 2.0], dtype=library.float64, device=where, requires_grad=True)
        x = library.tensor([0.5, 3.0], dtype=library.float64, device=where, requires_grad=True)
        out = getattr(library, name)(a, x)
        (gx,) = library.autograd.grad(out.sum(), x, create_graph=create_graph)
        grads.append(gx.detach().cpu().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_gradients_at_the_edges_as_pytorch(device):
    a = [1.0, 1.0, 0.5, 2.0, 3.0, 50.0, 1e-3, 1.0]
    x = [0.0, 1e-300, 1e-3, 0.0, 700.0, 50.0, 2.0, INF]
    grads = []
    for library, where in ((mt, device), (torch, "cpu")):
        xt = library.tensor(x, dtype=library.float64, device=where, requires_grad=True)
        at = library.tensor(a, dtype=library.float64, device=where)
        (library.igamma(at, xt) * 2 + library.igammac(at, xt)).sum().backward()
        grads.append(xt.grad.cpu().numpy() if library is mt else xt.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-13)


def test_in_place_and_out(device):
    a = mt.tensor([0.5, 2.0, 30.0], device=device)
    x = mt.tensor([1.0, 1.5, 31.0], device=device)
    expected = mt.igamma(a, x)
    target = a.clone()
    assert target.igamma_(x) is target
    np.testing.assert_array_equal(target.cpu().numpy(), expected.cpu().numpy())
    target = a.clone()
    assert target.igammac_(x) is target
    np.testing.assert_allclose(target.cpu().numpy(), 1 - expected.cpu().numpy(), rtol=1e-5)
    for function in (mt.igamma, mt.igammac, mt.special.gammainc, mt.special.gammaincc):
        out = mt.empty(3, dtype=mt.float64, device=device)  # a wider out, as PyTorch
        assert function(a, x, out=out) is out
        np.testing.assert_allclose(out.cpu().numpy(), function(a, x).cpu().numpy(), rtol=1e-6)
        assert tensor_device(device) == str(out.device)
    assert mt.special.gammainc(input=a, other=x).shape == (3,)
    assert mt.igamma(input=a, other=x).shape == (3,)


def test_in_place_refusals_as_pytorch(device):
    for library, where in ((mt, device), (torch, "cpu")):
        with pytest.raises(RuntimeError, match="Long"):
            library.tensor([1, 2], device=where).igamma_(library.tensor([1.0, 2.0], device=where))
        with pytest.raises(RuntimeError):
            library.ones(2, device=where).igamma_(library.ones(2, 2, device=where))
    # a float32 tensor takes the float64 result of mixing with float64, rounded
    t = mt.ones(2, device=device)
    t.igammac_(mt.ones(2, dtype=mt.float64, device=device))
    assert t.dtype is mt.float32


# -- gradients of gradients -------------------------------------------------------------
SECOND_ORDER = {
    "igamma": (lambda L, d, x: L.igamma(L.full_like(x, 2.5), x * x + 0.1).sum(), [(3, 4)]),
    "igammac": (lambda L, d, x: L.igammac(L.full_like(x, 0.7), x * x + 0.2).sum(), [(3, 4)]),
    "gammainc_large": (lambda L, d, x: L.special.gammainc(L.full_like(x, 40.0),
                                                          40 + 3 * x).sum(), [(3, 4)]),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_second_order_gradients_equal_pytorchs(name, device):
    fn, shapes = SECOND_ORDER[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    arrays = [rng.standard_normal(shape) for shape in shapes]
    assert_second_order_equal_pytorchs(fn, arrays, device, rtol=1e-9, atol=1e-11)
