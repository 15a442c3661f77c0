"""Gradients of gradients through the decompositions (their ``backward_graph``): eigh and
eigvalsh, svd and svdvals, pinv, qr, lu_factor(_ex), lu, lu_unpack, lu_solve and
matrix_exp. Each case compares, in float64, the first-order gradient made with
``create_graph=True`` and the gradient of its squared sum with PyTorch's; a few
Hessian-vector products are checked against finite differences, some cases to third order.

The inputs are well-posed (symmetric matrices of normal entries have distinct eigenvalues,
normal matrices distinct singular values) and the losses of eigen- and singular vectors
gauge-invariant (even powers: a vector's sign is arbitrary), as in PyTorch's own tests."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.autograd.second_order import (
    assert_graph_and_array_gradients_agree,
    assert_hvp_matches_finite_differences,
    gradients_and_their_gradient,
    seeded_arrays,
)
from tests.ops.linalg_inputs import symmetric, well_conditioned

W, S = well_conditioned, symmetric


def _eigh(L, a, **kwargs):
    w, v = L.linalg.eigh(S(L, a), **kwargs)
    return (w ** 3).sum() + (v ** 4).sum()


def _svd(L, a, full_matrices=False):
    u, s, vh = L.linalg.svd(a, full_matrices=full_matrices)
    k = s.shape[-1]  # the vectors that ``A`` determines: the first ``k``
    return (u[..., :k] ** 4).sum() + (s ** 3).sum() + (vh[..., :k, :] ** 4).sum()


def _lu(L, a, pivot=True):
    p, lower, upper = L.linalg.lu(a, pivot=pivot)
    return (lower ** 3).sum() + (upper ** 3).sum() + (p.matmul(a) ** 2).sum()


def _lu_unpack(L, a):
    lu, pivots = L.linalg.lu_factor(a)
    _, lower, upper = L.lu_unpack(lu, pivots)
    return (lower ** 3).sum() + (upper ** 2).sum()


def _lu_solve(L, a, b, **kwargs):
    lu, pivots = L.linalg.lu_factor(W(L, a))
    return (L.linalg.lu_solve(lu, pivots, b, **kwargs) ** 3).sum()


# name -> (f(lib, device, *inputs) -> scalar, input shapes); the inputs are standard normal
CASES = {
    # -- eigh, svd, pinv ---------------------------------------------------------------------
    "eigh": (lambda L, d, a: _eigh(L, a) + _eigh(L, a[0], UPLO="U"), [(2, 4, 4)]),
    "eigh_vectors_only": (lambda L, d, a: (L.linalg.eigh(S(L, a)).eigenvectors ** 4).sum(),
                          [(3, 3)]),
    "eigvalsh": (lambda L, d, a: (L.linalg.eigvalsh(S(L, a)) ** 3).sum()
                 + (L.linalg.eigvalsh(S(L, a[0]), UPLO="U") ** 2).sum(), [(2, 3, 3)]),
    "svd_square": (lambda L, d, a: _svd(L, a) + _svd(L, a[0], full_matrices=True),
                   [(2, 3, 3)]),
    "svd_tall": (lambda L, d, a: _svd(L, a) + _svd(L, a[1], full_matrices=True),
                 [(2, 5, 3)]),
    "svd_wide": (lambda L, d, a: _svd(L, a), [(3, 5)]),
    "svd_values_only_used": (lambda L, d, a: (L.linalg.svd(a, full_matrices=False).S ** 3)
                             .sum(), [(4, 3)]),
    "svdvals": (lambda L, d, a: (L.linalg.svdvals(a) ** 3).sum()
                + (L.linalg.svdvals(a[0].mT) ** 2).sum(), [(2, 4, 3)]),
    "pinv": (lambda L, d, a: (L.linalg.pinv(a) ** 3).sum(), [(2, 4, 3)]),
    "pinv_wide": (lambda L, d, a: (L.linalg.pinv(a) ** 3).sum(), [(3, 5)]),
    "pinv_hermitian": (lambda L, d, a: (L.linalg.pinv(W(L, S(L, a)), hermitian=True) ** 3)
                       .sum(), [(2, 3, 3)]),
    # -- qr ----------------------------------------------------------------------------------
    "qr": (lambda L, d, a: (L.linalg.qr(a).Q ** 3).sum() + (L.linalg.qr(a).R ** 3).sum(),
           [(2, 5, 3)]),
    "qr_square_complete": (lambda L, d, a: sum((t ** 3).sum()
                                               for t in L.linalg.qr(a, mode="complete")),
                           [(3, 3)]),
    "qr_wide": (lambda L, d, a: (L.linalg.qr(a).Q ** 3).sum() + (L.linalg.qr(a).R ** 3).sum(),
                [(2, 3, 5)]),
    # -- LU ----------------------------------------------------------------------------------
    "lu_factor": (lambda L, d, a: (L.linalg.lu_factor(a).LU ** 3).sum()
                  + (L.linalg.lu_factor_ex(a[0]).LU ** 2).sum(), [(2, 4, 4)]),
    "lu_factor_tall": (lambda L, d, a: (L.linalg.lu_factor(a).LU ** 3).sum(), [(5, 3)]),
    "lu_factor_wide": (lambda L, d, a: (L.linalg.lu_factor(a).LU ** 3).sum(), [(2, 3, 5)]),
    "lu": (lambda L, d, a: _lu(L, a), [(2, 4, 4)]),
    "lu_tall": (lambda L, d, a: _lu(L, a), [(2, 5, 3)]),
    "lu_wide": (lambda L, d, a: _lu(L, a), [(3, 5)]),
    "lu_unpack": (lambda L, d, a: _lu_unpack(L, a), [(2, 5, 3)]),
    "lu_unpack_wide": (lambda L, d, a: _lu_unpack(L, a), [(3, 5)]),
    "lu_solve": (lambda L, d, a, b: _lu_solve(L, a, b), [(2, 3, 3), (3, 2)]),
    "lu_solve_adjoint": (lambda L, d, a, b: _lu_solve(L, a, b, adjoint=True),
                         [(3, 3), (2, 3, 2)]),
    "lu_solve_right": (lambda L, d, a, b: _lu_solve(L, a, b, left=False)
                       + _lu_solve(L, a, b, left=False, adjoint=True), [(2, 3, 3), (2, 3)]),
    # -- matrix_exp --------------------------------------------------------------------------
    "matrix_exp": (lambda L, d, a: (L.linalg.matrix_exp(a) ** 2).sum()
                   + L.matrix_exp(a[0]).sin().sum(), [(2, 3, 3)]),
    "matrix_exp_1x1": (lambda L, d, a: (L.linalg.matrix_exp(a) ** 3).sum(), [(2, 1, 1)]),
}


def _assert_close(ours, theirs, rtol):
    """Relative to each array's largest entry (a squared gradient spans many magnitudes)."""
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * max(1.0, np.abs(b).max()))


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_gradients_equal_pytorchs(name, device):
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    ours = gradients_and_their_gradient(mt, device, fn, arrays)
    theirs = gradients_and_their_gradient(torch, None, fn, arrays)
    for our_list, their_list in zip(ours, theirs):
        _assert_close(our_list, their_list, 1e-9)


