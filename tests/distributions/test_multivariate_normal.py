"""MultivariateNormal (each of its three parameterisations) and LowRankMultivariateNormal:
log_prob, entropy, moments, the derived matrices and the four KL pairs three ways (float64
gradcheck, float32 values and gradients against PyTorch, meta shapes); rsample's gradients
with the noise fixed and through the mean of many draws; sample mean and covariance;
reprs, constraints, expand and PyTorch's validation errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import distributions as dist
from tests.devices import tensor_device
from tests.distributions.helpers import D
from tests.distributions.helpers import reseeded as _reseeded
from tests.ops.harness import Arg, Case, check_gradients, check_meta, params, three_way_tests

N = 3  # the event size


def _cov(T, a):
    """A well-conditioned positive-definite matrix (batch) from any square ``a``."""
    return a @ a.mT + N * T.eye(N, dtype=a.dtype, device=a.device)


def _tril(T, a, d):
    """A Cholesky factor: ``a``'s strict lower triangle over the positive diagonal ``d``."""
    return a.tril(-1) + T.diag_embed(d)


def _mvn(T, loc, a, kind="covariance_matrix"):
    return D(T).MultivariateNormal(loc, **{kind: _cov(T, a)})


def _lowrank(T, loc, w, d):
    return D(T).LowRankMultivariateNormal(loc, w, d)


def _statistics(d):
    """entropy, mean and variance in one tensor of ``batch_shape + event_shape``."""
    return d.entropy().unsqueeze(-1) + d.mean + d.variance


def _matrices(d):
    return d.covariance_matrix + d.precision_matrix + d.scale_tril


LOC, MATRICES, VALUE = Arg((4, 1, N)), Arg((2, N, N)), Arg((5, 4, 2, N))
FACTOR, DIAG = Arg((2, N, 2)), Arg((N,), "positive")

