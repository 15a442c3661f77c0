"""MixtureSameFamily over scalar and vector components (Normal, Gamma, Independent Normal,
MultivariateNormal): log_prob, mean, variance and cdf three ways (float64 gradcheck,
float32 values and gradients against PyTorch, meta shapes); sample frequencies and
moments against the exact ones; whole-event picking; reprs, support, expand and
PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import distributions as dist
from tests.devices import tensor_device
from tests.distributions.helpers import D
from tests.ops.harness import Arg, Case, three_way_tests

K = 3  # components


def _normal_mix(T, w, m, s):
    return D(T).MixtureSameFamily(D(T).Categorical(w), D(T).Normal(m, s))


def _vector_mix(T, w, m, s):
    return D(T).MixtureSameFamily(D(T).Categorical(logits=w),
                                  D(T).Independent(D(T).Normal(m, s), 1))


def _mvn_mix(T, w, m, a):
    cov = a @ a.mT + 2 * T.eye(2, dtype=a.dtype, device=a.device)
    return D(T).MixtureSameFamily(D(T).Categorical(w), D(T).MultivariateNormal(m, cov))


POS, REAL = Arg((2, K), "positive"), Arg((2, K))

CASES = [
    Case("normal_log_prob", lambda T, F, w, m, s, v: _normal_mix(T, w, m, s).log_prob(v),
         [POS, REAL, POS, Arg((4, 2))]),
    Case("normal_moments", lambda T, F, w, m, s: _normal_mix(T, w, m, s).mean
         + _normal_mix(T, w, m, s).variance + _normal_mix(T, w, m, s).stddev,
         [POS, REAL, POS]),
    Case("normal_cdf", lambda T, F, w, m, s, v: _normal_mix(T, w, m, s).cdf(v),
         [POS, REAL, POS, Arg((4, 2))]),
    # one mixture for a batch of components, and the other way round
    Case("shared_weights_log_prob", lambda T, F, w, m, s, v: _normal_mix(T, w, m, s)
         .log_prob(v), [Arg((K,), "positive"), REAL, POS, Arg((4, 2))]),
    Case("shared_weights_moments", lambda T, F, w, m, s: _normal_mix(T, w, m, s).mean
         + _normal_mix(T, w, m, s).variance, [Arg((K,), "positive"), REAL, POS]),
    Case("shared_components_log_prob", lambda T, F, w, m, s, v: _normal_mix(T, w, m, s)
         .log_prob(v), [POS, Arg((K,)), Arg((K,), "positive"), Arg((4, 2))]),
    Case("gamma_log_prob", lambda T, F, w, c, r, v: D(T).MixtureSameFamily(
        D(T).Categorical(w), D(T).Gamma(c, r)).log_prob(v), [POS, POS, POS, Arg((2,), "positive")]),
    Case("vector_log_prob", lambda T, F, w, m, s, v: _vector_mix(T, w, m, s).log_prob(v),
         [REAL, Arg((2, K, 4)), Arg((2, K, 4), "positive"), Arg((5, 1, 4))]),
    Case("vector_moments", lambda T, F, w, m, s: _vector_mix(T, w, m, s).mean
         + _vector_mix(T, w, m, s).variance, [REAL, Arg((2, K, 4)), Arg((2, K, 4), "positive")]),
    Case("mvn_log_prob", lambda T, F, w, m, a, v: _mvn_mix(T, w, m, a).log_prob(v),
         [Arg((K,), "positive"), Arg((K, 2)), Arg((K, 2, 2)), Arg((5, 2))]),
    Case("mvn_moments", lambda T, F, w, m, a: _mvn_mix(T, w, m, a).mean
         + _mvn_mix(T, w, m, a).variance, [Arg((K,), "positive"), Arg((K, 2)), Arg((K, 2, 2))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


N = 200_000


def test_samples_pick_components_with_the_mixture_weights(device):
    """Components far apart: the share of draws near each is its weight within 6
    standard errors (``sqrt(w (1 - w) / N)``), and the sample mean is the mixture's within
    6 of its standard errors."""
    weights = mt.tensor([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]], dtype=mt.float64, device=device)
    locs = mt.tensor([-10.0, 0.0, 10.0], dtype=mt.float64, device=device).expand(2, K)
    d = dist.MixtureSameFamily(dist.Categorical(weights),
                               dist.Normal(locs, mt.ones(2, K, dtype=mt.float64, device=device)))
    mt.manual_seed(11)
    x = d.sample((N,))
    assert x.shape == (N, 2) and x.device == tensor_device(device) and not x.requires_grad
    values = x.cpu().numpy()
    expected = weights.cpu().numpy()
    for k, centre in enumerate((-10.0, 0.0, 10.0)):
        share = (np.abs(values - centre) < 5).mean(0)
        error = np.sqrt(expected[:, k] * (1 - expected[:, k]) / N)
        np.testing.assert_array_less(np.abs(share - expected[:, k]), 6 * error)
    mean, variance = d.mean.cpu().numpy(), d.variance.cpu().numpy()
    np.testing.assert_array_less(np.abs(values.mean(0) - mean), 6 * np.sqrt(variance / N))
    # the variance of a sample variance is at most m4 / N; m4 <= (10 + 5)^4 bounds it here
    np.testing.assert_array_less(np.abs(values.var(0) - variance), 6 * 15 ** 2 / math.sqrt(N))


def test_a_sample_takes_one_component_s_whole_event(device):
    """Vector components of tiny scale: each draw is one component's location vector,
    never coordinates mixed from two components; each component is drawn."""
    locs = mt.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], device=device)
    d = dist.MixtureSameFamily(
        dist.Categorical(mt.ones(4, K, device=device)),
        dist.Independent(dist.Normal(locs.expand(4, K, 2), 1e-4), 1))
    mt.manual_seed(2)
    x = d.sample((50,)).cpu().numpy()
    assert x.shape == (50, 4, 2)
    nearest = np.abs(x[..., None, :] - locs.cpu().numpy()).sum(-1).argmin(-1)
    np.testing.assert_allclose(x, locs.cpu().numpy()[nearest], atol=1e-2)
    assert set(nearest.ravel().tolist()) == {0, 1, 2}


def test_a_shared_mixture_draws_for_each_batch_element(device):
    """A mixture of batch ``()`` over components of batch ``(2, k)`` samples (PyTorch's
    gather refuses the index there, see docs/differences.md)."""
    d = dist.MixtureSameFamily(dist.Categorical(mt.ones(K, device=device)),
                               dist.Normal(mt.zeros(2, K, device=device), 1.0))
    x = d.sample((5,))
    assert x.shape == (5, 2) and d.log_prob(x).shape == (5, 2)
    wide = dist.MixtureSameFamily(dist.Categorical(mt.ones(2, 1, K, device=device)),
                                  dist.Normal(mt.zeros(4, K, device=device), 1.0))
    assert wide.batch_shape == (4,) and wide.sample((5,)).shape == (5, 2, 4)


def test_the_mixture_runs_on_meta():
    d = dist.MixtureSameFamily(
        dist.Categorical(logits=mt.empty(2, K, device="meta")),
        dist.Independent(dist.Normal(mt.empty(2, K, 4, device="meta"), 1.0), 1))
    assert d.sample((5,)).shape == (5, 2, 4) and d.sample((5,)).is_meta
    assert d.log_prob(mt.empty(5, 2, 4, device="meta")).shape == (5, 2)
    assert (d.mean + d.variance).shape == (2, 4)


REPRS = [
    lambda T: D(T).MixtureSameFamily(D(T).Categorical(T.ones(K)),
                                     D(T).Normal(T.zeros(K), T.ones(K))),
    lambda T: D(T).MixtureSameFamily(D(T).Categorical(logits=T.zeros(2, K)),
                                     D(T).Independent(D(T).Normal(T.zeros(2, K, 4), 1.0), 1)),
    lambda T: D(T).MixtureSameFamily(D(T).Categorical(T.ones(K)),
                                     D(T).Gamma(T.ones(2, K), 2.0)),
]


@pytest.mark.parametrize("build", REPRS)
def test_repr_shapes_support_and_expand_are_torchs(build):
    torch = pytest.importorskip("torch")
    ours, theirs = build(mt), build(torch)
    assert repr(ours) == repr(theirs)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert repr(ours.support) == repr(theirs.support)
    assert ours.support.event_dim == theirs.support.event_dim
    assert ours.support.is_discrete == theirs.support.is_discrete
    assert ours.has_rsample == theirs.has_rsample is False and ours.arg_constraints == {}
    assert isinstance(ours.mixture_distribution, dist.Categorical)
    assert ours.component_distribution.batch_shape[-1] == K
    shape = (5,) + tuple(ours.batch_shape)
    expanded_ours, expanded_theirs = ours.expand(shape), theirs.expand(shape)
    assert repr(expanded_ours) == repr(expanded_theirs)
    assert tuple(expanded_ours.batch_shape) == tuple(expanded_theirs.batch_shape)
    assert tuple(expanded_ours.sample((2,)).shape) == tuple(expanded_theirs.sample((2,)).shape)
    for name in ("mean", "variance"):
        np.testing.assert_allclose(getattr(expanded_ours, name).numpy(),
                                   getattr(expanded_theirs, name).numpy(), rtol=1e-6)
    value = torch.full(tuple(expanded_theirs.event_shape), 0.5)
    np.testing.assert_allclose(expanded_ours.log_prob(mt.tensor(value.numpy())).numpy(),
                               expanded_theirs.log_prob(value).numpy(), rtol=1e-6)


def test_the_support_constraint_is_torchs():
    torch = pytest.importorskip("torch")
    values = [[[0.5, -1.0], [2.0, 0.1]], [[1.0, 1.0], [0.0, 3.0]]]
    for base in ("positive", "real_vector", "simplex"):
        ours = dist.constraints.MixtureSameFamilyConstraint(getattr(dist.constraints, base))
        theirs = torch.distributions.constraints.MixtureSameFamilyConstraint(
            getattr(torch.distributions.constraints, base))
        assert repr(ours) == repr(theirs) and ours.event_dim == theirs.event_dim
        assert ours.check(mt.tensor(values)).tolist() == theirs.check(
            torch.tensor(values)).tolist()
    with pytest.raises(AssertionError, match="base_constraint must be a Constraint, got int"):
        dist.constraints.MixtureSameFamilyConstraint(3)
    with pytest.raises(ValueError, match=r"Expected value.dim\(\) >= 1 but got 0"):
        dist.constraints.MixtureSameFamilyConstraint(dist.constraints.simplex).check(
            mt.tensor(0.5))


def _mix(T):
    return D(T).MixtureSameFamily(D(T).Categorical(T.ones(K)),
                                  D(T).Normal(T.zeros(K), T.ones(K)))


ERRORS = [
    lambda T: D(T).MixtureSameFamily(D(T).Normal(0.0, 1.0), D(T).Normal(T.zeros(K), 1.0)),
    lambda T: D(T).MixtureSameFamily(D(T).Categorical(T.ones(K)), 3),
    lambda T: D(T).MixtureSameFamily(D(T).Categorical(T.ones(2, K)),
                                     D(T).Normal(T.zeros(4, K), 1.0)),
    lambda T: D(T).MixtureSameFamily(D(T).Categorical(T.ones(4)), D(T).Normal(T.zeros(K), 1.0)),
    lambda T: _mix(T).log_prob(T.tensor(float("nan"))),
    lambda T: D(T).MixtureSameFamily(D(T).Categorical(T.ones(K)),
                                     D(T).Gamma(T.ones(K), 1.0)).log_prob(T.tensor(-1.0)),
    lambda T: D(T).MixtureSameFamily(D(T).Categorical(T.ones(K)),
                                     D(T).Normal(T.zeros(2, K), 1.0)).log_prob(T.zeros(3)),
    lambda T: D(T).MixtureSameFamily(D(T).Categorical(T.ones(K)), D(T).Normal(0.0, 1.0)),
    lambda T: _mix(T).rsample(),
    lambda T: _mix(T).entropy(),
    lambda T: _mix(T).icdf(T.tensor(0.5)),
    lambda T: _mix(T).mode,
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_torchs_type_and_text(call):
    """PyTorch's type; its text too, except where it says nothing useful (an unnamed
    ``IndexError`` from a missing components dim, the generic NotImplementedErrors)."""
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(mt)
    if isinstance(theirs.value, (NotImplementedError, IndexError)):
        return
    assert str(ours.value) == str(theirs.value)


def test_a_missing_components_dim_is_named():
    with pytest.raises(IndexError, match="component_distribution needs a rightmost batch dim"):
        dist.MixtureSameFamily(dist.Categorical(mt.ones(K)), dist.Normal(0.0, 1.0))
