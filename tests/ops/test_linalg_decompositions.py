"""cholesky, qr, eigh/eigvalsh, svd/svdvals, pinv and their aliases: values, gradients of
gauge-invariant losses, meta shapes, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests
from tests.ops.linalg_inputs import spd, symmetric


def _reconstructed(T, F, a, full=False):
    u, s, vh = T.linalg.svd(a, full_matrices=full)
    k = s.shape[-1]
    return (u[..., :k] * s.unsqueeze(-2)).matmul(vh[..., :k, :])


def _eigen_reconstructed(T, F, a):
    w, v = T.linalg.eigh(symmetric(T, a))
    return (v * w.unsqueeze(-2)).matmul(v.mT)


CASES = [
    Case("cholesky", lambda T, F, a: T.linalg.cholesky(spd(T, a)), [Arg((4, 4))]),
    Case("cholesky_upper_batched", lambda T, F, a: T.linalg.cholesky(spd(T, a), upper=True),
         [Arg((2, 3, 3, 3))]),
    Case("cholesky_ex", lambda T, F, a: T.linalg.cholesky_ex(spd(T, a)).L, [Arg((2, 3, 3))]),
    Case("cholesky_deprecated", lambda T, F, a: T.cholesky(spd(T, a)), [Arg((3, 3))]),
    Case("cholesky_method_upper", lambda T, F, a: spd(T, a).cholesky(upper=True),
         [Arg((3, 3))]),
    Case("qr_tall", lambda T, F, a: T.linalg.qr(a), [Arg((5, 3))]),
    Case("qr_tall_r", lambda T, F, a: T.linalg.qr(a).R, [Arg((5, 3))]),
    Case("qr_square_batched", lambda T, F, a: T.linalg.qr(a)[1], [Arg((2, 3, 3))]),
    Case("qr_wide", lambda T, F, a: T.linalg.qr(a).Q, [Arg((3, 5))]),
    Case("qr_wide_r", lambda T, F, a: T.linalg.qr(a).R, [Arg((2, 3, 5))]),
    Case("qr_complete_wide", lambda T, F, a: T.linalg.qr(a, mode="complete").R,
         [Arg((3, 4))]),
    Case("qr_complete_tall_values", lambda T, F, a: T.linalg.qr(a, mode="complete").Q,
         [Arg((4, 2), grad=False)]),
    Case("qr_r_mode_values", lambda T, F, a: T.linalg.qr(a, mode="r").R,
         [Arg((2, 4, 3), grad=False)]),
    Case("qr_product", lambda T, F, a: (lambda q, r: q.matmul(r))(*T.linalg.qr(a)),
         [Arg((2, 4, 3))]),
    Case("eigvalsh", lambda T, F, a: T.linalg.eigvalsh(symmetric(T, a)), [Arg((2, 4, 4))]),
    Case("eigvalsh_upper", lambda T, F, a: T.linalg.eigvalsh(symmetric(T, a), UPLO="U"),
         [Arg((3, 3))]),
    Case("eigh_values", lambda T, F, a: T.linalg.eigh(symmetric(T, a)).eigenvalues,
         [Arg((4, 4))]),
    # eigenvectors are defined up to sign: |V| and V diag(w) Vᵀ are not
    Case("eigh_abs_vectors", lambda T, F, a: T.linalg.eigh(symmetric(T, a))[1].abs(),
         [Arg((2, 4, 4))]),
    Case("eigh_reconstructed", _eigen_reconstructed, [Arg((3, 3))]),
    Case("svdvals", lambda T, F, a: T.linalg.svdvals(a), [Arg((2, 4, 3))]),
    Case("svdvals_wide", lambda T, F, a: T.linalg.svdvals(a), [Arg((3, 5))]),
    Case("svd_values", lambda T, F, a: T.linalg.svd(a).S, [Arg((4, 3))]),
    Case("svd_abs_u_tall", lambda T, F, a: T.linalg.svd(a, full_matrices=False).U.abs(),
         [Arg((5, 3))]),
    Case("svd_abs_vh_wide", lambda T, F, a: T.linalg.svd(a, full_matrices=False).Vh.abs(),
         [Arg((2, 3, 5))]),
    Case("svd_abs_u_wide", lambda T, F, a: T.linalg.svd(a, full_matrices=False)[0].abs(),
         [Arg((3, 5))]),
    Case("svd_abs_vh_square", lambda T, F, a: T.linalg.svd(a)[2].abs(), [Arg((3, 3))]),
    Case("svd_full_first_columns", lambda T, F, a: T.linalg.svd(a)[0][..., :3].abs(),
         [Arg((5, 3))]),
    Case("svd_reconstructed_tall", _reconstructed, [Arg((2, 5, 3))]),
    Case("svd_reconstructed_wide_full",
         lambda T, F, a: _reconstructed(T, F, a, full=True), [Arg((3, 4))]),
    Case("svd_top_level_v", lambda T, F, a: T.svd(a).V.abs(), [Arg((4, 3))]),
    Case("svd_method_some_false", lambda T, F, a: a.svd(some=False)[1], [Arg((4, 3))]),
    Case("pinv_tall", lambda T, F, a: T.linalg.pinv(a), [Arg((2, 5, 3))]),
    Case("pinv_wide", lambda T, F, a: T.linalg.pinv(a), [Arg((3, 5))]),
    Case("pinv_square", lambda T, F, a: T.linalg.pinv(a), [Arg((3, 3))]),
    Case("pinv_hermitian", lambda T, F, a: T.linalg.pinv(symmetric(T, a), hermitian=True),
         [Arg((3, 3))]),
    Case("pinverse", lambda T, F, a: T.pinverse(a), [Arg((4, 3))]),
    Case("pinverse_method", lambda T, F, a: a.pinverse(), [Arg((3, 4))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, rtol=1e-3, atol=1e-4,
    # the deprecated torch.cholesky is the same node as linalg.cholesky's there
    name_differs=())


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


@pytest.fixture(autouse=True)
def _quiet_deprecations():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="torch.cholesky is deprecated")
        yield


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_factors_reconstruct_the_input_in_its_dtype(dtype, device):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 4, 3)).astype(dtype)
    t = mt.tensor(a, device=device)
    tol = 1e-5 if dtype == "float32" else 1e-12
    q, r = mt.linalg.qr(t)
    u, s, vh = mt.linalg.svd(t, full_matrices=False)
    sq = mt.tensor((a[..., :3, :] @ a[..., :3, :].transpose(0, 2, 1) + np.eye(3)).astype(dtype),
                   device=device)
    lower = mt.linalg.cholesky(sq)
    w, v = mt.linalg.eigh(sq)
    for value in (q, r, u, s, vh, lower, w, v):
        assert str(value.dtype) == f"torch.{dtype}"
    np.testing.assert_allclose(q.matmul(r).cpu().numpy(), a, atol=tol * 10)
    np.testing.assert_allclose((u * s.unsqueeze(-2)).matmul(vh).cpu().numpy(), a, atol=tol * 10)
    np.testing.assert_allclose(lower.matmul(lower.mT).cpu().numpy(), sq.cpu().numpy(),
                               atol=tol * 10)
    np.testing.assert_allclose((v * w.unsqueeze(-2)).matmul(v.mT).cpu().numpy(),
                               sq.cpu().numpy(), atol=tol * 10)


def test_gradients_of_one_triangle_read_as_torch():
    """eigh and cholesky read one triangle of a non-symmetric input; PyTorch's gradient is
    the symmetric one, and so is ours."""
    torch = _torch()
    a = np.random.default_rng(0).standard_normal((3, 3)) + 4 * np.eye(3)
    for call in (lambda T, x: T.linalg.eigvalsh(x).sum() + T.linalg.eigh(x, UPLO="U")[1].abs()
                 .sum(), lambda T, x: (T.linalg.cholesky(x) * T.arange(9.0, dtype=x.dtype)
                                       .reshape(3, 3)).sum()):
        ours = mt.tensor(a, requires_grad=True)
        theirs = torch.tensor(a, requires_grad=True)
        call(mt, ours).backward()
        call(torch, theirs).backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-10)


def test_unused_factors_of_repeated_singular_values_give_finite_gradients():
    """The identity has one singular value n times: S's gradient alone is still defined."""
    torch = _torch()
    ours = mt.eye(3, dtype=mt.float64, requires_grad=True)
    theirs = torch.eye(3, dtype=torch.float64, requires_grad=True)
    mt.linalg.svd(ours).S.sum().backward()
    torch.linalg.svd(theirs).S.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy())
    mt.linalg.eigh(ours).eigenvalues.sum().backward()
    assert np.isfinite(ours.grad.numpy()).all()