CASES = [
    Case("mvn_covariance_log_prob", lambda T, F, m, a, v: _mvn(T, m, a).log_prob(v),
         [LOC, MATRICES, VALUE]),
    Case("mvn_precision_log_prob", lambda T, F, m, a, v: _mvn(T, m, a, "precision_matrix")
         .log_prob(v), [LOC, MATRICES, VALUE]),
    Case("mvn_scale_tril_log_prob", lambda T, F, m, a, d, v: D(T).MultivariateNormal(
        m, scale_tril=_tril(T, a, d)).log_prob(v),
        [Arg((N,)), MATRICES, Arg((2, N), "positive"), Arg((2, N))]),
    Case("mvn_statistics", lambda T, F, m, a: _statistics(_mvn(T, m, a)), [LOC, MATRICES]),
    Case("mvn_unbatched_statistics", lambda T, F, m, a: _statistics(_mvn(T, m, a)),
         [Arg((N,)), Arg((N, N))]),
    Case("mvn_derived_matrices", lambda T, F, m, a: _matrices(_mvn(T, m, a, "precision_matrix"))
         + _matrices(_mvn(T, m, a)), [Arg((4, 1, N), grad=False), MATRICES]),
    Case("lowrank_log_prob", lambda T, F, m, w, d, v: _lowrank(T, m, w, d).log_prob(v),
         [LOC, FACTOR, DIAG, VALUE]),
    Case("lowrank_statistics", lambda T, F, m, w, d: _statistics(_lowrank(T, m, w, d)),
         [LOC, FACTOR, DIAG]),
    Case("lowrank_derived_matrices", lambda T, F, m, w, d: _matrices(_lowrank(T, m, w, d)),
         [Arg((4, 1, N), grad=False), FACTOR, DIAG]),
    Case("kl_mvn_mvn", lambda T, F, m1, a1, m2, a2: D(T).kl_divergence(
        _mvn(T, m1, a1), _mvn(T, m2, a2, "precision_matrix")),
        [LOC, MATRICES, Arg((N,)), Arg((N, N))]),
    Case("kl_lowrank_lowrank", lambda T, F, m1, w1, d1, m2, w2, d2: D(T).kl_divergence(
        _lowrank(T, m1, w1, d1), _lowrank(T, m2, w2, d2)),
        [LOC, FACTOR, DIAG, Arg((N,)), Arg((N, 1)), Arg((4, 1, N), "positive")]),
    Case("kl_mvn_lowrank", lambda T, F, m1, a1, m2, w2, d2: D(T).kl_divergence(
        _mvn(T, m1, a1), _lowrank(T, m2, w2, d2)), [LOC, MATRICES, Arg((N,)), FACTOR, DIAG]),
    Case("kl_lowrank_mvn", lambda T, F, m1, w1, d1, m2, a2: D(T).kl_divergence(
        _lowrank(T, m1, w1, d1), _mvn(T, m2, a2)), [LOC, FACTOR, DIAG, Arg((N,)), MATRICES]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


RSAMPLE_CASES = [
    Case("mvn_scale_tril", _reseeded(lambda T, m, a, d: D(T).MultivariateNormal(
        m, scale_tril=_tril(T, a, d))), [Arg((2, N)), Arg((N, N)), Arg((N,), "positive")]),
    Case("mvn_covariance", _reseeded(lambda T, m, a: _mvn(T, m, a)), [Arg((N,)), MATRICES]),
    Case("mvn_precision", _reseeded(lambda T, m, a: _mvn(T, m, a, "precision_matrix")),
         [Arg((N,)), MATRICES]),
    Case("lowrank", _reseeded(_lowrank), [LOC, FACTOR, DIAG]),
]


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_gradcheck(case, device):
    check_gradients(case, device)


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_meta_shapes(case):
    check_meta(case)


K = 50_000


def test_rsample_expectation_gradient_is_the_exact_one(device):
    """``E|x|² = |loc|² + trace(Σ)``: the mean over ``K`` draws of its gradient in
    ``loc``, ``cov_factor`` and ``cov_diag`` is ``2 loc``, ``2 W`` and ``1`` within 6
    standard errors (each draw's gradient is exact: the noise only scales)."""
    loc = mt.tensor([0.5, -1.0, 2.0], dtype=mt.float64, device=device)
    w = mt.tensor([[1.0, 0.2], [-0.5, 0.3], [0.1, 0.8]], dtype=mt.float64, device=device)
    diag = mt.tensor([0.5, 1.5, 2.0], dtype=mt.float64, device=device)
    leaves = [p.expand((K,) + p.shape).clone().requires_grad_() for p in (loc, w, diag)]
    mt.manual_seed(3)
    dist.LowRankMultivariateNormal(*leaves).rsample().pow(2).sum().backward()
    for leaf, exact in zip(leaves, (2 * loc, 2 * w, mt.ones_like(diag))):
        grads = leaf.grad.cpu().numpy()
        mean, error = grads.mean(0), grads.std(0) / np.sqrt(K)
        np.testing.assert_array_less(np.abs(mean - exact.cpu().numpy()), 6 * error + 1e-12)
        np.testing.assert_array_less(error, 0.05)  # the check has power


def _families(device):
    loc = mt.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], device=device)
    cov = mt.tensor([[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]], device=device)
    w = mt.tensor([[1.0, 0.0], [0.5, -0.7], [0.0, 0.4]], device=device)
    diag = mt.tensor([0.3, 0.6, 0.2], device=device)
    return {
        "covariance": dist.MultivariateNormal(loc, covariance_matrix=cov),
        "precision": dist.MultivariateNormal(loc, precision_matrix=mt.linalg.inv(cov)),
        "scale_tril": dist.MultivariateNormal(loc, scale_tril=mt.linalg.cholesky(cov)),
        "lowrank": dist.LowRankMultivariateNormal(loc, w, diag),
    }


S = 100_000


@pytest.mark.parametrize("name", ["covariance", "precision", "scale_tril", "lowrank"])
def test_sample_mean_and_covariance_are_the_exact_ones(name, device):
    """The sample mean within 6 standard errors of ``loc``, each sample covariance within
    6 standard errors of ``Σ_ij`` (whose variance for a Gaussian is
    ``(Σ_ii Σ_jj + Σ_ij²) / S``)."""
    d = _families(device)[name]
    mt.manual_seed(4)
    samples = d.sample((S,))
    assert samples.shape == (S, 2, N) and samples.device == tensor_device(device)
    assert samples.dtype is mt.float32 and not samples.requires_grad
    values = samples.cpu().numpy().astype(np.float64)
    cov = d.covariance_matrix.cpu().numpy().astype(np.float64)
    variance = np.diagonal(cov, axis1=-2, axis2=-1)
    np.testing.assert_array_less(np.abs(values.mean(0) - d.loc.cpu().numpy()),
                                 6 * np.sqrt(variance / S))
    centred = values - values.mean(0)
    sample_cov = np.einsum("sbi,sbj->bij", centred, centred) / S
    error = np.sqrt((variance[..., :, None] * variance[..., None, :] + cov ** 2) / S)
    np.testing.assert_array_less(np.abs(sample_cov - cov), 6 * error)


