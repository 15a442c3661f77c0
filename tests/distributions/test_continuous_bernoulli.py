"""ContinuousBernoulli and its KL pairs: log_prob, entropy, moments, cdf/icdf and the log
normalizer three ways (float64 gradcheck, float32 values and gradients against PyTorch,
meta shapes), on both sides of the Taylor window around 1/2; rsample's gradients with the
noise fixed; sample mean, variance and cdf against the exact ones; reprs, expand and
PyTorch's validation quirks and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import distributions as dist
from tests.devices import tensor_device
from tests.distributions.helpers import D
from tests.distributions.helpers import reseeded as _reseeded
from tests.ops.harness import Arg, Case, check_gradients, check_meta, params, three_way_tests

S = (3, 4)
AWAY = Arg(S, "away0")


def _cb(T, x):
    """From ``x`` with ``|x| >= 0.2`` (Arg kind ``away0``): probs in [0.06, 0.28] or
    [0.72, 0.94]. Closer to 1/2 (outside the Taylor window) the closed forms cancel: in
    float32 PyTorch's values and gradients carry rounding noise there, and ours another
    noise, while float64 gradchecks stay exact (``statistics_closer_to_half``)."""
    return D(T).ContinuousBernoulli(probs=0.5 + 0.2 * x.sign() + 0.12 * x)


def _cb_logits(T, x):
    """From ``|x| >= 0.2``: logits of size at least 1.2 (probs 0.27 from 1/2)."""
    return D(T).ContinuousBernoulli(logits=x + x.sign())


def _near_half(T, x):
    """probs inside the default Taylor window (0.499, 0.501]."""
    return D(T).ContinuousBernoulli(probs=0.5 + 0.0009 * x.tanh())


def _statistics(d):
    return d.mean + d.variance + d.stddev + d.entropy()


def _cdf_icdf(d, v):
    return d.cdf(v) + d.icdf(v)


CASES = [
    Case("log_prob_probs", lambda T, F, x, v: _cb(T, x).log_prob(v.sigmoid()), [AWAY, Arg(S)]),
    Case("log_prob_logits", lambda T, F, x, v: _cb_logits(T, x).log_prob(v.sigmoid()),
         [AWAY, Arg(S)]),
    Case("log_prob_broadcast", lambda T, F, x, v: _cb(T, x).log_prob(v.sigmoid()),
         [Arg((4,), "away0"), Arg((2, 3, 4))]),
    Case("log_prob_near_half", lambda T, F, x, v: _near_half(T, x).log_prob(v.sigmoid()),
         [Arg(S), Arg(S)]),
    Case("statistics_probs", lambda T, F, x: _statistics(_cb(T, x)), [AWAY]),
    Case("statistics_logits", lambda T, F, x: _statistics(_cb_logits(T, x)), [AWAY]),
    Case("statistics_near_half", lambda T, F, x: _statistics(_near_half(T, x)), [Arg(S)]),
    Case("statistics_wide_lims", lambda T, F, x: _statistics(D(T).ContinuousBernoulli(
        probs=0.5 + 0.04 * x.tanh(), lims=(0.45, 0.55))), [Arg(S)]),
    Case("cdf_icdf", lambda T, F, x, v: _cdf_icdf(_cb(T, x), v.sigmoid()), [AWAY, Arg(S)]),
    Case("cdf_icdf_near_half", lambda T, F, x, v: _cdf_icdf(_near_half(T, x), v.sigmoid()),
         [Arg(S), Arg(S)]),
    Case("log_normalizer", lambda T, F, x: D(T).ContinuousBernoulli(logits=x)._log_normalizer(
        x) + D(T).ContinuousBernoulli(logits=x)._log_normalizer(0.0005 * x.tanh()), [Arg(S)]),
    # KL
    Case("kl_cb_cb", lambda T, F, x, y: D(T).kl_divergence(
        _cb(T, x), _cb_logits(T, y)), [AWAY, Arg((4,), "away0")]),
    Case("kl_cb_cb_near_half", lambda T, F, x, y: D(T).kl_divergence(
        _near_half(T, x), _cb(T, y)), [Arg(S), AWAY]),
    Case("kl_beta_cb", lambda T, F, a, b, y: D(T).kl_divergence(
        D(T).Beta(a, b), _cb(T, y)), [Arg(S, "positive"), Arg(S, "positive"), AWAY]),
    Case("kl_uniform_cb", lambda T, F, lo, w, y: D(T).kl_divergence(
        D(T).Uniform(0.1 * lo, 0.1 * lo + 0.3 * w), _cb(T, y)),
        [Arg(S, "positive"), Arg(S, "positive"), AWAY]),
    Case("kl_cb_exponential", lambda T, F, x, r: D(T).kl_divergence(
        _cb(T, x), D(T).Exponential(r)), [AWAY, Arg(S, "positive")]),
    Case("kl_cb_normal", lambda T, F, x, m, s: D(T).kl_divergence(
        _cb(T, x), D(T).Normal(m, s)), [AWAY, Arg(S), Arg(S, "positive")]),
    Case("kl_cb_uniform", lambda T, F, x, lo, w: D(T).kl_divergence(
        _cb(T, x), D(T).Uniform(-lo, 1 + w)), [AWAY, Arg(S, "positive"), Arg(S, "positive")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


RSAMPLE_CASES = [
    Case("probs", _reseeded(lambda T, x: _cb(T, x)), [Arg((3,), "away0")]),
    Case("logits", _reseeded(lambda T, x: D(T).ContinuousBernoulli(logits=x)), [Arg((2, 3))]),
    Case("closer_to_half", _reseeded(lambda T, x: D(T).ContinuousBernoulli(0.49 + 0.002 * x)),
         [Arg((3,), "positive")]),
    Case("near_half", _reseeded(lambda T, x: _near_half(T, x)), [Arg((3,))]),
]


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_gradcheck(case, device):
    check_gradients(case, device)


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_meta_shapes(case):
    check_meta(case)


def test_rsample_is_the_icdf_of_torchs_uniform_draw(device):
    """The same uniform noise gives PyTorch's sample: the draw is ``icdf(u)``."""
    torch = pytest.importorskip("torch")
    u = np.random.default_rng(0).uniform(size=(6, 3))
    probs = np.array([0.1, 0.5, 0.8])
    ours = dist.ContinuousBernoulli(mt.tensor(probs, device=device)).icdf(
        mt.tensor(u, device=device))
    theirs = torch.distributions.ContinuousBernoulli(torch.tensor(probs)).icdf(torch.tensor(u))
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-12)