def test_named_results_and_grad_fn_names():
    a = mt.randn(4, 3, requires_grad=True)
    q, r = result = mt.linalg.qr(a)
    assert type(result).__name__ == "linalg_qr" and result._fields == ("Q", "R")
    assert q.grad_fn.name() == r.grad_fn.name() == "LinalgQrBackward0"
    u, s, vh = result = mt.linalg.svd(a)
    assert result._fields == ("U", "S", "Vh") and (u.shape, s.shape, vh.shape) == (
        (4, 4), (3,), (3, 3))
    assert s.grad_fn.name() == "LinalgSvdBackward0"
    assert mt.svd(a)._fields == ("U", "S", "V") and mt.svd(a).V.grad_fn.name() == (
        "TransposeBackward0")
    sym = a.matmul(a.mT)
    assert mt.linalg.eigh(sym)._fields == ("eigenvalues", "eigenvectors")
    assert mt.linalg.eigvalsh(sym).grad_fn.name() == "LinalgEighBackward0"
    assert mt.linalg.cholesky_ex(sym + mt.eye(4))._fields == ("L", "info")
    assert mt.cholesky(sym + mt.eye(4)).grad_fn.name() == "CholeskyBackward0"
    assert mt.linalg.cholesky(sym + mt.eye(4)).grad_fn.name() == "LinalgCholeskyExBackward0"
    assert mt.linalg.pinv(a).grad_fn.name() == "LinalgPinvBackward0"


