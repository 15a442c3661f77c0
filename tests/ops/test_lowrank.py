"""torch.svd_lowrank and torch.pca_lowrank: the random sketch differs from PyTorch's, so
values are compared through what does not depend on it: singular values and
reconstructions of matrices whose rank is at most q (there the sketch spans the range
exactly), their gradients, and the shapes, dtypes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests


def _rebuilt(U, S, V):
    """``U diag(S) V^T``: independent of the signs and rotations the sketch picks."""
    return (U * S.unsqueeze(-2)) @ V.mT


CASES = [
    Case("svd_lowrank_singular_values", lambda T, F, a: T.svd_lowrank(a, q=5)[1],
         [Arg((8, 5))]),
    Case("svd_lowrank_rebuilt", lambda T, F, a: _rebuilt(*T.svd_lowrank(a, q=5)),
         [Arg((8, 5))]),
    Case("svd_lowrank_wide", lambda T, F, a: _rebuilt(*T.svd_lowrank(a, q=5, niter=1)),
         [Arg((5, 8))]),
    Case("svd_lowrank_batched", lambda T, F, a: T.svd_lowrank(a, q=4)[1],
         [Arg((2, 7, 4))]),
    Case("svd_lowrank_no_power_iteration", lambda T, F, a: T.svd_lowrank(a, 5, 0)[1],
         [Arg((6, 5))]),
    # a matrix of rank 2 sketched with q = 2: only its own singular values are smooth
    Case("svd_lowrank_exact_rank", lambda T, F, b, c: T.svd_lowrank(b @ c, q=2)[1],
         [Arg((8, 2)), Arg((2, 6))]),
    Case("svd_lowrank_exact_rank_rebuilt",
         lambda T, F, b, c: _rebuilt(*T.svd_lowrank(b @ c, q=2)), [Arg((8, 2)), Arg((2, 6))]),
    Case("svd_lowrank_minus_mean", lambda T, F, a, m: _rebuilt(*T.svd_lowrank(a, 5, M=m)),
         [Arg((8, 5)), Arg((5,))]),
    Case("pca_lowrank", lambda T, F, a: T.pca_lowrank(a, q=5)[1], [Arg((8, 5))]),
    Case("pca_lowrank_rebuilt", lambda T, F, a: _rebuilt(*T.pca_lowrank(a, 4)),
         [Arg((9, 4))]),
    Case("pca_lowrank_uncentered", lambda T, F, a: T.pca_lowrank(a, 5, False)[1],
         [Arg((8, 5))]),
    Case("pca_lowrank_batched_wide", lambda T, F, a: T.pca_lowrank(a, q=3, niter=1)[1],
         [Arg((2, 3, 6))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, rtol=1e-3, atol=1e-4)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _low_rank(shape, rank, seed=0):
    rng = np.random.default_rng(seed)
    *batch, m, n = shape
    return (rng.standard_normal((*batch, m, rank)) @ rng.standard_normal((*batch, rank, n))
            ).astype(np.float32)


@pytest.mark.parametrize("shape, rank, q", [((20, 12), 3, 6), ((12, 20), 3, 6),
                                            ((3, 15, 10), 4, 4), ((30, 30), 1, 6)])
def test_exact_low_rank_against_torch(shape, rank, q, device):
    torch = _torch()
    data = _low_rank(shape, rank)
    U, S, V = mt.svd_lowrank(mt.tensor(data, device=device), q=q)
    tU, tS, tV = torch.svd_lowrank(torch.tensor(data), q=q)
    for ours, theirs in ((U, tU), (S, tS), (V, tV)):
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert ours.device == tensor_device(device)
    scale = np.abs(data).max()
    np.testing.assert_allclose(_rebuilt(U, S, V).cpu().numpy(), data, atol=1e-4 * scale)
    np.testing.assert_allclose(S[..., :rank].cpu().numpy(), tS[..., :rank].numpy(), rtol=1e-4)
    # the columns are orthonormal, as PyTorch's
    eye = np.eye(U.shape[-1], dtype=np.float32)
    np.testing.assert_allclose((U.mT @ U).cpu().numpy(), np.broadcast_to(eye, (
        *shape[:-2], *eye.shape)), atol=1e-4)


def test_pca_of_low_rank_data_against_torch(device):
    torch = _torch()
    data = _low_rank((40, 10), 2) + 3.0  # an offset the centring removes
    U, S, V = mt.pca_lowrank(mt.tensor(data, device=device))
    tU, tS, tV = torch.pca_lowrank(torch.tensor(data))
    assert tuple(U.shape) == tuple(tU.shape) == (40, 6) and tuple(V.shape) == (10, 6)
    centred = data - data.mean(axis=0)
    np.testing.assert_allclose(_rebuilt(U, S, V).cpu().numpy(), centred, atol=1e-3)
    np.testing.assert_allclose(S[:2].cpu().numpy(), tS[:2].numpy(), rtol=1e-4)


def test_mean_matrix_is_subtracted_as_torch(device):
    torch = _torch()
    data, mean = _low_rank((10, 8), 3), np.arange(8, dtype=np.float32)
    U, S, V = mt.svd_lowrank(mt.tensor(data + mean, device=device), q=4,
                             M=mt.tensor(mean, device=device))
    tS = torch.svd_lowrank(torch.tensor(data + mean), q=4, M=torch.tensor(mean))[1]
    np.testing.assert_allclose(_rebuilt(U, S, V).cpu().numpy(), data, atol=1e-4)
    np.testing.assert_allclose(S[:3].cpu().numpy(), tS[:3].numpy(), rtol=1e-4)


@pytest.mark.parametrize("shape, q", [((8, 5), 6), ((8, 5), 10), ((5, 8), 6), ((8, 5), 0),
                                      ((2, 5, 8), 7), ((8, 0), 6), ((0, 5), 0),
                                      ((8, 5), None)])
def test_shapes_and_dtypes_as_torch(shape, q, any_device):
    torch = _torch()
    for dtype in ("float32", "float64"):
        ours = mt.svd_lowrank(mt.zeros(*shape, dtype=getattr(mt, dtype), device=any_device)
                              + 1, q=q)
        theirs = torch.svd_lowrank(torch.ones(*shape, dtype=getattr(torch, dtype)), q=q)
        for o, t in zip(ours, theirs):
            assert tuple(o.shape) == tuple(t.shape) and str(o.dtype) == str(t.dtype)


def test_pca_default_q_and_meta(any_device):
    U, S, V = mt.pca_lowrank(mt.ones(2, 4, 9, device=any_device))
    assert (tuple(U.shape), tuple(S.shape), tuple(V.shape)) == ((2, 4, 4), (2, 4), (2, 9, 4))


def test_same_seed_same_result():
    a = mt.tensor(_low_rank((12, 9), 5))
    mt.manual_seed(3)
    first = mt.svd_lowrank(a, q=5)[0]
    mt.manual_seed(3)
    np.testing.assert_array_equal(first.numpy(), mt.svd_lowrank(a, q=5)[0].numpy())


def test_returns_a_tuple_of_three():
    out = mt.svd_lowrank(mt.ones(4, 3))
    assert type(out) is tuple and len(out) == 3


@pytest.mark.parametrize("q, niter", [(6, 2), (-1, 2), (2, -1)])
def test_pca_argument_errors_are_pytorchs(q, niter):
    torch = _torch()
    with pytest.raises(ValueError) as theirs:
        torch.pca_lowrank(torch.ones(8, 5), q=q, niter=niter)
    with pytest.raises(ValueError) as ours:
        mt.pca_lowrank(mt.ones(8, 5), q=q, niter=niter)
    assert str(ours.value) == str(theirs.value)


def test_svd_lowrank_negative_q_is_a_runtime_error():
    torch = _torch()
    with pytest.raises(RuntimeError):
        torch.svd_lowrank(torch.ones(8, 5), q=-1)
    with pytest.raises(RuntimeError, match="non-negative q, got -1"):
        mt.svd_lowrank(mt.ones(8, 5), q=-1)


@pytest.mark.parametrize("name", ["svd_lowrank", "pca_lowrank"])
def test_integer_input_is_a_runtime_error(name):
    torch = _torch()
    with pytest.raises(RuntimeError):
        getattr(torch, name)(torch.ones(8, 5, dtype=torch.int32))
    with pytest.raises(RuntimeError, match="floating-point A, got torch.int32"):
        getattr(mt, name)(mt.ones(8, 5, dtype=mt.int32))


@pytest.mark.parametrize("name", ["svd_lowrank", "pca_lowrank"])
def test_vector_input_is_a_value_error(name):
    torch = _torch()
    with pytest.raises(ValueError):
        getattr(torch, name)(torch.ones(5))
    with pytest.raises(ValueError, match=r"at least 2 dimensions, got shape \(5,\)"):
        getattr(mt, name)(mt.ones(5))


@pytest.mark.parametrize("niter, tolerance", [(0, 0.3), (2, 2e-3), (4, 1e-5)])
def test_power_iterations_sharpen_a_decaying_spectrum_as_torch(niter, tolerance):
    """Full rank, singular values ``0.8 ** i``: the sketch alone is rough, each power
    iteration sharpens the leading values (PyTorch's errors: 0.16, 3e-4, 1e-6)."""
    torch = _torch()
    rng = np.random.default_rng(0)
    u = np.linalg.qr(rng.standard_normal((60, 30)))[0]
    v = np.linalg.qr(rng.standard_normal((30, 30)))[0]
    exact = 0.8 ** np.arange(30)
    data = ((u * exact) @ v.T).astype(np.float32)
    for seed in range(3):
        mt.manual_seed(seed)
        torch.manual_seed(seed)
        for lib in (mt, torch):
            S = lib.svd_lowrank(lib.tensor(data), q=6, niter=niter)[1].numpy()
            assert np.abs(S[:3] - exact[:3]).max() < tolerance, lib.__name__
    if niter == 0:  # without iterations the error is visible
        mt.manual_seed(0)
        S = mt.svd_lowrank(mt.tensor(data), q=6, niter=0)[1].numpy()
        assert np.abs(S[:3] - exact[:3]).max() > 1e-3


def test_second_order_gradient_against_torch():
    """Through linalg.qr and linalg.svd's second-order formulas (create_graph=True)."""
    torch = _torch()
    data = np.random.default_rng(0).standard_normal((8, 5))
    grads = []
    for lib in (mt, torch):
        a = lib.tensor(data, requires_grad=True)
        S = lib.svd_lowrank(a, q=5)[1]
        g, = lib.autograd.grad((S ** 2).sum() + S[0] ** 3, a, create_graph=True)
        (g * g).sum().backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-7, atol=1e-9)