def test_the_parameterisations_agree(device):
    families = _families(device)
    value = mt.tensor([[0.3, -1.0, 2.0]], device=device)
    reference = families["covariance"].log_prob(value).cpu().numpy()
    for name in ("precision", "scale_tril"):
        np.testing.assert_allclose(families[name].log_prob(value).cpu().numpy(), reference,
                                   rtol=1e-5)


def test_the_families_run_on_meta():
    loc, matrix = mt.empty(4, 1, 3, device="meta"), mt.empty(2, 3, 3, device="meta")
    for kind in ("covariance_matrix", "precision_matrix", "scale_tril"):
        d = dist.MultivariateNormal(loc, **{kind: matrix})
        assert d.batch_shape == (4, 2) and d.rsample((5,)).shape == (5, 4, 2, 3)
        assert d.log_prob(mt.empty(5, 1, 2, 3, device="meta")).shape == (5, 4, 2)
        assert d.entropy().is_meta and _matrices(d).shape == (4, 2, 3, 3)
    d = dist.LowRankMultivariateNormal(loc, mt.empty(2, 3, 2, device="meta"),
                                       mt.empty(3, device="meta"))
    assert d.sample((5,)).is_meta and d.sample((5,)).shape == (5, 4, 2, 3)
    assert d.log_prob(mt.empty(3, device="meta")).shape == (4, 2)
    assert _matrices(d).shape == (4, 2, 3, 3) and _statistics(d).shape == (4, 2, 3)
    assert dist.kl_divergence(d, dist.MultivariateNormal(loc, matrix)).shape == (4, 2)


REPRS = [
    lambda T: D(T).MultivariateNormal(T.zeros(3), T.eye(3)),
    lambda T: D(T).MultivariateNormal(T.zeros(2, 3), precision_matrix=T.eye(3)),
    lambda T: D(T).MultivariateNormal(T.zeros(3), scale_tril=T.eye(3).expand(2, 3, 3)),
    lambda T: D(T).LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(3)),
    lambda T: D(T).LowRankMultivariateNormal(T.zeros(2, 1, 3), T.ones(4, 3, 2), T.ones(3)),
]


@pytest.mark.parametrize("build", REPRS)
def test_repr_shapes_support_and_constraints_are_torchs(build):
    ours, theirs = build(mt), build(pytest.importorskip("torch"))
    assert repr(ours) == repr(theirs)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert repr(ours.support) == repr(theirs.support)
    assert ours.has_rsample == theirs.has_rsample
    assert {k: repr(v) for k, v in ours.arg_constraints.items()} == \
        {k: repr(v) for k, v in theirs.arg_constraints.items()}
    for ours_c, theirs_c in zip(ours.arg_constraints.values(), theirs.arg_constraints.values()):
        assert ours_c.event_dim == theirs_c.event_dim
    shape = (5,) + tuple(ours.batch_shape)
    expanded_ours, expanded_theirs = ours.expand(shape), theirs.expand(shape)
    assert repr(expanded_ours) == repr(expanded_theirs)
    assert tuple(expanded_ours.batch_shape) == tuple(expanded_theirs.batch_shape)
    assert tuple(expanded_ours.rsample((2,)).shape) == tuple(expanded_theirs.rsample((2,)).shape)
    for name in ("mean", "variance", "covariance_matrix", "precision_matrix", "scale_tril"):
        np.testing.assert_allclose(getattr(expanded_ours, name).numpy(),
                                   getattr(expanded_theirs, name).numpy(), rtol=1e-6)
    np.testing.assert_allclose(expanded_ours.entropy().numpy(),
                               expanded_theirs.entropy().numpy(), rtol=1e-6)


def _pd(T):
    return T.tensor([[2.0, 0.5], [0.5, 1.0]])