def test_svd_without_uv_gives_zero_matrices_as_torch():
    u, s, v = mt.svd(mt.ones(2, 4, 3), compute_uv=False)
    assert u.shape == (2, 4, 4) and v.shape == (2, 3, 3) and s.shape == (2, 3)
    assert u.abs().sum().item() == 0.0


def test_cholesky_ex_info_and_errors_as_torch():
    torch = _torch()
    # a zero leading minor (positive semi-definite) fails too
    data = np.stack([np.eye(3), np.diag([1.0, -1.0, 1.0]), -np.eye(3),
                     [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]])
    ours = mt.linalg.cholesky_ex(mt.tensor(data))
    theirs = torch.linalg.cholesky_ex(torch.tensor(data))
    assert ours.info.tolist() == theirs.info.tolist() == [0, 2, 1, 2]
    assert ours.info.dtype is mt.int32
    np.testing.assert_allclose(ours.L[0].numpy(), np.eye(3))
    with pytest.raises(mt.linalg.LinAlgError) as info:
        mt.linalg.cholesky(mt.tensor(data))
    assert str(info.value) == (
        "linalg.cholesky: (Batch element 1): The factorization could not be completed because "
        "the input is not positive-definite (the leading minor of order 2 is not "
        "positive-definite).")
    with pytest.raises(RuntimeError, match="^linalg.cholesky_ex: The factorization could not "
                                           "be completed .* order 1 is not"):
        mt.linalg.cholesky_ex(-mt.eye(2), check_errors=True)
    with pytest.raises(RuntimeError, match="^cholesky: The factorization"):
        mt.cholesky(-mt.eye(2))


@pytest.mark.parametrize("mode, message", [
    ("r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
          "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
          "linalg.qr."),
    ("complete", "The QR decomposition is not differentiable when mode='complete' and nrows > "
                 "ncols."),
])
def test_qr_backward_errors_as_torch(mode, message):
    a = mt.randn(4, 2, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        mt.linalg.qr(a, mode=mode).R.sum().backward()
    assert str(info.value) == message


@pytest.mark.parametrize("call, error, message, shape", [
    (mt.linalg.cholesky, RuntimeError, "linalg.cholesky: A must be batches of square matrices, "
     "but they are 3 by 4 matrices", (3, 4)),
    (mt.linalg.qr, RuntimeError, "linalg.qr: The input tensor A must have at least 2 "
     "dimensions.", (3,)),
    (lambda t: mt.linalg.qr(t, mode="x"), RuntimeError, "qr received unrecognized mode 'x' but "
     "expected one of 'reduced' (default), 'r', or 'complete'", (3, 3)),
    (mt.linalg.eigh, RuntimeError, "linalg.eigh: A must be batches of square matrices, but "
     "they are 2 by 3 matrices", (2, 3)),
    (lambda t: mt.linalg.eigvalsh(t, UPLO="X"), RuntimeError,
     "Expected UPLO argument to be 'L' or 'U', but got X", (2, 2)),
    (mt.linalg.svd, RuntimeError, "linalg.svd: The input tensor A must have at least 2 "
     "dimensions.", (3,)),
    (lambda t: mt.linalg.svdvals(t.long()), RuntimeError, "linalg.svd: Expected a floating "
     "point or complex tensor as input. Got Long", (2, 2)),
    (mt.linalg.pinv, RuntimeError, "linalg.pinv(Float{[3]}): expected a tensor with 2 or more "
     "dimensions of float, double, cfloat or cdouble types", (3,)),
])
def test_errors_as_torch_on_cpu_and_meta(call, error, message, shape):
    torch = _torch()
    check_same_error_on_cpu_and_meta(call, error, message, shape)
    name = getattr(call, "__name__", "")
    if name in ("cholesky", "qr", "eigh", "svd", "pinv"):
        with pytest.raises(RuntimeError) as info:
            getattr(torch.linalg, name)(torch.ones(*shape))
        assert str(info.value) == message


def test_huge_meta_decompositions_cost_nothing():
    a = mt.empty(2**20, 2**10, 64, 32, device="meta", requires_grad=True)
    u, s, vh = mt.linalg.svd(a, full_matrices=False)
    q, r = mt.linalg.qr(a)
    assert (u.shape, s.shape, vh.shape) == (a.shape, (2**20, 2**10, 32), (2**20, 2**10, 32, 32))
    assert (q.shape, r.shape) == (a.shape, (2**20, 2**10, 32, 32))
    (u.sum() + s.sum() + r.sum() + mt.linalg.pinv(a).sum()).backward()
    assert a.grad.shape == a.shape and a.grad.is_meta
