"""linalg.householder_product (and torch.orgqr/ormqr), vander, cond, tensorinv,
tensorsolve, diagonal and matmul: values, gradients, meta shapes, dtypes and errors as
PyTorch's."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_against_torch, three_way_tests
from tests.ops.linalg_inputs import well_conditioned

W = well_conditioned
INF = math.inf

CASES = [
    Case("householder_product", lambda T, F, a, t: T.linalg.householder_product(a, t),
         [Arg((5, 3)), Arg((3,))]),
    Case("householder_product_fewer_tau", lambda T, F, a, t: T.linalg.householder_product(a, t),
         [Arg((2, 4, 3)), Arg((2, 2))]),
    Case("householder_product_square", lambda T, F, a, t: T.linalg.householder_product(a, t),
         [Arg((3, 3)), Arg((3,))]),
    Case("orgqr", lambda T, F, a, t: T.orgqr(a, t), [Arg((4, 2)), Arg((2,))]),
    Case("orgqr_method", lambda T, F, a, t: a.orgqr(t), [Arg((4, 3)), Arg((2,))]),
    Case("ormqr_left", lambda T, F, a, t, c: T.ormqr(a, t, c), [Arg((4, 3)), Arg((3,)),
                                                              Arg((4, 2))]),
    Case("ormqr_left_transpose", lambda T, F, a, t, c: T.ormqr(a, t, c, transpose=True),
         [Arg((2, 4, 3)), Arg((2, 3)), Arg((2, 4, 5))]),
    Case("ormqr_right", lambda T, F, a, t, c: T.ormqr(a, t, c, left=False),
         [Arg((4, 3)), Arg((3,)), Arg((2, 4))]),
    Case("ormqr_right_transpose", lambda T, F, a, t, c: a.ormqr(t, c, False, True),
         [Arg((3, 4)), Arg((3,)), Arg((2, 3))]),
    Case("vander", lambda T, F, x: T.linalg.vander(x), [Arg((4,))]),
    Case("vander_batched_N", lambda T, F, x: T.linalg.vander(x, N=3), [Arg((2, 5))]),
    Case("vander_0d", lambda T, F, x: T.linalg.vander(x, N=4), [Arg(())]),
    Case("vander_int", lambda T, F, x: T.linalg.vander(x), [Arg((3,), "int:5")]),
    Case("cond_default", lambda T, F, a: T.linalg.cond(W(T, a)), [Arg((3, 3))]),
    Case("cond_2_wide", lambda T, F, a: T.linalg.cond(a, 2), [Arg((2, 3, 4))]),
    Case("cond_minus_2", lambda T, F, a: T.linalg.cond(a, -2), [Arg((4, 3))]),
    Case("cond_nuc", lambda T, F, a: T.linalg.cond(W(T, a), "nuc"), [Arg((3, 3))]),
    Case("tensorinv", lambda T, F, a: T.linalg.tensorinv(W(T, a.reshape(6, 6)).reshape(
        2, 3, 6), ind=2), [Arg((6, 6))]),
    Case("tensorinv_ind_1", lambda T, F, a: T.linalg.tensorinv(W(T, a).reshape(4, 2, 2),
                                                               ind=1), [Arg((4, 4))]),
    Case("tensorsolve", lambda T, F, a, b: T.linalg.tensorsolve(
        W(T, a).reshape(2, 3, 6), b), [Arg((6, 6)), Arg((2, 3))]),
    Case("tensorsolve_dims", lambda T, F, a, b: T.linalg.tensorsolve(
        W(T, a).reshape(3, 2, 2, 3), b, dims=(1,)), [Arg((6, 6)), Arg((3, 2))]),
    Case("linalg_diagonal", lambda T, F, a: T.linalg.diagonal(a, offset=1),
         [Arg((2, 3, 4))]),
    Case("linalg_diagonal_dims", lambda T, F, a: T.linalg.diagonal(a, dim1=0, dim2=2),
         [Arg((3, 2, 4))]),
    Case("linalg_matmul", lambda T, F, a, b: T.linalg.matmul(a, b),
         [Arg((2, 3, 4)), Arg((4, 2))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)

# norm(A) * norm(inverse(A)): PyTorch 2.13's backward fails here (its masked_fill_ writes
# into the saved inverse), so the gradients are checked by finite differences only and the
# values against PyTorch.
COND_CASES = [
    Case("cond_fro", lambda T, F, a: T.linalg.cond(W(T, a), "fro"), [Arg((2, 3, 3))]),
    Case("cond_1", lambda T, F, a: T.linalg.cond(W(T, a), 1), [Arg((3, 3), "distinct")]),
    Case("cond_minus_1", lambda T, F, a: T.linalg.cond(W(T, a), -1),
         [Arg((3, 3), "distinct")]),
    Case("cond_inf", lambda T, F, a: T.linalg.cond(W(T, a), INF), [Arg((2, 3, 3), "distinct")]),
    Case("cond_minus_inf", lambda T, F, a: T.linalg.cond(W(T, a), -INF),
         [Arg((3, 3), "distinct")]),
]
test_cond_gradcheck, _, test_cond_meta_shapes = three_way_tests(COND_CASES)


@pytest.mark.parametrize("case", COND_CASES, ids=[c.id for c in COND_CASES])
def test_cond_values_against_torch(case, device):
    values_only = Case(case.id, case.fn, [Arg(a.shape, a.kind, grad=False) for a in case.args])
    check_against_torch(values_only, device)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


def _both(torch, array, device):
    return mt.tensor(array, device=device), torch.tensor(array)


def _same_error(torch, call, mt_args, torch_args, error=RuntimeError):
    """Both libraries raise ``error``, and PyTorch's message is part of ours."""
    with pytest.raises(error) as theirs:
        call(torch, *torch_args)
    with pytest.raises(error, match=re.escape(str(theirs.value).split(" (Triggered")[0])):
        call(mt, *mt_args)