N = 200_000


@pytest.mark.parametrize("probs", [0.05, 0.3, 0.5, 0.5004, 0.9])
def test_sample_statistics_are_the_exact_ones(probs, device):
    """Sample mean, variance and empirical cdf at three points within 6 standard errors
    of the exact ones (``sqrt(var / N)``, ``sqrt(m4 / N)`` bounded by ``1 / N`` times the
    fourth power of the support's width, and ``sqrt(F (1 - F) / N)``)."""
    d = dist.ContinuousBernoulli(mt.tensor([probs], dtype=mt.float64, device=device))
    mt.manual_seed(7)
    x = d.sample((N,))
    assert x.shape == (N, 1) and x.device == tensor_device(device) and not x.requires_grad
    values = x.cpu().numpy()[:, 0]
    assert values.min() >= 0 and values.max() <= 1
    mean, variance = d.mean.item(), d.variance.item()
    assert abs(values.mean() - mean) < 6 * math.sqrt(variance / N)
    assert abs(values.var() - variance) < 6 * math.sqrt(1 / N)
    for point in (0.2, 0.5, 0.8):
        exact = d.cdf(mt.tensor([point], dtype=mt.float64, device=device)).item()
        empirical = (values <= point).mean()
        assert abs(empirical - exact) < 6 * math.sqrt(exact * (1 - exact) / N)


def test_the_distribution_runs_on_meta():
    d = dist.ContinuousBernoulli(logits=mt.empty(2, 3, device="meta"))
    assert d.rsample((4,)).shape == (4, 2, 3) and d.sample().is_meta
    assert d.log_prob(mt.empty(5, 1, 3, device="meta")).shape == (5, 2, 3)
    assert _statistics(d).shape == (2, 3) and d.probs.is_meta
    other = dist.ContinuousBernoulli(probs=mt.empty(3, device="meta"), validate_args=True)
    assert dist.kl_divergence(d, other).shape == (2, 3)


