"""Gradients of gradients through the linear-algebra ops (their ``backward_graph``):
inv, solve, solve_triangular, det, slogdet, cholesky, cholesky_solve, cholesky_inverse,
linalg.cross and vander. Each case compares, in float64, the first-order gradient made with
``create_graph=True`` and the gradient of its squared sum with PyTorch's; a few
Hessian-vector products are checked against finite differences, one case to third order."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.autograd.second_order import (
    assert_graph_and_array_gradients_agree,
    assert_hvp_matches_finite_differences,
    assert_second_order_equal_pytorchs,
    seeded_arrays,
)
from tests.ops.linalg_inputs import spd, well_conditioned

W = well_conditioned


def _vander(lib, x, N=None, increasing=False):  # noqa: N803 - PyTorch's name
    """``vander``; PyTorch's own cannot be differentiated with ``create_graph`` (its
    in-place cumulative product raises), so its reference is the same powers composed."""
    if lib is mt:
        return mt.vander(x, N=N, increasing=increasing)
    n = x.shape[0] if N is None else N
    exponents = torch.arange(n, dtype=x.dtype)
    return x.unsqueeze(1) ** (exponents if increasing else exponents.flip(0))


# name -> (f(lib, device, *inputs) -> scalar, input shapes); the inputs are standard normal
CASES = {
    # -- inverse and solves ----------------------------------------------------------------
    "inv": (lambda L, d, a: (L.linalg.inv(W(L, a)) ** 3).sum(), [(3, 3)]),
    "inv_batched_ex": (lambda L, d, a: (L.linalg.inv_ex(W(L, a)).inverse ** 3).sum()
                       + (L.inverse(W(L, a[0])) ** 2).sum(), [(2, 3, 3)]),
    "solve": (lambda L, d, a, b: (L.linalg.solve(W(L, a), b) ** 3).sum(), [(3, 3), (3, 2)]),
    "solve_vectors": (lambda L, d, a, b: (L.linalg.solve(W(L, a), b) ** 3).sum()
                      + (L.linalg.solve(W(L, a), b[0]) ** 3).sum(), [(2, 3, 3), (2, 3)]),
    "solve_broadcast_right": (lambda L, d, a, b: (L.linalg.solve(W(L, a), b, left=False)
                                                  ** 3).sum(), [(2, 1, 3, 3), (4, 2, 3)]),
    "solve_ex_a_only": (lambda L, d, a, b: (L.linalg.solve_ex(W(L, a), b.detach()).result
                                            ** 3).sum() + (b ** 2).sum(), [(3, 3), (3, 2)]),
    "solve_triangular": (lambda L, d, a, b: (L.linalg.solve_triangular(W(L, a), b, upper=True)
                                             ** 3).sum()
                         + (L.linalg.solve_triangular(W(L, a), b, upper=False) ** 3).sum(),
                         [(2, 3, 3), (3, 2)]),
    "solve_triangular_right_unit": (
        lambda L, d, a, b: (L.linalg.solve_triangular(a, b, upper=False, left=False,
                                                      unitriangular=True) ** 3).sum()
        + (L.linalg.solve_triangular(a, b, upper=True, left=False, unitriangular=True)
           ** 3).sum(), [(2, 3, 3), (2, 4, 3)]),
    # -- determinants ----------------------------------------------------------------------
    "det": (lambda L, d, a: (L.linalg.det(a) ** 2).sum() + L.det(a[0]).sin(), [(2, 3, 3)]),
    "det_1x1": (lambda L, d, a: (L.linalg.det(a) ** 3).sum() + a.det().sum(), [(2, 1, 1)]),
    "slogdet": (lambda L, d, a: (L.linalg.slogdet(W(L, a)).logabsdet ** 2).sum()
                + (L.slogdet(a[0])[1] ** 3) + L.logdet(spd(L, a)).sum(), [(2, 3, 3)]),
    # -- Cholesky --------------------------------------------------------------------------
    "cholesky": (lambda L, d, a: (L.linalg.cholesky(spd(L, a)) ** 3).sum()
                 + (L.linalg.cholesky_ex(spd(L, a[0]), upper=True).L ** 3).sum(),
                 [(2, 3, 3)]),
    "cholesky_solve": (lambda L, d, a, b: (L.cholesky_solve(b, L.linalg.cholesky(spd(L, a)))
                                           ** 3).sum()
                       + (L.cholesky_solve(b, L.linalg.cholesky(spd(L, a[0])).mT, upper=True)
                          ** 3).sum(), [(2, 3, 3), (3, 2)]),
    "cholesky_inverse": (lambda L, d, a: (L.cholesky_inverse(L.linalg.cholesky(spd(L, a)))
                                          ** 3).sum()
                         + (L.cholesky_inverse(L.linalg.cholesky(spd(L, a[1]), upper=True),
                                               upper=True) ** 3).sum(), [(2, 3, 3)]),
    # PyTorch's gradient of a whole factor (entries off its triangle too, though only the
    # triangle is read) is not a gradient of a function of the factor: no finite-difference
    # check of these two, only PyTorch's values
    "cholesky_solve_raw_factor": (lambda L, d, a, b: (L.cholesky_solve(b, W(L, a)) ** 3).sum()
                                  + (L.cholesky_solve(b, W(L, a[0]), upper=True) ** 3).sum(),
                                  [(2, 3, 3), (3, 2)]),
    "cholesky_inverse_raw_factor": (lambda L, d, a: (L.cholesky_inverse(W(L, a)) ** 3).sum()
                                    + (L.cholesky_inverse(W(L, a[1]), upper=True) ** 3).sum(),
                                    [(2, 3, 3)]),
    # -- cross product, Vandermonde --------------------------------------------------------
    "cross": (lambda L, d, a, b: (L.linalg.cross(a, b) ** 3).sum()
              + (L.linalg.cross(a.t()[:, :1], b.t(), dim=0) ** 3).sum(), [(2, 3), (2, 3)]),
    "vander": (lambda L, d, x: (_vander(L, x) ** 2).sum() + (_vander(L, x, 2) ** 3).sum()
               + (_vander(L, x, 5, increasing=True) ** 2).sum()
               + _vander(L, x, 1).sum() + _vander(L, x, 0).sum(), [(4,)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_gradients_equal_pytorchs(name, device):
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    assert_second_order_equal_pytorchs(fn, arrays, device)


@pytest.mark.parametrize("name", ["inv", "solve_triangular_right_unit", "det", "slogdet",
                                  "cholesky", "cholesky_solve", "cholesky_inverse", "cross",
                                  "vander"])
def test_hessian_vector_products_match_finite_differences(name):
    """``d/dx <grad f(x), v>`` against central differences of the first-order gradient:
    independent of PyTorch."""
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    directions = [np.random.default_rng(7).standard_normal(shape) for shape in shapes]

    assert_hvp_matches_finite_differences(fn, arrays, directions, atol=1e-5)


@pytest.mark.parametrize("name", list(CASES))
def test_first_order_gradients_are_the_same_with_and_without_create_graph(name):
    """The graph formula (``backward_graph``) and the array one (``backward``) agree."""
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    assert_graph_and_array_gradients_agree(fn, arrays, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["inv", "solve", "cholesky"])
def test_third_order_gradients_equal_pytorchs(name, device):
    """The formulas are built of ops that have formulas: any order works."""
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)

    def third(lib, kwargs):
        xs = [lib.tensor(a, requires_grad=True, **kwargs) for a in arrays]
        grads = lib.autograd.grad(fn(lib, device, *xs), xs, create_graph=True)
        second = lib.autograd.grad(sum((g ** 3).sum() for g in grads), xs, create_graph=True)
        return [h.cpu().numpy() for h in lib.autograd.grad(sum(h.sum() for h in second), xs)]

    for a, b in zip(third(mt, {"device": device}), third(torch, {})):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-9)


def test_det_at_a_singular_matrix_has_its_cofactor_gradient_and_refuses_a_second(device):
    """PyTorch differentiates ``det`` twice at a singular matrix through an SVD; here the
    first derivative (the cofactor matrix) is right and the second raises, naming why
    (docs/differences.md)."""
    rows = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]
    a = mt.tensor(rows, dtype=mt.float64, device=device, requires_grad=True)
    (g,) = mt.autograd.grad(mt.linalg.det(a), a, create_graph=True)
    cofactors = [[4, 4, -4], [-2, -2, 2], [0, 0, 0]]  # rank 2: not zero
    np.testing.assert_allclose(g.detach().cpu().numpy(), cofactors, atol=1e-12)
    with pytest.raises(RuntimeError, match="det: the second derivative of the determinant "
                                           "at a singular matrix"):
        mt.autograd.grad((g * g).sum(), a)


def test_det_of_a_batch_with_one_singular_matrix_refuses_a_second_derivative(device):
    a = mt.tensor(np.stack([np.eye(2) * 2, [[1.0, 2.0], [2.0, 4.0]]]), dtype=mt.float64,
                  device=device, requires_grad=True)
    (g,) = mt.autograd.grad(mt.linalg.det(a).sum(), a, create_graph=True)
    np.testing.assert_allclose(g.detach().cpu().numpy(), [[[2, 0], [0, 2]], [[4, -2], [-2, 1]]])
    with pytest.raises(RuntimeError, match="singular matrix"):
        g.sum().backward()


def test_vander_is_differentiable_twice_at_zero(device):
    """``sum(vander(x) ** 2) = sum(x⁴ + x² + 1)``: second derivative ``12 x² + 2``, finite at
    0 (a formula with ``x ** (e - 1)`` would give NaN there)."""
    x = mt.tensor([0.0, 1.0, 2.0], dtype=mt.float64, device=device, requires_grad=True)
    (g,) = mt.autograd.grad((mt.vander(x) ** 2).sum(), x, create_graph=True)
    (h,) = mt.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().cpu().numpy(), [0, 6, 36])
    np.testing.assert_allclose(h.cpu().numpy(), [2, 14, 50])


def test_solve_triangular_second_order_gradient_stays_on_the_read_triangle(device):
    """Only the triangle of ``A`` is read: the second-order gradient is zero off it (and on
    the diagonal with ``unitriangular``)."""
    rng = np.random.default_rng(3)
    a = mt.tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3), device=device,
                  requires_grad=True)
    b = mt.tensor(rng.standard_normal((3, 2)), device=device, requires_grad=True)
    for upper, unit in ((True, False), (False, True)):
        x = mt.linalg.solve_triangular(a, b, upper=upper, unitriangular=unit)
        ga, gb = mt.autograd.grad((x ** 3).sum(), (a, b), create_graph=True)
        (h,) = mt.autograd.grad((ga * ga).sum() + (gb * gb).sum(), a)
        read = np.triu(np.ones((3, 3)), 1 if unit else 0) if upper else \
            np.tril(np.ones((3, 3)), -1 if unit else 0)
        assert (h.cpu().numpy()[read == 0] == 0).all()
        assert (h.cpu().numpy()[read == 1] != 0).all()


def test_float32_gradients_keep_their_dtype(device):
    a = (mt.randn(3, 3, device=device) + 3 * mt.eye(3, device=device)).requires_grad_()
    y = (mt.linalg.inv(a) ** 2).sum() + mt.linalg.det(a) + mt.linalg.slogdet(a)[1]
    (g,) = mt.autograd.grad(y, a, create_graph=True)
    (h,) = mt.autograd.grad(g.sum(), a)
    assert g.dtype == h.dtype == mt.float32


def test_on_meta_second_order_shapes():
    a = mt.empty(2, 3, 3, device="meta", requires_grad=True)
    b = mt.empty(3, 4, device="meta", requires_grad=True)
    y = (mt.linalg.solve(a, b) ** 2).sum() + mt.linalg.det(a).sum() \
        + (mt.linalg.cholesky(a) ** 2).sum()
    ga, gb = mt.autograd.grad(y, (a, b), create_graph=True)
    ha, hb = mt.autograd.grad((ga ** 2).sum() + (gb ** 2).sum(), (a, b))
    assert ga.shape == ha.shape == (2, 3, 3) and gb.shape == hb.shape == (3, 4)