@pytest.mark.parametrize("name", ["eigh", "eigvalsh", "svd_tall", "svd_wide", "svdvals",
                                  "pinv", "qr", "qr_wide", "lu_factor", "lu_tall",
                                  "lu_unpack_wide", "lu_solve_right", "matrix_exp"])
def test_hessian_vector_products_match_finite_differences(name):
    """``d/dx <grad f(x), v>`` against central differences of the first-order gradient:
    independent of PyTorch."""
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    directions = [np.random.default_rng(7).standard_normal(shape) for shape in shapes]

    assert_hvp_matches_finite_differences(fn, arrays, directions, atol=1e-4)


@pytest.mark.parametrize("name", list(CASES))
def test_first_order_gradients_are_the_same_with_and_without_create_graph(name):
    """The graph formula (``backward_graph``) and the array one (``backward``) agree."""
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    assert_graph_and_array_gradients_agree(fn, arrays, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["eigh", "svd_tall", "pinv", "qr_wide", "lu_wide",
                                  "lu_solve", "matrix_exp"])
def test_third_order_gradients_equal_pytorchs(name, device):
    """The formulas are built of ops that have formulas: any order works."""
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)

    def third(lib, kwargs):
        xs = [lib.tensor(a, requires_grad=True, **kwargs) for a in arrays]
        grads = lib.autograd.grad(fn(lib, device, *xs), xs, create_graph=True)
        second = lib.autograd.grad(sum((g ** 3).sum() for g in grads), xs, create_graph=True)
        return [h.cpu().numpy() for h in lib.autograd.grad(sum(h.sum() for h in second), xs)]

    _assert_close(third(mt, {"device": device}), third(torch, {}), 1e-8)