REPRS = [
    lambda T: D(T).ContinuousBernoulli(0.3),
    lambda T: D(T).ContinuousBernoulli(T.tensor([0.2, 0.8])),
    lambda T: D(T).ContinuousBernoulli(logits=T.tensor([[1.2, -1.0, 3.0]])),
    lambda T: D(T).ContinuousBernoulli(logits=2.0, lims=(0.4, 0.6)),
]


@pytest.mark.parametrize("build", REPRS)
def test_repr_shapes_constraints_and_expand_are_torchs(build):
    torch = pytest.importorskip("torch")
    ours, theirs = build(mt), build(torch)
    assert repr(ours) == repr(theirs)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) and ours.event_shape == ()
    assert repr(ours.support) == repr(theirs.support) and ours.has_rsample
    assert {k: repr(v) for k, v in ours.arg_constraints.items()} == \
        {k: repr(v) for k, v in theirs.arg_constraints.items()}
    assert tuple(ours.param_shape) == tuple(theirs.param_shape)
    shape = (2,) + tuple(ours.batch_shape)
    expanded_ours, expanded_theirs = ours.expand(shape), theirs.expand(shape)
    assert repr(expanded_ours) == repr(expanded_theirs)
    assert expanded_ours._lims == expanded_theirs._lims
    assert tuple(expanded_ours.rsample((3,)).shape) == tuple(expanded_theirs.rsample((3,)).shape)
    for name in ("mean", "variance", "probs", "logits"):
        np.testing.assert_allclose(getattr(expanded_ours, name).numpy(),
                                   getattr(expanded_theirs, name).numpy(), rtol=1e-5)
    value = torch.tensor([0.0, 0.25, 1.0]).reshape((3,) + (1,) * len(shape))
    np.testing.assert_allclose(expanded_ours.log_prob(mt.tensor(value.numpy())).numpy(),
                               expanded_theirs.log_prob(value).numpy(), rtol=1e-5)
    np.testing.assert_allclose(expanded_ours.cdf(mt.tensor(value.numpy())).numpy(),
                               expanded_theirs.cdf(value).numpy(), rtol=1e-5, atol=1e-7)


def test_probs_outside_the_interval_are_clamped_when_validation_is_not_asked():
    """PyTorch checks ``probs`` only when ``validate_args`` is given: by default a bad
    value is clamped into ``[eps, 1 - eps]`` silently (and then passes)."""
    torch = pytest.importorskip("torch")
    ours = dist.ContinuousBernoulli(mt.tensor([-0.5, 0.0, 1.5]))
    theirs = torch.distributions.ContinuousBernoulli(torch.tensor([-0.5, 0.0, 1.5]))
    assert ours.probs.tolist() == theirs.probs.tolist()


def test_the_mode_is_not_implemented_as_in_torch():
    with pytest.raises(NotImplementedError):
        _ = dist.ContinuousBernoulli(0.3).mode