def test_householder_product_errors_as_torch(device):
    torch = _torch()
    rng = np.random.default_rng(0)
    shapes = [((4, 3), (4,)), ((3, 4), (3,)), ((3,), (3,)), ((4, 3), (2, 3)),
              ((2, 4, 3), (3, 3))]
    for a_shape, t_shape in shapes:
        a, ta = _both(torch, rng.standard_normal(a_shape), device)
        t, tt = _both(torch, rng.standard_normal(t_shape), device)
        _same_error(torch, lambda L, x, y: L.linalg.householder_product(x, y), (a, t), (ta, tt))
    a, ta = _both(torch, rng.standard_normal((4, 3)), device)
    t, tt = _both(torch, rng.standard_normal(3).astype(np.float32), device)
    _same_error(torch, lambda L, x, y: L.linalg.householder_product(x, y), (a, t), (ta, tt))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        mt.linalg.householder_product(mt.ones(4, 3, dtype=mt.int64, device=device),
                                      mt.ones(3, dtype=mt.int64, device=device))


def test_ormqr_errors_as_torch(device):
    torch = _torch()
    rng = np.random.default_rng(1)
    shapes = [((4, 3), (4,), (4, 2), True), ((4, 3), (3,), (4, 2), False),
              ((4, 3), (2, 3), (4, 2), True), ((4, 3), (3,), (2, 4, 2), True),
              ((3,), (3,), (4, 2), True), ((4, 3), (3,), (4,), True),
              ((2, 4, 3), (3, 3), (2, 4, 2), True), ((2, 4, 3), (2, 3), (3, 4, 2), True),
              ((4, 3), (0,), (4, 2), True)]
    for a_shape, t_shape, c_shape, left in shapes:
        args = [_both(torch, rng.standard_normal(s), device) for s in (a_shape, t_shape, c_shape)]
        _same_error(torch, lambda L, a, t, c, left=left: L.ormqr(a, t, c, left),
                    [x for x, _ in args], [y for _, y in args])


def test_householder_product_without_reflections_is_the_identity_and_connected(device):
    a = mt.randn(4, 3, dtype=mt.float64, device=device, requires_grad=True)
    q = mt.linalg.householder_product(a, mt.zeros(0, dtype=mt.float64, device=device))
    np.testing.assert_array_equal(q.detach().cpu().numpy(), np.eye(4, 3))
    assert q.grad_fn.name() == "LinalgHouseholderProductBackward0"
    q.sum().backward()
    assert a.grad.abs().sum().item() == 0.0


def test_vander_dtypes_and_errors_as_torch(device):
    torch = _torch()
    for dtype in ("int8", "uint8", "int32", "int64", "float32", "float64"):
        x = np.array([1, 2, 3], dtype=dtype)
        ours = mt.linalg.vander(mt.tensor(x, device=device))
        theirs = torch.linalg.vander(torch.tensor(x))
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())
    for x, n in ((np.array([True, False]), None), (np.array([1.0, 2.0], np.float16), None),
                 (np.array(1.0), None), (np.array([1.0, 2.0]), 1), (np.array([1.0, 2.0]), 0)):
        with pytest.raises(RuntimeError) as theirs:
            torch.linalg.vander(torch.tensor(x), N=n)
        with pytest.raises(RuntimeError, match=re.escape(str(theirs.value)[:-1])):
            mt.linalg.vander(mt.tensor(x, device=device), N=n)