def test_eigvalsh_of_a_matrix_with_a_repeated_eigenvalue_has_a_finite_first_gradient(device):
    """Only the values are used: the unused vectors' terms count as 0, not 0/0, also in the
    graph formula (``decomposition_graph.safe_div``)."""
    a = mt.tensor(np.diag([1.0, 1.0, 2.0]), device=device, requires_grad=True)
    for lossf in (lambda t: mt.linalg.eigvalsh(t).sum(),
                  lambda t: mt.linalg.eigh(t).eigenvalues.sum()):
        (g,) = mt.autograd.grad(lossf(a), a, create_graph=True)
        np.testing.assert_allclose(g.detach().cpu().numpy(), np.eye(3), atol=1e-12)


def test_qr_without_q_refuses_a_gradient_with_create_graph_too(device):
    a = mt.randn(3, 2, dtype=mt.float64, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="depends on Q, which is not computed"):
        mt.autograd.grad(mt.linalg.qr(a, mode="r").R.sum(), a, create_graph=True)
    with pytest.raises(RuntimeError, match="mode='complete' and nrows > ncols"):
        mt.autograd.grad(mt.linalg.qr(a, mode="complete").Q.sum(), a, create_graph=True)


def test_lu_without_pivoting_is_differentiable_twice(device):
    """``pivot=False`` (no ``P``): against the same function written as ``pivot=True`` on a
    matrix whose pivoting keeps the rows in place (a dominant diagonal)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 3)) + 5 * np.eye(3)
    results = []
    for pivot in (False, True):
        a = mt.tensor(x, device=device, requires_grad=True)
        _, lower, upper = mt.linalg.lu(a, pivot=pivot)
        (g,) = mt.autograd.grad((lower ** 3).sum() + (upper ** 3).sum(), a, create_graph=True)
        (h,) = mt.autograd.grad((g * g).sum(), a)
        results.append((g.detach().cpu().numpy(), h.cpu().numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_float32_gradients_keep_their_dtype(device):
    a = mt.randn(3, 3, device=device).requires_grad_()
    y = (mt.linalg.eigh(a + a.mT).eigenvectors ** 4).sum() + mt.linalg.svdvals(a).sum() \
        + (mt.linalg.matrix_exp(a) ** 2).sum() + (mt.linalg.lu_factor(a).LU ** 2).sum()
    (g,) = mt.autograd.grad(y, a, create_graph=True)
    (h,) = mt.autograd.grad(g.sum(), a)
    assert g.dtype == h.dtype == mt.float32


def test_on_meta_second_order_shapes():
    a = mt.empty(2, 4, 3, device="meta", requires_grad=True)
    y = sum((t ** 2).sum() for t in mt.linalg.svd(a, full_matrices=False)) \
        + (mt.linalg.pinv(a) ** 2).sum() + sum((t ** 2).sum() for t in mt.linalg.qr(a)) \
        + (mt.linalg.lu_factor(a).LU ** 2).sum()
    (g,) = mt.autograd.grad(y, a, create_graph=True)
    (h,) = mt.autograd.grad((g ** 2).sum(), a)
    assert g.shape == h.shape == (2, 4, 3)