ERRORS = [
    lambda T: D(T).ContinuousBernoulli(),
    lambda T: D(T).ContinuousBernoulli(0.3, logits=0.0),
    lambda T: D(T).ContinuousBernoulli(1.5, validate_args=False),
    lambda T: D(T).ContinuousBernoulli(T.tensor([0.2, 1.5]), validate_args=True),
    lambda T: D(T).ContinuousBernoulli(T.tensor([float("nan")]), validate_args=True),
    lambda T: D(T).ContinuousBernoulli(logits=T.tensor([0.0, float("nan")]),
                                       validate_args=True),
    lambda T: D(T).ContinuousBernoulli(0.3).log_prob(T.tensor(1.5)),
    lambda T: D(T).ContinuousBernoulli(T.tensor([0.3, 0.6])).log_prob(T.zeros(3)),
    lambda T: D(T).ContinuousBernoulli(T.tensor([0.3, 0.6])).cdf(T.tensor([-0.5, 0.5])),
    lambda T: D(T).ContinuousBernoulli(0.3).log_prob(0.5),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_torchs_type_and_text(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(mt)
    assert str(ours.value) == str(theirs.value)


INFINITE_PAIRS = [
    lambda T: (D(T).ContinuousBernoulli(T.tensor([0.3, 0.6])), D(T).Pareto(1.0, 2.0)),
    lambda T: (D(T).Exponential(T.tensor([1.0, 2.0])), D(T).ContinuousBernoulli(0.3)),
    lambda T: (D(T).Gamma(T.tensor([1.0, 2.0]), 1.0), D(T).ContinuousBernoulli(0.3)),
    lambda T: (D(T).Chi2(T.tensor([1.0, 2.0])), D(T).ContinuousBernoulli(0.3)),
    lambda T: (D(T).Gumbel(T.tensor([1.0, 2.0]), 1.0), D(T).ContinuousBernoulli(0.3)),
    lambda T: (D(T).Laplace(T.tensor([1.0, 2.0]), 1.0), D(T).ContinuousBernoulli(0.3)),
    lambda T: (D(T).Normal(T.tensor([1.0, 2.0]), 1.0), D(T).ContinuousBernoulli(0.3)),
    lambda T: (D(T).Pareto(T.tensor([1.0, 2.0]), 1.0), D(T).ContinuousBernoulli(0.3)),
    # the support's edges: the uniform reaches past [0, 1] on one side
    lambda T: (D(T).ContinuousBernoulli(T.tensor([0.3, 0.6])),
               D(T).Uniform(T.tensor([0.1, -1.0]), T.tensor([2.0, 0.9]))),
    lambda T: (D(T).Uniform(T.tensor([-0.1, 0.2]), T.tensor([0.5, 1.1])),
               D(T).ContinuousBernoulli(0.3)),
]


@pytest.mark.parametrize("pair", INFINITE_PAIRS)
def test_pairs_without_common_support_are_infinite_as_torchs(pair):
    torch = pytest.importorskip("torch")
    ours, theirs = D(mt).kl_divergence(*pair(mt)), D(torch).kl_divergence(*pair(torch))
    assert ours.tolist() == theirs.tolist() == [math.inf, math.inf]


def test_a_uniform_touching_the_support_gives_a_finite_kl():
    """A uniform on exactly [0, 1] shares the support: the KL is finite both ways
    (PyTorch 2.13 returns inf here, see docs/differences.md)."""
    cb, unit = dist.ContinuousBernoulli(mt.tensor([0.3])), dist.Uniform(0.0, 1.0)
    np.testing.assert_allclose(dist.kl_divergence(cb, unit).numpy(), -cb.entropy().numpy(),
                               rtol=1e-6)
    to_cb = dist.kl_divergence(unit, cb).numpy()
    np.testing.assert_allclose(to_cb, -cb.log_prob(mt.linspace(0, 1, 100_001)).mean().numpy(),
                               rtol=1e-4)


def test_the_taylor_expansions_are_torchs_in_a_wide_window():
    """``lims=(0.1, 0.9)`` puts most probs in the window, where the expansions' higher
    terms matter: every statistic and its gradient equal PyTorch's in float64."""
    torch = pytest.importorskip("torch")
    probs = np.array([0.05, 0.15, 0.3, 0.5, 0.62, 0.85, 0.95])
    value = np.linspace(0.05, 0.95, probs.size)
    results = []
    for T in (mt, torch):
        p = T.tensor(probs, dtype=T.float64, requires_grad=True)
        v = T.tensor(value, dtype=T.float64)
        d = D(T).ContinuousBernoulli(p, lims=(0.1, 0.9))
        # the natural parameter's window is (lims - 1/2): (-0.4, 0.4] here
        outs = [d.mean, d.variance, d.entropy(), d.log_prob(v), d.cdf(v), d.icdf(v),
                d._cont_bern_log_norm(), d._log_normalizer(p - 0.5)]
        grads = [T.autograd.grad(out.sum(), p, retain_graph=True)[0] for out in outs]
        results.append([x.detach().numpy() for x in outs + grads])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
