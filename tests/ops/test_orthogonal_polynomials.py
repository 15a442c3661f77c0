"""torch.special's orthogonal polynomials (chebyshev_polynomial_t ... legendre_polynomial_p):
values three ways (meta shapes, float32 against PyTorch), grids of x and n in float64 and
float32 against PyTorch (end points, negative, fractional, nan and huge degrees, the
trigonometric forms), tensor/number spellings and their dtypes, broadcasting, no gradient,
out=, and the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests

NAMES = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
         "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
         "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
         "laguerre_polynomial_l", "legendre_polynomial_p")


def _case(name, x_shape, n_shape, degree=None):
    if degree is not None:
        return Case(f"{name}_number_n", lambda T, F, x: getattr(T.special, name)(x, degree),
                    [Arg(x_shape, grad=False)])
    return Case(f"{name}_{len(x_shape)}d_{len(n_shape)}d",
                lambda T, F, x, n: getattr(T.special, name)(x, n),
                [Arg(x_shape, grad=False), Arg(n_shape, "int:12", False)])


CASES = [_case(name, (3, 4), (4,)) for name in NAMES] + [
    _case("chebyshev_polynomial_t", (2, 1, 3), (4, 1)),
    _case("legendre_polynomial_p", (), (5,)),
    _case("hermite_polynomial_he", (0, 3), (3,)),
    _case("laguerre_polynomial_l", (3, 2), (), degree=4),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, rtol=1e-4,
                                                                       atol=1e-4)

X = np.concatenate([np.linspace(-2.5, 2.5, 51), [1.0, -1.0, 0.0, 0.5, 1 - 1e-9, -1 + 1e-9,
                                                   1 + 1e-9, 1e-12, math.inf, -math.inf]])
N = np.array([-3, -1, -0.5, 0, 0.5, 1, 1.7, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 20, 33, 60, 128,
              129, 512, 513, math.nan, math.inf, -math.inf, 1e30])


def _grid(dtype, name):
    x, n = np.meshgrid(X, N)
    if dtype == "float32":  # float32 rounding of large degrees differs between libms
        keep = np.abs(n) <= 20
        x, n = x[keep], n[keep]
    return x.astype(dtype).ravel(), n.astype(dtype).ravel()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_agree_with_pytorchs_over_grids(name, dtype, device):
    x, n = _grid(dtype, name)
    ours = getattr(mt.special, name)(mt.tensor(x, device=device), mt.tensor(n, device=device))
    theirs = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    assert ours.dtype is getattr(mt, dtype) and ours.device == tensor_device(device)
    ours = ours.cpu().numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_array_equal(ours[np.isinf(theirs)], theirs[np.isinf(theirs)])
    finite = np.isfinite(theirs)
    # near a root only the size of the terms sets the precision: compare against the
    # polynomial's scale at |x|, bounded below by 1
    scale = np.maximum(np.abs(theirs), 1.0)[finite]
    rtol = 1e-11 if dtype == "float64" else 2e-5
    errors = np.abs(ours[finite] - theirs[finite]) / scale
    worst = np.argmax(errors)
    assert errors[worst] < rtol, (x[finite][worst], n[finite][worst], ours[finite][worst],
                                  theirs[finite][worst])


@pytest.mark.parametrize("name", NAMES)
def test_large_degrees_in_float32_stay_close_to_pytorchs(name, device):
    x = np.linspace(-0.95, 0.95, 39).astype(np.float32)
    n = np.full_like(x, 100.0)
    ours = getattr(mt.special, name)(mt.tensor(x, device=device), mt.tensor(n, device=device))
    theirs = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    reference = getattr(torch.special, name)(torch.tensor(x, dtype=torch.float64),
                                             torch.tensor(n, dtype=torch.float64)).numpy()
    scale = np.abs(reference).max()
    # both float32 results are within float32's rounding of a degree-100 evaluation
    np.testing.assert_allclose(ours.cpu().numpy(), theirs, rtol=0, atol=1e-3 * scale)


@pytest.mark.parametrize("name", NAMES)
def test_tensor_and_number_spellings_and_dtypes_as_pytorch(name, device):
    calls = [
        (lambda T, d: (T.tensor([0.3, -0.7], device=d), 3), "x tensor, n int"),
        (lambda T, d: (T.tensor([0.3, -0.7], device=d), 2.9), "n float"),
        (lambda T, d: (T.tensor([0.3, -0.7], device=d), True), "n bool"),
        (lambda T, d: (0.25, T.tensor([2, 5], device=d)), "x number"),
        (lambda T, d: (T.tensor([1, 2], device=d), 3), "integer x"),
        (lambda T, d: (T.tensor([1, 2], device=d), T.tensor([2, 3], device=d)), "integers"),
        (lambda T, d: (T.tensor([0.3], dtype=T.float64, device=d),
                       T.tensor([2], device=d)), "float64 x"),
        (lambda T, d: (T.tensor([0.3, 0.6], device=d),
                       T.tensor(2.0, dtype=T.float64, device=d)), "0-d float64 n"),
        (lambda T, d: (T.tensor([0.3, 0.6], device=d),
                       T.tensor([2.0], dtype=T.float64, device=d)), "1-d float64 n"),
    ]
    for make, label in calls:
        ours = getattr(mt.special, name)(*make(mt, device))
        theirs = getattr(torch.special, name)(*make(torch, "cpu"))
        assert str(ours.dtype) == str(theirs.dtype), label
        assert ours.shape == theirs.shape, label
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6,
                                   err_msg=label)


def test_broadcasting_and_meta():
    x, n = mt.ones(2, 1, 3), mt.tensor([[1.0], [2.0], [3.0], [4.0]])
    assert mt.special.chebyshev_polynomial_u(x, n).shape == (2, 4, 3)
    meta = mt.special.hermite_polynomial_h(mt.ones(2, 1, 3, device="meta"),
                                           mt.ones(4, 1, dtype=mt.int64, device="meta"))
    assert meta.is_meta and meta.shape == (2, 4, 3) and meta.dtype is mt.float32
    assert mt.special.legendre_polynomial_p(mt.ones(0, 3), 2).shape == (0, 3)


def test_hermite_degrees_beyond_pytorchs_limit_are_nan(device):
    for dtype, limit in (("float32", 128), ("float64", 512)):
        # (the recurrence overflows before the limit anyway: sqrt(n!) grows past the range)
        x = 1e-3
        degrees = [limit - 1, limit, limit + 1]
        values = mt.special.hermite_polynomial_he(
            mt.full((3,), x, dtype=getattr(mt, dtype), device=device),
            mt.tensor(degrees, dtype=getattr(mt, dtype), device=device))
        reference = torch.special.hermite_polynomial_he(
            torch.full((3,), x, dtype=getattr(torch, dtype)),
            torch.tensor(degrees, dtype=getattr(torch, dtype)))
        assert mt.isnan(values).tolist() == torch.isnan(reference).tolist()
        assert math.isnan(values[2].item())


def test_no_gradient_as_pytorch(device):
    x = mt.tensor([0.5, 1.5], device=device, requires_grad=True)
    y = mt.special.chebyshev_polynomial_t(x, 3)
    reference = torch.special.chebyshev_polynomial_t(torch.tensor([0.5], requires_grad=True), 3)
    assert y.requires_grad is reference.requires_grad is False and y.grad_fn is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.sum().backward()


def test_out_argument(device):
    out = mt.empty(2, dtype=mt.float64, device=device)
    result = mt.special.laguerre_polynomial_l(mt.tensor([1.0, 2.0], device=device), 3, out=out)
    assert result is out
    expected = torch.special.laguerre_polynomial_l(torch.tensor([1.0, 2.0]), 3)
    np.testing.assert_allclose(out.cpu().numpy(), expected.numpy(), rtol=1e-6)


def test_errors_as_pytorch():
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        torch.special.legendre_polynomial_p(0.5, 3)
    with pytest.raises(TypeError) as info:
        mt.special.legendre_polynomial_p(0.5, 3)
    assert str(info.value).startswith("special_legendre_polynomial_p() received an invalid "
                                      "combination of arguments - got (float, int)")
    with pytest.raises(TypeError, match=r"got \(Tensor, str\)"):
        mt.special.chebyshev_polynomial_t(mt.ones(2), "a")
    with pytest.raises(RuntimeError):
        torch.special.legendre_polynomial_p(torch.zeros(2), torch.zeros(3))
    for device in ("cpu", "meta"):
        with pytest.raises(RuntimeError, match="legendre_polynomial_p"):
            mt.special.legendre_polynomial_p(mt.zeros(2, device=device),
                                             mt.zeros(3, device=device))
        with pytest.raises(NotImplementedError) as half:
            mt.special.hermite_polynomial_h(mt.ones(2, dtype=mt.float16, device=device), 2)
        assert str(half.value).startswith(f'"hermite_polynomial_h_{device}" not implemented '
                                          "for 'Half'")
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        torch.special.hermite_polynomial_h(torch.ones(2, dtype=torch.float16), 2)