ERRORS = [
    lambda T: D(T).MultivariateNormal(T.tensor(0.0), T.eye(2)),
    lambda T: D(T).MultivariateNormal(T.zeros(2)),
    lambda T: D(T).MultivariateNormal(T.zeros(2), T.eye(2), scale_tril=T.eye(2)),
    lambda T: D(T).MultivariateNormal(T.zeros(2), T.ones(2)),
    lambda T: D(T).MultivariateNormal(T.zeros(2), precision_matrix=T.ones(2)),
    lambda T: D(T).MultivariateNormal(T.zeros(2), scale_tril=T.ones(2)),
    lambda T: D(T).MultivariateNormal(T.zeros(2), T.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda T: D(T).MultivariateNormal(T.zeros(2), T.tensor([[1.0, 0.5], [0.0, 1.0]])),
    lambda T: D(T).MultivariateNormal(T.zeros(2), precision_matrix=-_pd(T)),
    lambda T: D(T).MultivariateNormal(T.zeros(2), scale_tril=T.ones(2, 2)),
    lambda T: D(T).MultivariateNormal(T.zeros(2), scale_tril=-T.eye(2)),
    lambda T: D(T).MultivariateNormal(T.tensor([0.0, float("nan")]), _pd(T)),
    lambda T: D(T).MultivariateNormal(T.zeros(2), _pd(T)).log_prob(T.zeros(3)),
    lambda T: D(T).MultivariateNormal(T.zeros(2), _pd(T).expand(3, 2, 2)).log_prob(
        T.zeros(2, 2)),
    lambda T: D(T).MultivariateNormal(T.zeros(2), _pd(T)).log_prob(T.tensor([0.0, float("nan")])),
    lambda T: D(T).LowRankMultivariateNormal(T.tensor(0.0), T.ones(1, 1), T.ones(1)),
    lambda T: D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(2), T.ones(2)),
    lambda T: D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(3, 1), T.ones(2)),
    lambda T: D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(3)),
    lambda T: D(T).LowRankMultivariateNormal(T.zeros(2, 2), T.ones(3, 2, 1), T.ones(2)),
    lambda T: D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.tensor([1.0, 0.0])),
    lambda T: D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1), T.ones(2)).log_prob(
        T.zeros(3)),
    lambda T: D(T).kl_divergence(D(T).MultivariateNormal(T.zeros(2), _pd(T)),
                                 D(T).MultivariateNormal(T.zeros(3), T.eye(3))),
    lambda T: D(T).kl_divergence(D(T).MultivariateNormal(T.zeros(2), _pd(T)),
                                 D(T).LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1),
                                                                T.ones(3))),
    lambda T: D(T).kl_divergence(D(T).LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1),
                                                                T.ones(3)),
                                 D(T).MultivariateNormal(T.zeros(2), _pd(T))),
    lambda T: D(T).kl_divergence(D(T).LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1),
                                                                T.ones(3)),
                                 D(T).LowRankMultivariateNormal(T.zeros(2), T.ones(2, 1),
                                                                T.ones(2))),
    lambda T: D(T).kl_divergence(D(T).MultivariateNormal(T.zeros(2), _pd(T)),
                                 D(T).Normal(0.0, 1.0)),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_torchs_type_and_text(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(mt)
    if isinstance(theirs.value, NotImplementedError):
        return
    assert str(ours.value) == str(theirs.value)


def test_an_indefinite_matrix_without_validation_fails_in_the_cholesky():
    matrix = mt.tensor([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(mt.linalg.LinAlgError):
        dist.MultivariateNormal(mt.zeros(2), matrix, validate_args=False)
    with pytest.raises(mt.linalg.LinAlgError):
        dist.MultivariateNormal(mt.zeros(2), precision_matrix=matrix, validate_args=False)


@pytest.mark.parametrize("name", ["square", "symmetric", "positive_semidefinite",
                                  "positive_definite", "lower_triangular", "lower_cholesky",
                                  "corr_cholesky"])
def test_matrix_constraints_are_torchs(name):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 3, 3))
    a[0] = a[0] @ a[0].T + np.eye(3)             # positive-definite
    a[1] = a[1] + a[1].T                         # symmetric, indefinite
    a[2] = np.diag([1.0, 0.0, 2.0])              # semidefinite, not definite
    a[3] = np.tril(a[3]) + 3 * np.eye(3)         # a Cholesky factor
    a[4] = np.linalg.cholesky(np.array([[1, 0.5, 0.2], [0.5, 1, 0.1], [0.2, 0.1, 1]]))
    a[5] = np.tril(a[5]) - 3 * np.eye(3)         # lower, negative diagonal
    ours, theirs = getattr(dist.constraints, name), getattr(torch.distributions.constraints, name)
    assert repr(ours) == repr(theirs) and ours.event_dim == theirs.event_dim
    for rows in (a, a[:1], a[2:3], a[3:5]):    # every row alike, and mixed
        assert ours.check(mt.tensor(rows)).tolist() == theirs.check(torch.tensor(rows)).tolist()