def test_cond_of_singular_and_empty_matrices_as_torch(device):
    torch = _torch()
    singular = np.stack([np.zeros((3, 3)), np.eye(3) * 2.0, [[1.0, 2, 3], [2, 4, 6], [0, 1, 0]]])
    for p in (None, 2, -2, "fro", "nuc", INF, -INF, 1, -1):
        with np.errstate(all="ignore"):
            ours = mt.linalg.cond(mt.tensor(singular, device=device), p).cpu().numpy()
        theirs = torch.linalg.cond(torch.tensor(singular), p).numpy()
        assert ours.shape == theirs.shape
        np.testing.assert_array_equal(np.isinf(ours), np.isinf(theirs), err_msg=str(p))
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs), err_msg=str(p))
        # sigma_max / sigma_min of a rank-deficient matrix divides by rounding noise: its
        # value depends on the LAPACK build and CPU (AVX2 or AVX-512), only its size does not
        huge = np.isfinite(theirs) & (np.abs(theirs) > 1e12)
        tiny = (theirs != 0) & (np.abs(theirs) < 1e-12)  # (p=-2: sigma_min / sigma_max)
        assert (np.abs(ours[huge]) > 1e12).all() and (np.abs(ours[tiny]) < 1e-12).all(), (
            p, ours, theirs)
        exact = np.isfinite(theirs) & ~huge & ~tiny
        np.testing.assert_allclose(ours[exact], theirs[exact], rtol=1e-6, err_msg=str(p))
        for shape in ((0, 0), (2, 0, 0)):
            ours = mt.linalg.cond(mt.zeros(*shape, device=device), p)
            theirs = torch.linalg.cond(torch.zeros(*shape), p)
            assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype is mt.float32
            assert ours.abs().sum().item() == 0.0 and tensor_device(device) == ours.device


def test_cond_errors_as_torch(device):
    torch = _torch()
    calls = [((3, 3), 3), ((3, 3), "abc"), ((3, 3), 0.5), ((2, 3), "fro"), ((2, 3), "nuc"),
             ((2, 3), 1), ((2, 3), INF), ((2, 3), -1.0), ((3,), None), ((3,), 2)]
    for shape, p in calls:
        _same_error(torch, lambda L, a, p=p: L.linalg.cond(a, p), (mt.ones(*shape, device=device),),
                    (torch.ones(*shape),))


def test_cond_grad_fn_names_as_torch():
    torch = _torch()
    for p in (None, -2, "fro", "nuc", INF, 1):
        a = np.eye(3) * 2 + 0.1
        ours = mt.linalg.cond(mt.tensor(a, requires_grad=True), p)
        theirs = torch.linalg.cond(torch.tensor(a, requires_grad=True), p)
        assert ours.grad_fn.name() == type(theirs.grad_fn).__name__


def test_tensorinv_and_tensorsolve_errors_as_torch(device):
    torch = _torch()
    for shape, ind in (((4, 6, 8, 2), 2), ((4, 6, 8, 3), 0), ((4, 6, 8, 3), -1),
                       ((3, 2, 6), 3)):
        _same_error(torch, lambda L, a, ind=ind: L.linalg.tensorinv(a, ind=ind),
                    (mt.ones(*shape, device=device),), (torch.ones(*shape),))
    singular = np.zeros((2, 2, 4))
    with pytest.raises(torch.linalg.LinAlgError) as theirs:
        torch.linalg.tensorinv(torch.tensor(singular), ind=2)
    with pytest.raises(mt.linalg.LinAlgError, match=re.escape(str(theirs.value))):
        mt.linalg.tensorinv(mt.tensor(singular, device=device), ind=2)
    for a_shape, b_shape, dims in (((6, 4, 2, 3), (6, 4), (0, 2)), ((2, 3, 6), (6,), None),
                                   ((2, 3, 5), (2, 3), None)):
        _same_error(torch, lambda L, a, b, dims=dims: L.linalg.tensorsolve(a, b, dims=dims),
                    (mt.ones(*a_shape, device=device), mt.ones(*b_shape, device=device)),
                    (torch.ones(*a_shape), torch.ones(*b_shape)))


def test_tensorinv_inverts_for_tensordot(device):
    rng = np.random.default_rng(3)
    a = mt.tensor(rng.standard_normal((4, 6)) + 4 * np.eye(4, 6)[:, :6], device=device)
    a = (a.reshape(6, 4).mT @ a.reshape(6, 4)).reshape(4, 2, 2) + 0  # symmetric, invertible
    inverse = mt.linalg.tensorinv(a, ind=1)
    assert inverse.shape == (2, 2, 4)
    identity = mt.tensordot(a, inverse, 2)
    np.testing.assert_allclose(identity.cpu().numpy(), np.eye(4), atol=1e-9)


def test_linalg_aliases_are_the_functions(device):
    a = mt.arange(24.0, device=device).reshape(2, 3, 4)
    np.testing.assert_array_equal(mt.linalg.diagonal(a).cpu().numpy(),
                                  np.diagonal(np.arange(24.0).reshape(2, 3, 4), 0, -2, -1))
    assert mt.linalg.diagonal(a).data_ptr() == a.data_ptr()  # a view
    np.testing.assert_array_equal(mt.linalg.matmul(a, a.mT).cpu().numpy(),
                                  (a @ a.mT).cpu().numpy())


def test_orthogonal_parametrization_uses_the_one_householder_product():
    from minitorch_meta.nn.utils import orthogonal

    assert orthogonal.householder_product is mt.linalg.householder_product
