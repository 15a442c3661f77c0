"""GeneralizedPareto, OneHotCategoricalStraightThrough, LKJCholesky and Wishart: three
ways (float64 gradcheck, float32 values and gradients against PyTorch, meta shapes) for
their densities, CDFs and moments; sampling statistics of seeded draws against exact
moments (6 standard errors: a chance failure has probability below 1e-8); reprs, shapes
and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import distributions as dist
from tests.devices import tensor_device
from tests.distributions.helpers import D, errors_of_both, reseeded
from tests.ops.harness import Arg, Case, check_gradients, check_meta, three_way_tests

B = (2, 3)


def _pareto(T, loc, scale, c):
    """Concentrations in (-0.5, 0.5), both signs: a bounded support for c < 0."""
    return D(T).GeneralizedPareto(loc, scale, 0.5 * c.tanh())


def _inside(T, loc, scale, u):
    """A value of the support: loc + scale u, u in [0.5, 2) (the upper bound of a
    bounded support is at least loc + 2 scale)."""
    return loc + scale * u


def _pd(T, a):
    """A well-conditioned positive-definite matrix from any square ``a``."""
    return a @ a.mT + T.eye(a.shape[-1], dtype=a.dtype, device=a.device)


def _wishart(T, df, a, kind="covariance_matrix"):
    """df in (2, ...) for 3 x 3 matrices (above p - 1 = 2, below p too: singular draws
    are possible but no moment needs them)."""
    matrix = _pd(T, a)
    if kind == "scale_tril":
        matrix = T.linalg.cholesky(matrix)
    return D(T).Wishart(3.0 + df, **{kind: matrix})


def _corr(T, x):
    return T.distributions.transforms.CorrCholeskyTransform()(x)


CASES = [
    Case("pareto_log_prob", lambda T, F, loc, s, c, u: _pareto(T, loc, s, c).log_prob(
        _inside(T, loc, s, u)), [Arg(B), Arg(B, "positive"), Arg(B), Arg(B, "positive")]),
    Case("pareto_log_prob_exponential_limit", lambda T, F, loc, s, u: D(T).GeneralizedPareto(
        loc, s, 0.0).log_prob(_inside(T, loc, s, u)),
        [Arg(B), Arg(B, "positive"), Arg(B, "positive")]),
    Case("pareto_log_prob_uniform", lambda T, F, s, u: D(T).GeneralizedPareto(
        0.0, s, -1.0).log_prob(s * 0.4 * u), [Arg(B, "positive"), Arg(B, "positive")]),
    Case("pareto_cdf", lambda T, F, loc, s, c, u: _pareto(T, loc, s, c).cdf(
        _inside(T, loc, s, u)), [Arg(B), Arg(B, "positive"), Arg(B), Arg(B, "positive")]),
    Case("pareto_log_survival", lambda T, F, loc, s, c, u: _pareto(T, loc, s, c)
         .log_survival_function(_inside(T, loc, s, u)),
         [Arg(B), Arg(B, "positive"), Arg(B), Arg(B, "positive")]),
    Case("pareto_icdf", lambda T, F, loc, s, c, u: _pareto(T, loc, s, c).icdf(0.05 + 0.9 * u),
         [Arg(B), Arg(B, "positive"), Arg(B), Arg(B, "prob")]),
    Case("pareto_icdf_zero", lambda T, F, loc, s, u: D(T).GeneralizedPareto(loc, s, 0.0).icdf(
        0.05 + 0.9 * u), [Arg(B), Arg(B, "positive"), Arg(B, "prob")]),
    Case("pareto_moments", lambda T, F, loc, s, c: _pareto(T, loc, s, c).mean
         + _pareto(T, loc, s, c).variance + _pareto(T, loc, s, c).entropy()
         + _pareto(T, loc, s, c).mode, [Arg(B), Arg(B, "positive"), Arg(B)]),
    Case("pareto_entropy_broadcast", lambda T, F, s, c: D(T).GeneralizedPareto(
        T.zeros(3, 1, dtype=s.dtype, device=s.device), s, c).entropy(),
        [Arg((4,), "positive"), Arg(())]),
    Case("lkj_log_prob", lambda T, F, x, c: D(T).LKJCholesky(4, c).log_prob(_corr(T, x)),
         [Arg((2, 6)), Arg((2,), "positive")]),
    # (a number concentration becomes a CPU tensor, PyTorch's too: made on x's device)
    Case("lkj_log_prob_2x2_scalar", lambda T, F, x: D(T).LKJCholesky(
        2, T.full((), 1.5, dtype=x.dtype, device=x.device)).log_prob(_corr(T, x)),
        [Arg((5, 1))]),
    Case("lkj_log_prob_broadcast", lambda T, F, x, c: D(T).LKJCholesky(3, c).log_prob(
        _corr(T, x)), [Arg((4, 1, 3)), Arg((2,), "positive")]),
    Case("wishart_log_prob", lambda T, F, df, a, v: _wishart(T, df, a).log_prob(_pd(T, v)),
         [Arg((2,), "positive"), Arg((2, 3, 3)), Arg((2, 3, 3))], atol=1e-4),
    Case("wishart_log_prob_scale_tril", lambda T, F, df, a, v: _wishart(
        T, df, a, "scale_tril").log_prob(_pd(T, v)),
        [Arg((2,), "positive"), Arg((2, 3, 3)), Arg((4, 2, 3, 3))], atol=1e-4),
    Case("wishart_log_prob_precision", lambda T, F, df, a, v: _wishart(
        T, df, a, "precision_matrix").log_prob(_pd(T, v)),
        [Arg((2,), "positive"), Arg((3, 3)), Arg((2, 3, 3))], atol=1e-4),
    Case("wishart_entropy", lambda T, F, df, a: _wishart(T, df, a).entropy(),
         [Arg((2,), "positive"), Arg((2, 3, 3))], atol=1e-4),
    Case("wishart_moments", lambda T, F, df, a: _wishart(T, df + 2, a).mean
         + _wishart(T, df + 2, a).variance + _wishart(T, df + 2, a).mode,
         [Arg((2,), "positive"), Arg((2, 3, 3))]),
    Case("wishart_precision_matrix", lambda T, F, df, a: _wishart(T, df, a).precision_matrix,
         [Arg((2,), "positive", grad=False), Arg((2, 3, 3))]),
    Case("wishart_number_df", lambda T, F, a, v: D(T).Wishart(4.5, scale_tril=T.linalg.cholesky(
        _pd(T, a))).log_prob(_pd(T, v)), [Arg((2, 2)), Arg((3, 2, 2))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, rtol=2e-4, atol=2e-4)


# -- rsample gradients (the noise fixed by reseeding) -------------------------------------
# (df is not differentiated: a chi-squared draw of another df is another rejection path,
# so finite differences in df see jumps; the implicit gradient is tested with Gamma's)
RSAMPLE_CASES = [
    Case("pareto_rsample", reseeded(lambda T, loc, s, c: _pareto(T, loc, s, c)),
         [Arg(B), Arg(B, "positive"), Arg(B)]),
    Case("wishart_rsample", reseeded(lambda T, df, a: _wishart(T, df + 2, a)),
         [Arg((2,), "positive", grad=False), Arg((2, 3, 3))], atol=1e-4),
]


@pytest.mark.parametrize("case", RSAMPLE_CASES, ids=lambda c: c.id)
def test_rsample_gradcheck(case, device):
    check_gradients(case, device)


@pytest.mark.parametrize("case", RSAMPLE_CASES, ids=lambda c: c.id)
def test_rsample_meta_shapes(case):
    check_meta(case)


# -- sampling statistics ----------------------------------------------------------------
def _within_six_errors(samples: np.ndarray, mean: np.ndarray) -> None:
    n = samples.shape[0]
    error = np.sqrt(samples.var(0) / n)
    np.testing.assert_array_less(np.abs(samples.mean(0) - mean), 6 * error)


def test_pareto_values_at_the_edges_are_torchs():
    torch = _torch()
    # concentrations past 1/2 and 1 (no variance, no mean), exactly 0, and -1 (uniform) at
    # its upper end, where log1p is -inf under a power of 0 (float32: PyTorch 2.13's
    # log_prob and cdf compare the concentration with a float32 zero by isclose, which
    # refuses float64)
    concentration = [0.7, 1.2, 0.3, 0.0, -1.0, -1.0]
    value = [0.5, 2.0, 1.0, 0.0, 2.0, 0.5]
    for T in (mt, torch):
        d = T.distributions.GeneralizedPareto(T.zeros(6), 2.0, T.tensor(concentration))
        v = T.tensor(value)
        got = [d.mean, d.variance, d.entropy(), d.log_prob(v), d.cdf(v),
               d.icdf(T.full((6,), 0.3))]
        if T is mt:
            ours = got
    for o, t in zip(ours, got):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-6, equal_nan=True)


def test_pareto_samples_have_the_exact_mean_and_distribution(device):
    mt.manual_seed(0)
    d = dist.GeneralizedPareto(mt.tensor([0.5, -1.0, 0.0], device=device),
                               mt.tensor([2.0, 0.5, 1.0], device=device),
                               mt.tensor([0.2, -0.4, 0.0], device=device))
    samples = d.sample((100_000,))
    assert samples.shape == (100_000, 3) and samples.device == tensor_device(device)
    values = samples.cpu().numpy().astype(np.float64)
    _within_six_errors(values, d.mean.cpu().numpy())
    # the empirical CDF at the quartiles of the law: 1/4, 1/2, 3/4 within 6 errors each
    for q in (0.25, 0.5, 0.75):
        quantile = d.icdf(mt.full((3,), q, device=device)).cpu().numpy()
        np.testing.assert_array_less(np.abs((values <= quantile).mean(0) - q),
                                     6 * math.sqrt(q * (1 - q) / 100_000))
    assert bool(d.support.check(samples).all())


def test_wishart_sample_mean_is_df_times_sigma(device):
    mt.manual_seed(0)
    sigma = mt.tensor([[[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]],
                       [[1.0, 0.0, 0.0], [0.0, 3.0, 1.0], [0.0, 1.0, 1.0]]], device=device,
                      dtype=mt.float64)
    df = mt.tensor([4.0, 7.5], device=device, dtype=mt.float64)
    d = dist.Wishart(df, covariance_matrix=sigma)
    samples = d.sample((40_000,))
    assert samples.shape == (40_000, 2, 3, 3) and samples.device == tensor_device(device)
    assert bool(dist.constraints.positive_definite.check(samples).all())
    values = samples.cpu().numpy()
    expected = (df.view(2, 1, 1) * sigma).cpu().numpy()
    # the exact variance df (S_ij^2 + S_ii S_jj) gives the standard error of the mean
    error = np.sqrt(d.variance.cpu().numpy() / values.shape[0])
    np.testing.assert_array_less(np.abs(values.mean(0) - expected), 6 * error)
    np.testing.assert_allclose(d.mean.cpu().numpy(), expected)


def test_lkj_samples_are_correlation_factors_with_the_exact_spread(device):
    mt.manual_seed(0)
    concentration = mt.tensor([0.5, 1.0, 4.0], device=device, dtype=mt.float64)
    d = dist.LKJCholesky(4, concentration)
    samples = d.sample((40_000,))
    assert samples.shape == (40_000, 3, 4, 4) and samples.device == tensor_device(device)
    assert samples.dtype is mt.float64
    assert bool(dist.constraints.corr_cholesky.check(samples).all())
    correlations = (samples @ samples.mT).cpu().numpy()
    # every off-diagonal r of an LKJ(eta) correlation matrix has (r + 1) / 2 ~
    # Beta(a, a), a = eta - 1 + dim / 2: E[r] = 0 and E[r^2] = 1 / (2a + 1)
    # (PyTorch 2.13's sampler fails this: its rows below the second are too concentrated)
    a = concentration.cpu().numpy() - 1 + 2
    rows, cols = np.tril_indices(4, -1)
    squared = correlations[..., rows, cols] ** 2
    _within_six_errors(squared, np.broadcast_to((1 / (2 * a + 1))[:, None], squared.shape[1:]))
    _within_six_errors(correlations[..., rows, cols], 0.0)


def test_lkj_log_prob_on_its_samples_is_torchs():
    torch = pytest.importorskip("torch")
    samples = dist.LKJCholesky(5, mt.tensor([0.3, 2.0], dtype=mt.float64)).sample((10,))
    ours = dist.LKJCholesky(5, mt.tensor([0.3, 2.0], dtype=mt.float64)).log_prob(samples)
    theirs = torch.distributions.LKJCholesky(5, torch.tensor([0.3, 2.0], dtype=torch.float64)
                                             ).log_prob(torch.tensor(samples.numpy()))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)


def test_lkj_log_prob_is_a_normalised_density():
    # dim 2: L = [[1, 0], [r, sqrt(1 - r^2)]], the density of r is 1 integrated over (-1, 1)
    r = np.linspace(-1, 1, 200_001)[1:-1]
    values = np.zeros(r.shape + (2, 2))
    values[:, 0, 0], values[:, 1, 0], values[:, 1, 1] = 1, r, np.sqrt(1 - r ** 2)
    for eta in (0.7, 1.0, 3.0):
        density = dist.LKJCholesky(2, eta, validate_args=False).log_prob(
            mt.tensor(values, dtype=mt.float64)).exp().numpy()
        # the density of the Cholesky entry r (the map from r to L is one to one)
        assert abs(np.trapezoid(density, r) - 1) < 1e-3


def test_straight_through_samples_are_one_hot_with_the_gradient_of_probs(device):
    mt.manual_seed(0)
    logits = mt.tensor([[0.5, -1.0, 2.0], [0.0, 0.0, 0.0]], device=device, requires_grad=True)
    d = dist.OneHotCategoricalStraightThrough(logits=logits)
    assert d.has_rsample and isinstance(d, dist.OneHotCategorical)
    samples = d.rsample((50_000,))
    assert samples.grad_fn is not None and samples.device == tensor_device(device)
    values = samples.detach().cpu().numpy()
    assert set(np.unique(values)) == {0.0, 1.0} and (values.sum(-1) == 1).all()
    _within_six_errors(values, d.probs.detach().cpu().numpy())
    weights = mt.tensor([1.0, 2.0, -3.0], device=device)
    (samples * weights).sum().backward()
    # straight through: the gradient is that of the probabilities, once per draw
    probs = dist.OneHotCategorical(logits=logits).probs
    expected = mt.autograd.grad((probs * weights).sum() * 50_000, logits)[0]
    np.testing.assert_allclose(logits.grad.cpu().numpy(), expected.cpu().numpy(), rtol=1e-4)


def test_wishart_redraws_a_singular_sample_with_a_warning():
    # df just above p - 1: Bartlett's last diagonal entry is chi2(0.01), often below eps
    mt.manual_seed(0)
    with pytest.warns(UserWarning, match="Low df values detected"):
        d = dist.Wishart(2.01, covariance_matrix=mt.eye(3, dtype=mt.float64))
    with pytest.warns(UserWarning, match="Singular sample detected"):
        d.rsample((2000,), max_try_correction=0)
    # with redraws, the singular draws are fewer than without
    mt.manual_seed(0)
    with pytest.warns(UserWarning, match="Singular sample detected"):
        single = d.rsample((2000,), max_try_correction=0)
    mt.manual_seed(0)
    with pytest.warns(UserWarning, match="Singular sample detected"):
        redrawn = d.rsample((2000,), max_try_correction=10)
    check = dist.constraints.positive_definite.check
    assert int((~check(redrawn)).sum()) < int((~check(single)).sum())


def test_a_regular_wishart_sample_gives_no_warning():
    d = dist.Wishart(mt.tensor([5.0, 8.0]), covariance_matrix=mt.eye(2))
    assert d.rsample((3,)).shape == (3, 2, 2, 2)


def test_the_families_run_on_meta():
    meta = lambda *shape: mt.ones(*shape, device="meta")  # noqa: E731
    d = dist.Wishart(meta(2), covariance_matrix=meta(2, 3, 3))
    assert d.rsample((4,)).shape == (4, 2, 3, 3) and d.rsample().is_meta
    assert d.log_prob(meta(2, 3, 3)).shape == (2,) and d.entropy().shape == (2,)
    lkj = dist.LKJCholesky(3, meta(5))
    assert lkj.sample((2,)).shape == (2, 5, 3, 3) and lkj.log_prob(meta(5, 3, 3)).shape == (5,)
    pareto = dist.GeneralizedPareto(meta(3), meta(3), meta(3))
    assert pareto.rsample((2,)).shape == (2, 3) and pareto.cdf(meta(3)).is_meta


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


@pytest.mark.parametrize("build", [
    lambda T: D(T).GeneralizedPareto(T.tensor([0.0, 1.0]), 2.0, T.tensor([0.5, -0.5])),
    lambda T: D(T).GeneralizedPareto(0.0, 1.0, 0.1),
    lambda T: D(T).OneHotCategoricalStraightThrough(T.tensor([0.2, 0.8])),
    lambda T: D(T).LKJCholesky(3, T.tensor([0.5, 2.0])),
    lambda T: D(T).LKJCholesky(2),
    lambda T: D(T).Wishart(T.tensor([3.0, 4.0]), covariance_matrix=T.eye(2)),
    lambda T: D(T).Wishart(5.0, scale_tril=T.eye(3).expand(4, 3, 3)),
    lambda T: D(T).Wishart(T.full((2, 1), 4.0), precision_matrix=T.eye(3).expand(3, 3, 3)),
])
def test_reprs_shapes_and_flags_are_torchs(build):
    ours, theirs = build(mt), build(_torch())
    if type(theirs).__name__ == "Wishart":
        theirs = _WarningWishart(theirs)
    assert repr(ours) == repr(theirs)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    assert repr(ours.support) == repr(theirs.support)
    assert tuple(ours.sample((2,)).shape) == tuple(theirs.sample((2,)).shape)
    expanded_ours = ours.expand((5,) + tuple(ours.batch_shape))
    expanded_theirs = theirs.expand((5,) + tuple(theirs.batch_shape))
    assert tuple(expanded_ours.batch_shape) == tuple(expanded_theirs.batch_shape)
    assert tuple(expanded_ours.sample((2,)).shape) == tuple(expanded_theirs.sample((2,)).shape)
    if not isinstance(ours, dist.LKJCholesky):  # the one without moments
        np.testing.assert_allclose(expanded_ours.mean.numpy(), expanded_theirs.mean.numpy(),
                                   rtol=1e-6)


class _WarningWishart:
    """PyTorch's Wishart, whose ``sample`` warns "Singular sample detected." for regular
    draws (PyTorch 2.13 tests ``support.check(sample)`` without negating it): asserted
    here, so that the comparison runs with warnings as errors."""

    def __init__(self, wishart):
        self.wishart = wishart

    def __getattr__(self, name):
        return getattr(self.wishart, name)

    def __repr__(self):
        return repr(self.wishart)

    def sample(self, sample_shape=()):
        with pytest.warns(UserWarning, match="Singular sample detected"):
            return self.wishart.sample(sample_shape)

    def expand(self, batch_shape):
        return _WarningWishart(self.wishart.expand(batch_shape))


def test_expanded_wishart_and_lkj_keep_their_laws():
    w = dist.Wishart(mt.tensor([3.0, 4.0]), covariance_matrix=mt.eye(2) * 2)
    expanded = w.expand((3, 2))
    value = mt.eye(2) * 5
    np.testing.assert_allclose(expanded.log_prob(value).numpy(),
                               w.log_prob(value).expand(3, 2).numpy(), rtol=1e-6)
    assert expanded.covariance_matrix.shape == (3, 2, 2, 2)
    lkj = dist.LKJCholesky(3, mt.tensor([0.5, 2.0]))
    factor = dist.transforms.CorrCholeskyTransform()(mt.tensor([0.3, -0.2, 0.5]))
    np.testing.assert_allclose(lkj.expand((4, 2)).log_prob(factor).numpy(),
                               lkj.log_prob(factor).expand(4, 2).numpy(), rtol=1e-6)
    assert lkj.expand((4, 2)).sample().shape == (4, 2, 3, 3)


ERRORS = [
    lambda T: D(T).GeneralizedPareto(0.0, -1.0, 0.5),
    lambda T: D(T).GeneralizedPareto(0.0, 1.0, -0.5).log_prob(T.tensor(3.0)),
    lambda T: D(T).GeneralizedPareto(0.0, 1.0, 0.5).log_prob(T.tensor(-1.0)),
    lambda T: D(T).GeneralizedPareto(T.zeros(2), 1.0, 0.5).cdf(T.zeros(3)),
    lambda T: D(T).GeneralizedPareto("a", 1.0, 0.5),
    lambda T: D(T).OneHotCategoricalStraightThrough(T.tensor([0.2, -0.1])),
    lambda T: D(T).OneHotCategoricalStraightThrough(T.tensor([0.2, 0.8])).log_prob(
        T.tensor([1.0, 1.0])),
    lambda T: D(T).LKJCholesky(1, 1.0),
    lambda T: D(T).LKJCholesky(3, -1.0),
    lambda T: D(T).LKJCholesky(2, 1.0).log_prob(T.eye(2) * 2),
    lambda T: D(T).LKJCholesky(2, 1.0).log_prob(T.eye(3)),
    lambda T: D(T).Wishart(3.0),
    lambda T: D(T).Wishart(3.0, covariance_matrix=T.eye(2), scale_tril=T.eye(2)),
    lambda T: D(T).Wishart(3.0, covariance_matrix=T.ones(2)),
    lambda T: D(T).Wishart(1.0, covariance_matrix=T.eye(2)),
    lambda T: D(T).Wishart(T.tensor([3.0, 0.5]), covariance_matrix=T.eye(2)),
    lambda T: D(T).Wishart(3.0, covariance_matrix=-T.eye(2)),
    lambda T: D(T).Wishart(3.0, scale_tril=T.ones(2, 2)),
    lambda T: D(T).Wishart(3.0, covariance_matrix=T.eye(2)).log_prob(-T.eye(2)),
    lambda T: D(T).Wishart(3.0, covariance_matrix=T.eye(2)).log_prob(T.eye(3)),
    lambda T: D(T).Wishart(T.ones(3) * 3, covariance_matrix=T.eye(2).expand(2, 2, 2)),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_torchs_type_and_text(call):
    theirs, ours = errors_of_both(call)
    text = str(theirs)
    if "__torch_function__" in text or text.startswith("Attempting to broadcast"):
        return  # PyTorch's words name its own dispatch or broadcasting helper
    if "found invalid values" in text:
        # the values are printed after the first line, in each library's tensor format
        assert str(ours).split("\n")[0] == text.split("\n")[0]
        return
    assert str(ours) == text


def test_wishart_kl_is_torchs_per_matrix_and_differentiable():
    # the generic Bregman KL; PyTorch's batched one sums the df term over the batch, so
    # each entry is compared with PyTorch's KL of that entry alone
    torch = _torch()
    sigma = [[2.0, 0.5], [0.5, 1.0]]
    df_p, df_q = [3.0, 5.0, 2.5], [4.0, 5.0, 6.0]

    def kl(T, p_df, q_df, **grad):
        s = T.tensor(sigma, dtype=T.float64, **grad)
        p = T.distributions.Wishart(T.tensor(p_df, dtype=T.float64), covariance_matrix=s)
        q = T.distributions.Wishart(T.tensor(q_df, dtype=T.float64), covariance_matrix=2 * s)
        return T.distributions.kl_divergence(p, q), s

    ours, s = kl(mt, df_p, df_q, requires_grad=True)
    theirs = [kl(torch, a, b)[0].item() for a, b in zip(df_p, df_q)]
    np.testing.assert_allclose(ours.detach().numpy(), theirs, rtol=1e-10)
    ours.sum().backward()
    # KL(W(n, S) || W(m, 2S)) does not depend on S: its gradient in S is zero
    np.testing.assert_allclose(s.grad.numpy(), 0.0, atol=1e-10)
