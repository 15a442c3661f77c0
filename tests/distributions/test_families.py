"""LogNormal, HalfNormal, Cauchy, HalfCauchy, Gumbel, Weibull, Pareto and Geometric:
log_prob, cdf/icdf, entropy, moments and KL three ways (float64 gradcheck, float32 values
and gradients against PyTorch, meta shapes); rsample's gradients with the noise fixed;
sample statistics; reprs, constraints, expand and PyTorch's validation errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import distributions as dist
from tests.devices import tensor_device
from tests.distributions.helpers import D
from tests.distributions.helpers import open_unit as _open_unit
from tests.distributions.helpers import reseeded as _reseeded
from tests.ops.harness import Arg, Case, check_gradients, check_meta, params, three_way_tests

S = (3, 4)
N = 100_000


def _moments(d):
    return d.mean + d.variance + d.mode + d.stddev


CASES = [
    # LogNormal
    Case("lognormal_log_prob", lambda T, F, m, s, v: D(T).LogNormal(m, s).log_prob(v),
         [Arg(S), Arg(S, "positive"), Arg(S, "positive")]),
    Case("lognormal_cdf_icdf", lambda T, F, m, s, v, u: D(T).LogNormal(m, s).cdf(v)
         + D(T).LogNormal(m, s).icdf(_open_unit(u)),
         [Arg(S), Arg(S, "positive"), Arg(S, "positive"), Arg(S, "prob")]),
    Case("lognormal_entropy_moments", lambda T, F, m, s: D(T).LogNormal(m, s).entropy()
         + _moments(D(T).LogNormal(m, s)), [Arg(S), Arg(S, "positive")]),
    # HalfNormal
    Case("halfnormal_log_prob", lambda T, F, s, v: D(T).HalfNormal(s).log_prob(v),
         [Arg(S, "positive"), Arg(S, "positive")]),
    Case("halfnormal_cdf_icdf", lambda T, F, s, v, u: D(T).HalfNormal(s).cdf(v)
         + D(T).HalfNormal(s).icdf(_open_unit(u)),
         [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "prob")]),
    Case("halfnormal_entropy_moments", lambda T, F, s: D(T).HalfNormal(s).entropy()
         + _moments(D(T).HalfNormal(s)), [Arg(S, "positive")]),
    # Cauchy
    Case("cauchy_log_prob", lambda T, F, m, s, v: D(T).Cauchy(m, s).log_prob(v),
         [Arg(S), Arg(S, "positive"), Arg(S)]),
    Case("cauchy_cdf_icdf", lambda T, F, m, s, v, u: D(T).Cauchy(m, s).cdf(v)
         + D(T).Cauchy(m, s).icdf(_open_unit(u)),
         [Arg(S), Arg(S, "positive"), Arg(S), Arg(S, "prob")]),
    Case("cauchy_entropy_mode", lambda T, F, m, s: D(T).Cauchy(m, s).entropy()
         + D(T).Cauchy(m, s).mode, [Arg(S), Arg(S, "positive")]),
    Case("cauchy_mean_variance", lambda T, F, m, s: D(T).Cauchy(m, s).mean
         .nan_to_num(1.5) + D(T).Cauchy(m, s).variance.clamp(max=7.0),
         [Arg(S, grad=False), Arg(S, "positive", grad=False)]),
    # HalfCauchy
    Case("halfcauchy_log_prob", lambda T, F, s, v: D(T).HalfCauchy(s).log_prob(v),
         [Arg(S, "positive"), Arg(S, "positive")]),
    Case("halfcauchy_cdf_icdf", lambda T, F, s, v, u: D(T).HalfCauchy(s).cdf(v)
         + D(T).HalfCauchy(s).icdf(_open_unit(u)),
         [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "prob")]),
    Case("halfcauchy_entropy_mode", lambda T, F, s: D(T).HalfCauchy(s).entropy()
         + D(T).HalfCauchy(s).mode + D(T).HalfCauchy(s).mean.clamp(max=3.0)
         + D(T).HalfCauchy(s).variance.clamp(max=3.0), [Arg(S, "positive")]),
    # Gumbel
    Case("gumbel_log_prob", lambda T, F, m, s, v: D(T).Gumbel(m, s).log_prob(v),
         [Arg(S), Arg(S, "positive"), Arg(S)]),
    Case("gumbel_cdf_icdf", lambda T, F, m, s, v, u: D(T).Gumbel(m, s).cdf(v)
         + D(T).Gumbel(m, s).icdf(_open_unit(u)),
         [Arg(S), Arg(S, "positive"), Arg(S), Arg(S, "prob")]),
    Case("gumbel_entropy_moments", lambda T, F, m, s: D(T).Gumbel(m, s).entropy()
         + _moments(D(T).Gumbel(m, s)), [Arg(S), Arg(S, "positive")]),
    Case("gumbel_numbers_log_prob", lambda T, F, v: D(T).Gumbel(0.5, 2.0).log_prob(v),
         [Arg(S)]),
    # Weibull (concentration > 1 so that the mode is inside the support)
    Case("weibull_log_prob", lambda T, F, s, c, v: D(T).Weibull(s, c).log_prob(v),
         [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "positive")]),
    Case("weibull_cdf_icdf", lambda T, F, s, c, v, u: D(T).Weibull(s, c).cdf(v)
         + D(T).Weibull(s, c).icdf(_open_unit(u)),
         [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "positive"), Arg(S, "prob")]),
    Case("weibull_entropy_moments", lambda T, F, s, c: D(T).Weibull(s, c + 1).entropy()
         + _moments(D(T).Weibull(s, c + 1)), [Arg(S, "positive"), Arg(S, "positive")]),
    # Pareto (values above the scale; alpha > 2 for finite moments)
    Case("pareto_log_prob", lambda T, F, s, a, d: D(T).Pareto(s, a).log_prob(s + d),
         [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "positive")]),
    Case("pareto_cdf_icdf", lambda T, F, s, a, d, u: D(T).Pareto(s, a).cdf(s + d)
         + D(T).Pareto(s, a).icdf(_open_unit(u)),
         [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "positive"), Arg(S, "prob")]),
    Case("pareto_entropy_moments", lambda T, F, s, a: D(T).Pareto(s, a + 2).entropy()
         + _moments(D(T).Pareto(s, a + 2)), [Arg(S, "positive"), Arg(S, "positive")]),
    Case("pareto_infinite_moments", lambda T, F, s, a: D(T).Pareto(s, a).mean.clamp(max=50.0)
         + D(T).Pareto(s, a).variance.clamp(max=50.0),
         [Arg(S, "positive", grad=False), Arg(S, "positive", grad=False)]),
    # Geometric
    Case("geometric_probs_log_prob", lambda T, F, p, k: D(T).Geometric(p).log_prob(
        k.to(p.dtype)), [Arg(S, "prob"), Arg(S, "int:5")]),
    Case("geometric_logits_log_prob", lambda T, F, x, k: D(T).Geometric(logits=x).log_prob(
        k.to(x.dtype)), [Arg(S), Arg(S, "int:5")]),
    Case("geometric_entropy_moments", lambda T, F, p: D(T).Geometric(p).entropy()
         + _moments(D(T).Geometric(p)), [Arg(S, "prob")]),
    Case("geometric_logits_entropy", lambda T, F, x: D(T).Geometric(logits=x).entropy()
         + D(T).Geometric(logits=x).probs, [Arg(S)]),
    # KL
    Case("kl_lognormal", lambda T, F, a, b, c, d: D(T).kl_divergence(
        D(T).LogNormal(a, b), D(T).LogNormal(c, d)),
        [Arg(S), Arg(S, "positive"), Arg(S), Arg(S, "positive")]),
    Case("kl_halfnormal", lambda T, F, a, b: D(T).kl_divergence(
        D(T).HalfNormal(a), D(T).HalfNormal(b)), [Arg(S, "positive"), Arg(S, "positive")]),
    Case("kl_cauchy", lambda T, F, a, b, c, d: D(T).kl_divergence(
        D(T).Cauchy(a, b), D(T).Cauchy(c, d)),
        [Arg(S), Arg(S, "positive"), Arg(S), Arg(S, "positive")]),
    Case("kl_halfcauchy", lambda T, F, a, b: D(T).kl_divergence(
        D(T).HalfCauchy(a), D(T).HalfCauchy(b)), [Arg(S, "positive"), Arg(S, "positive")]),
    Case("kl_gumbel", lambda T, F, a, b, c, d: D(T).kl_divergence(
        D(T).Gumbel(a, b), D(T).Gumbel(c, d)),
        [Arg(S), Arg(S, "positive"), Arg(S), Arg(S, "positive")]),
    Case("kl_geometric", lambda T, F, p, q: D(T).kl_divergence(
        D(T).Geometric(p), D(T).Geometric(logits=q)), [Arg(S, "prob"), Arg(S)]),
    # q's scale below p's everywhere: finite; the infinite case is checked below
    Case("kl_pareto", lambda T, F, a, b, c, d: D(T).kl_divergence(
        D(T).Pareto(a + 2, b), D(T).Pareto(c, d)),
        [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "positive"), Arg(S, "positive")]),
    Case("kl_weibull_same_transforms", lambda T, F, a: D(T).kl_divergence(
        D(T).Weibull(2.0, 3.0), D(T).Weibull(2.0, 3.0)) + a, [Arg(())]),
]

# PyTorch writes Pareto's infinite terms in place (IndexPutBackward0); we use masked_fill
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=("kl_pareto",))


RSAMPLE_CASES = [
    Case("lognormal", _reseeded(lambda T, m, s: D(T).LogNormal(m, s)),
         [Arg((3,)), Arg((3,), "positive")]),
    Case("halfnormal", _reseeded(lambda T, s: D(T).HalfNormal(s)), [Arg((3,), "positive")]),
    Case("cauchy", _reseeded(lambda T, m, s: D(T).Cauchy(m, s)),
         [Arg((3,)), Arg((3,), "positive")]),
    Case("halfcauchy", _reseeded(lambda T, s: D(T).HalfCauchy(s)), [Arg((3,), "positive")]),
    Case("gumbel", _reseeded(lambda T, m, s: D(T).Gumbel(m, s)),
         [Arg((3,)), Arg((3,), "positive")]),
    Case("weibull", _reseeded(lambda T, s, c: D(T).Weibull(s, c)),
         [Arg((3,), "positive"), Arg((3,), "positive")]),
    Case("pareto", _reseeded(lambda T, s, a: D(T).Pareto(s, a)),
         [Arg((3,), "positive"), Arg((3,), "positive")]),
]


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_gradcheck(case, device):
    check_gradients(case, device)


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_meta_shapes(case):
    check_meta(case)


def _rsample_with_base(name, T, base, a, b):
    """The family's rsample written from the base sample ``base`` (standard normal,
    standard Cauchy, uniform or standard exponential): PyTorch's own construction, to
    compare gradients with a fixed base sample."""
    if name == "lognormal":
        return (a + b * base).exp()
    if name == "halfnormal":
        return (b * base).abs()
    if name == "gumbel":
        return a - b * (-base.log()).log()
    if name == "weibull":
        return b * base.pow(a.reciprocal())
    return b * (base / a).exp()  # pareto: scale * exp(E / alpha)


@pytest.mark.parametrize("name, family, base", [
    ("lognormal", lambda T, a, b: D(T).LogNormal(a, b), "normal"),
    ("halfnormal", lambda T, a, b: D(T).HalfNormal(b), "normal"),
    ("gumbel", lambda T, a, b: D(T).Gumbel(a, b), "uniform"),
    ("weibull", lambda T, a, b: D(T).Weibull(b, a), "exponential"),
    ("pareto", lambda T, a, b: D(T).Pareto(b, a), "exponential"),
])
def test_rsample_gradients_match_torch_for_the_same_base_sample(name, family, base):
    torch = pytest.importorskip("torch")
    a0, b0 = np.array([1.5, 0.7, 2.0], np.float32), np.array([0.5, 1.2, 2.0], np.float32)
    a, b = mt.tensor(a0, requires_grad=True), mt.tensor(b0, requires_grad=True)
    mt.manual_seed(5)
    ours = family(mt, a, b).rsample((4,))
    mt.manual_seed(5)
    noise = {"normal": lambda: mt.randn(4, 3), "uniform": lambda: mt.rand(4, 3),
             "exponential": lambda: -(-mt.rand(4, 3)).log1p()}[base]()
    if name == "gumbel":  # the base uniform lies in [tiny, 1 - eps]
        info = mt.finfo(mt.float32)
        noise = info.tiny + noise * (1 - info.eps - info.tiny)
    ta, tb = torch.tensor(a0, requires_grad=True), torch.tensor(b0, requires_grad=True)
    theirs = _rsample_with_base(name, torch, torch.tensor(noise.numpy()), ta, tb)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-4,
                               atol=1e-5)
    ours.sum().backward()
    theirs.sum().backward()
    if name != "halfnormal":
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-4, atol=1e-5)


def _families(device):
    t = lambda values: mt.tensor(values, device=device)  # noqa: E731
    return {
        "lognormal": dist.LogNormal(t([0.0, -0.5]), t([0.5, 0.25])),
        "halfnormal": dist.HalfNormal(t([1.0, 3.0])),
        "cauchy": dist.Cauchy(t([0.0, 2.0]), t([1.0, 0.5])),
        "halfcauchy": dist.HalfCauchy(t([1.0, 0.3])),
        "gumbel": dist.Gumbel(t([1.0, -2.0]), t([2.0, 0.5])),
        "weibull": dist.Weibull(t([1.0, 2.0]), t([1.5, 3.0])),
        "pareto": dist.Pareto(t([1.0, 0.5]), t([5.0, 9.0])),
    }


@pytest.mark.parametrize("name", ["lognormal", "halfnormal", "cauchy", "halfcauchy", "gumbel",
                                  "weibull", "pareto"])
def test_sample_quantiles_match_the_cdf(name, device):
    """The fraction of draws below ``icdf(q)`` is ``q`` within 6 standard errors."""
    d = _families(device)[name]
    samples = d.sample((N,))
    assert samples.shape == (N, 2) and samples.device == tensor_device(device)
    assert samples.dtype is mt.float32 and not samples.requires_grad
    assert bool(d.support.check(samples).all())
    values = samples.cpu().numpy()
    for q in (0.1, 0.5, 0.9):
        cut = d.icdf(mt.full((2,), q, device=device)).cpu().numpy()
        np.testing.assert_array_less(np.abs((values <= cut).mean(0) - q),
                                     6 * np.sqrt(q * (1 - q) / N))


@pytest.mark.parametrize("name", ["lognormal", "halfnormal", "gumbel", "weibull", "pareto"])
def test_sample_moments_match_the_exact_ones(name, device):
    d = _families(device)[name]
    values = d.sample((N,)).cpu().numpy().astype(np.float64)
    mean, variance = d.mean.cpu().numpy(), d.variance.cpu().numpy()
    centred = values - values.mean(0)
    np.testing.assert_array_less(np.abs(values.mean(0) - mean), 6 * np.sqrt(variance / N))
    fourth = (centred ** 4).mean(0)
    np.testing.assert_array_less(np.abs(values.var(0) - variance),
                                 6 * np.sqrt((fourth - variance ** 2) / N))


def test_geometric_frequencies_match_the_probabilities(device):
    probs = mt.tensor([0.3, 0.8], device=device)
    samples = dist.Geometric(probs).sample((N,))
    assert samples.dtype is mt.float32 and samples.device == tensor_device(device)
    values = samples.cpu().numpy()
    assert (values == np.floor(values)).all() and (values >= 0).all()
    p = probs.cpu().numpy()
    for k in range(4):
        exact = (1 - p) ** k * p
        np.testing.assert_array_less(np.abs((values == k).mean(0) - exact),
                                     6 * np.sqrt(exact * (1 - exact) / N))


REPRS = [
    lambda T: D(T).LogNormal(0.0, 1.0),
    lambda T: D(T).HalfNormal(T.ones(2)),
    lambda T: D(T).Cauchy(0.0, 1.0),
    lambda T: D(T).Cauchy(T.zeros(2, 3), 1.0),
    lambda T: D(T).HalfCauchy(1.0),
    lambda T: D(T).Gumbel(0.0, 1.0),
    lambda T: D(T).Gumbel(T.zeros(3), 2.0),
    lambda T: D(T).Weibull(1.0, 2.0),
    lambda T: D(T).Pareto(1.0, T.full((2,), 2.0)),
    lambda T: D(T).Geometric(0.3),
    lambda T: D(T).Geometric(logits=T.zeros(2)),
    lambda T: D(T).TransformedDistribution(D(T).Normal(0.0, 1.0),
                                           D(T).transforms.ExpTransform()),
]


@pytest.mark.parametrize("build", REPRS)
def test_repr_shapes_support_and_constraints_are_torchs(build):
    ours, theirs = build(mt), build(pytest.importorskip("torch"))
    assert repr(ours) == repr(theirs)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert repr(ours.support) == repr(theirs.support)
    assert ours.has_rsample == theirs.has_rsample
    assert ours.support.is_discrete == theirs.support.is_discrete
    assert {k: repr(v) for k, v in ours.arg_constraints.items()} == \
        {k: repr(v) for k, v in theirs.arg_constraints.items()}
    expanded_ours, expanded_theirs = ours.expand((4,) + tuple(ours.batch_shape)), \
        theirs.expand((4,) + tuple(theirs.batch_shape))
    assert repr(expanded_ours) == repr(expanded_theirs)
    assert tuple(expanded_ours.sample().shape) == tuple(expanded_theirs.sample().shape)
    if type(ours) is not dist.TransformedDistribution:  # which has no entropy
        np.testing.assert_allclose(expanded_ours.entropy().numpy(),
                                   expanded_theirs.entropy().numpy(), rtol=1e-6)


ERRORS = [
    lambda T: D(T).LogNormal(0.0, -1.0),
    lambda T: D(T).LogNormal(0.0, 1.0).log_prob(T.tensor(-1.0)),
    lambda T: D(T).HalfNormal(-1.0),
    lambda T: D(T).HalfNormal(T.tensor([1.0, 0.0])),
    lambda T: D(T).HalfNormal(1.0).log_prob(T.tensor(-1.0)),
    lambda T: D(T).HalfNormal(1.0).cdf(T.tensor(-1.0)),
    lambda T: D(T).Cauchy(0.0, 0.0),
    lambda T: D(T).Cauchy(float("nan"), 1.0),
    lambda T: D(T).HalfCauchy(-2.0),
    lambda T: D(T).HalfCauchy(1.0).log_prob(T.tensor([1.0, -1.0])),
    lambda T: D(T).Gumbel(0.0, -1.0),
    lambda T: D(T).Weibull(-1.0, 1.0),
    lambda T: D(T).Weibull(1.0, 0.0),
    lambda T: D(T).Weibull(1.0, 1.0).log_prob(T.tensor(0.0)),
    lambda T: D(T).Pareto(1.0, -1.0),
    lambda T: D(T).Pareto(-1.0, 1.0),
    lambda T: D(T).Pareto(1.0, 2.0).log_prob(T.tensor(0.5)),
    lambda T: D(T).Geometric(0.0),
    lambda T: D(T).Geometric(T.tensor([0.5, 0.0, 0.0])),
    lambda T: D(T).Geometric(1.5),
    lambda T: D(T).Geometric(),
    lambda T: D(T).Geometric(0.5, 0.1),
    lambda T: D(T).Geometric(0.5).log_prob(T.tensor(0.5)),
    lambda T: D(T).Geometric(0.5).log_prob(T.tensor(-1.0)),
    lambda T: D(T).Geometric(0.5).rsample(),
    lambda T: D(T).kl_divergence(D(T).Weibull(1.0, 2.0), D(T).Weibull(1.0, 3.0)),
    lambda T: D(T).kl_divergence(D(T).Geometric(0.5), D(T).Cauchy(0.0, 1.0)),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_torchs_type_and_text(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(mt)
    if isinstance(theirs.value, NotImplementedError) and not str(theirs.value):
        return
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("build", [
    lambda T: D(T).kl_divergence(D(T).Pareto(T.tensor([1.0, 2.0]), 2.0),
                                 D(T).Pareto(T.tensor([1.5, 1.0]), 3.0)),
    lambda T: D(T).Geometric(T.tensor([1.0, 0.5])).log_prob(T.tensor([0.0, 0.0])),
    lambda T: D(T).Geometric(T.tensor([1.0, 0.5])).entropy(),
    lambda T: D(T).HalfNormal(1.0, validate_args=False).log_prob(T.tensor([-1.0, 1.0])),
    lambda T: D(T).HalfCauchy(1.0, validate_args=False).log_prob(T.tensor([-1.0, 1.0])),
    lambda T: D(T).Pareto(1.0, T.tensor([0.5, 1.5, 3.0])).mean,
    lambda T: D(T).Pareto(1.0, T.tensor([0.5, 1.5, 3.0])).variance,
    lambda T: D(T).Weibull(2.0, T.tensor([0.5, 3.0])).mode,
    lambda T: D(T).Cauchy(T.zeros(2), 1.0).mean,
    lambda T: D(T).LogNormal(T.zeros(2, dtype=T.float64), 1.0).log_prob(
        T.ones(2, dtype=T.float64)),
    lambda T: D(T).Gumbel(T.zeros(2, dtype=T.float64), 1.0).sample((3,)).dtype,
])
def test_edge_values_match_torch(build):
    ours, theirs = build(mt), build(pytest.importorskip("torch"))
    if not hasattr(theirs, "numpy"):
        assert str(ours) == str(theirs)
        return
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_geometric_is_not_reparameterised_and_its_samples_leave_the_graph():
    p = mt.full((2,), 0.5, requires_grad=True)
    d = dist.Geometric(p)
    assert not d.has_rsample and d.sample((3,)).grad_fn is None
    assert d.sample((3,)).shape == (3, 2)


def test_the_families_run_on_meta():
    meta = mt.empty(4, 3, device="meta")
    for d in (dist.LogNormal(meta, meta), dist.HalfNormal(meta), dist.Cauchy(meta, meta),
              dist.HalfCauchy(meta), dist.Gumbel(meta, meta), dist.Weibull(meta, meta),
              dist.Pareto(meta, meta), dist.Geometric(meta)):
        assert d.sample((2,)).is_meta and d.sample((2,)).shape == (2, 4, 3)
        assert d.log_prob(meta).shape == (4, 3) and d.entropy().is_meta
