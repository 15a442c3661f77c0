"""Beta, Dirichlet, StudentT, InverseGamma, FisherSnedecor and Kumaraswamy: log_prob,
entropy, moments and KL three ways (float64 gradcheck, float32 values and gradients
against PyTorch, meta shapes); rsample's gradients (by finite differences where the noise
is fixed, else through the mean of many one-draw gradients against the derivative of the
exact moment); sample statistics; reprs, constraints, expand and PyTorch's validation
errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import distributions as dist
from tests.devices import tensor_device
from tests.distributions.helpers import D
from tests.distributions.helpers import open_unit as _unit
from tests.distributions.helpers import reseeded as _reseeded
from tests.ops.harness import Arg, Case, check_gradients, check_meta, params, three_way_tests

S = (3, 4)
N = 100_000


def _moments(d):
    return d.mean + d.variance + d.mode


CASES = [
    # Beta (concentrations > 1 for a mode inside the interval)
    Case("beta_log_prob", lambda T, F, a, b, v: D(T).Beta(a, b).log_prob(v),
         [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "prob")]),
    Case("beta_entropy_moments", lambda T, F, a, b: D(T).Beta(a, b).entropy()
         + _moments(D(T).Beta(a + 1, b + 1)) + D(T).Beta(a, b).stddev,
         [Arg(S, "positive"), Arg(S, "positive")]),
    Case("beta_number_log_prob", lambda T, F, a, v: D(T).Beta(a, 0.5).log_prob(v),
         [Arg((4,), "positive"), Arg(S, "prob")]),
    # Dirichlet: values on the simplex through a softmax
    Case("dirichlet_log_prob", lambda T, F, c, v: D(T).Dirichlet(c).log_prob(v.softmax(-1)),
         [Arg(S, "positive"), Arg(S)]),
    Case("dirichlet_broadcast_log_prob", lambda T, F, c, v: D(T).Dirichlet(c).log_prob(
        v.softmax(-1)), [Arg((4,), "positive"), Arg((2, 3, 4))]),
    Case("dirichlet_entropy", lambda T, F, c: D(T).Dirichlet(c).entropy(),
         [Arg(S, "positive")]),
    Case("dirichlet_moments", lambda T, F, c: D(T).Dirichlet(c).mean
         + D(T).Dirichlet(c).variance + D(T).Dirichlet(c + 1).mode, [Arg(S, "positive")]),
    # StudentT
    Case("student_t_log_prob", lambda T, F, df, m, s, v: D(T).StudentT(df, m, s).log_prob(v),
         [Arg(S, "positive"), Arg(S), Arg(S, "positive"), Arg(S)]),
    Case("student_t_entropy_moments", lambda T, F, df, m, s: D(T).StudentT(df, m, s).entropy()
         + D(T).StudentT(df + 2, m, s).mean + D(T).StudentT(df + 2, m, s).variance
         + D(T).StudentT(df, m, s).mode, [Arg(S, "positive"), Arg(S), Arg(S, "positive")]),
    Case("student_t_default_loc_scale", lambda T, F, df, v: D(T).StudentT(df).log_prob(v)
         + D(T).StudentT(df).entropy(), [Arg(S, "positive"), Arg(S)]),
    # InverseGamma
    Case("inverse_gamma_log_prob", lambda T, F, c, r, v: D(T).InverseGamma(c, r).log_prob(v),
         [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "positive")]),
    Case("inverse_gamma_entropy_moments", lambda T, F, c, r: D(T).InverseGamma(c, r).entropy()
         + _moments(D(T).InverseGamma(c + 2, r)), [Arg(S, "positive"), Arg(S, "positive")]),
    # FisherSnedecor (df1 > 2 and df2 > 4 for finite moments)
    Case("fisher_snedecor_log_prob", lambda T, F, a, b, v: D(T).FisherSnedecor(a, b)
         .log_prob(v), [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "positive")]),
    Case("fisher_snedecor_moments", lambda T, F, a, b: _moments(D(T).FisherSnedecor(
        a + 2, b + 4)), [Arg(S, "positive"), Arg(S, "positive")]),
    # Kumaraswamy
    Case("kumaraswamy_log_prob", lambda T, F, a, b, v: D(T).Kumaraswamy(a, b).log_prob(v),
         [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "prob")]),
    Case("kumaraswamy_cdf_icdf", lambda T, F, a, b, v, u: D(T).Kumaraswamy(a, b).cdf(v)
         + D(T).Kumaraswamy(a, b).icdf(_unit(u)),
         [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "prob"), Arg(S, "prob")]),
    Case("kumaraswamy_entropy_moments", lambda T, F, a, b: D(T).Kumaraswamy(a, b).entropy()
         + D(T).Kumaraswamy(a, b).mean + D(T).Kumaraswamy(a, b).variance,
         [Arg(S, "positive"), Arg(S, "positive")]),
    # KL
    Case("kl_beta_beta", lambda T, F, a, b, c, d: D(T).kl_divergence(
        D(T).Beta(a, b), D(T).Beta(c, d)), [Arg(S, "positive")] * 4),
    Case("kl_dirichlet_dirichlet", lambda T, F, a, b: D(T).kl_divergence(
        D(T).Dirichlet(a), D(T).Dirichlet(b)), [Arg(S, "positive"), Arg((4,), "positive")]),
    Case("kl_beta_exponential", lambda T, F, a, b, r: D(T).kl_divergence(
        D(T).Beta(a, b), D(T).Exponential(r)), [Arg(S, "positive")] * 3),
    Case("kl_beta_gamma", lambda T, F, a, b, c, r: D(T).kl_divergence(
        D(T).Beta(a, b), D(T).Gamma(c, r)), [Arg(S, "positive")] * 4),
    Case("kl_beta_normal", lambda T, F, a, b, m, s: D(T).kl_divergence(
        D(T).Beta(a, b), D(T).Normal(m, s)),
        [Arg(S, "positive"), Arg(S, "positive"), Arg(S), Arg(S, "positive")]),
    Case("kl_beta_uniform", lambda T, F, a, b, lo, w: D(T).kl_divergence(
        D(T).Beta(a, b), D(T).Uniform(-lo, 1 + w)), [Arg(S, "positive")] * 4),
    Case("kl_uniform_beta", lambda T, F, lo, w, a, b: D(T).kl_divergence(
        D(T).Uniform(0.1 * lo, 0.1 * lo + 0.3 * w), D(T).Beta(a, b)),
        [Arg(S, "positive")] * 4),
    # the transforms are compared by their exponents' values: none on meta (nor in PyTorch)
    Case("kl_inverse_gamma_same_transforms", lambda T, F, a, b, c, d: D(T).kl_divergence(
        D(T).InverseGamma(a, b), D(T).InverseGamma(c, d)), [Arg(S, "positive")] * 4,
        meta=False),
]

# PyTorch writes the infinite terms in place (IndexPutBackward0); we use masked_fill
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=("kl_beta_uniform", "kl_uniform_beta", "beta_entropy_moments",
                         "student_t_entropy_moments", "fisher_snedecor_moments"))


# Parameters that only scale or shift the noise (or, for Kumaraswamy, transform a uniform
# draw smoothly): finite differences with the seed fixed see their gradients. A gamma
# draw's concentration is checked statistically below.
RSAMPLE_CASES = [
    Case("student_t_loc_scale", _reseeded(lambda T, df, m, s: D(T).StudentT(df, m, s)),
         [Arg((3,), "positive", grad=False), Arg((3,)), Arg((3,), "positive")]),
    Case("inverse_gamma_rate", _reseeded(lambda T, c, r: D(T).InverseGamma(c, r)),
         [Arg((3,), "positive", grad=False), Arg((3,), "positive")]),
    Case("kumaraswamy", _reseeded(lambda T, a, b: D(T).Kumaraswamy(a, b)),
         [Arg((3,), "positive"), Arg((3,), "positive")]),
]


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_gradcheck(case, device):
    check_gradients(case, device)


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_meta_shapes(case):
    check_meta(case)


K = 40_000


def _mean_and_error(grads):
    grads = grads.astype(np.float64)
    return grads.mean(0), grads.std(0) / np.sqrt(grads.shape[0])


def _one_draw_gradients(make, values, device, statistic=lambda x: x):
    """The gradients of ``statistic`` of one draw per row in each parameter: ``K`` rows of
    the same parameters (given as ``values``), each its own draw."""
    leaves = [mt.full((K,), v, dtype=mt.float64, device=device, requires_grad=True)
              for v in values]
    statistic(make(*leaves).rsample()).sum().backward()
    return [leaf.grad.cpu().numpy() for leaf in leaves]


# (family, parameters, statistic, the derivatives of its exact mean in each parameter)
IMPLICIT = {
    "beta": (lambda a, b: dist.Beta(a, b), (0.7, 2.5), lambda x: x,
             lambda a, b: (b / (a + b) ** 2, -a / (a + b) ** 2)),
    "student_t_df": (lambda df: dist.StudentT(df, 0.0, 1.5), (9.0,), lambda x: x * x,
                     lambda df: (-2 * 1.5 ** 2 / (df - 2) ** 2,)),
    "fisher_snedecor": (lambda a, b: dist.FisherSnedecor(a, b), (5.0, 12.0), lambda x: x,
                        lambda a, b: (0.0, -2 / (b - 2) ** 2)),
    "inverse_gamma": (lambda c, r: dist.InverseGamma(c, r), (6.0, 2.0), lambda x: x,
                      lambda c, r: (-r / (c - 1) ** 2, 1 / (c - 1))),
}


@pytest.mark.parametrize("name", list(IMPLICIT))
def test_rsample_gradients_are_unbiased_for_the_moment_derivative(name, device):
    """E[d statistic(x) / d theta] = d E[statistic(x)] / d theta, within 6 standard errors
    of the mean of ``K`` one-draw gradients (each of which the implicit gamma gradient
    carries)."""
    make, values, statistic, derivative = IMPLICIT[name]
    mt.manual_seed(1)
    grads = _one_draw_gradients(make, values, device, statistic)
    for grad, exact in zip(grads, derivative(*values)):
        mean, error = _mean_and_error(grad)
        assert abs(mean - exact) < 6 * error + 1e-9, (mean, exact, error)
        assert error < 0.05 * max(abs(exact), 0.02)  # the check has power


def test_dirichlet_rsample_gradient_is_unbiased(device):
    concentration = mt.tensor([0.6, 2.0, 4.5], dtype=mt.float64, device=device)
    leaf = concentration.expand(K, 3).clone().requires_grad_()
    mt.manual_seed(2)
    sample = dist.Dirichlet(leaf).rsample()
    assert sample.shape == (K, 3) and sample.device == tensor_device(device)
    sample[:, 0].sum().backward()
    c = concentration.cpu().numpy()
    total = c.sum()
    exact = np.array([(total - c[0]), -c[0], -c[0]]) / total ** 2
    mean, error = _mean_and_error(leaf.grad.cpu().numpy())
    np.testing.assert_array_less(np.abs(mean - exact), 6 * error)
    np.testing.assert_array_less(error, 0.05 * np.abs(exact))


def test_beta_rsample_runs_through_the_standard_gamma():
    a = mt.tensor([0.5, 3.0], requires_grad=True)
    sample = dist.Beta(a, 2.0).rsample((3,))
    assert sample.grad_fn.name() == "SelectBackward0" and sample.shape == (3, 2)
    sample.sum().backward()
    assert a.grad.shape == (2,) and bool(a.grad.isfinite().all())


def _families(device):
    t = lambda values: mt.tensor(values, device=device)  # noqa: E731
    return {
        "beta": dist.Beta(t([0.5, 3.0]), t([0.8, 2.0])),
        "student_t": dist.StudentT(t([5.0, 12.0]), t([1.0, -2.0]), t([2.0, 0.5])),
        "inverse_gamma": dist.InverseGamma(t([6.0, 10.0]), t([2.0, 0.5])),
        "fisher_snedecor": dist.FisherSnedecor(t([4.0, 10.0]), t([15.0, 30.0])),
        "kumaraswamy": dist.Kumaraswamy(t([0.5, 3.0]), t([2.0, 0.7])),
    }


@pytest.mark.parametrize("name", ["beta", "student_t", "inverse_gamma", "fisher_snedecor",
                                  "kumaraswamy"])
def test_sample_moments_match_the_exact_ones(name, device):
    d = _families(device)[name]
    samples = d.sample((N,))
    assert samples.shape == (N, 2) and samples.device == tensor_device(device)
    assert samples.dtype is mt.float32 and not samples.requires_grad
    assert bool(d.support.check(samples).all())
    values = samples.cpu().numpy().astype(np.float64)
    mean, variance = d.mean.cpu().numpy(), d.variance.cpu().numpy()
    np.testing.assert_array_less(np.abs(values.mean(0) - mean), 6 * np.sqrt(variance / N))
    if name == "student_t":  # a fourth moment too few for the variance's own error
        return
    fourth = ((values - values.mean(0)) ** 4).mean(0)
    np.testing.assert_array_less(np.abs(values.var(0) - variance),
                                 6 * np.sqrt((fourth - variance ** 2) / N))


def _torch_families(torch):
    t = torch.tensor
    return {
        "beta": torch.distributions.Beta(t([0.5, 3.0]), t([0.8, 2.0])),
        "student_t": torch.distributions.StudentT(t([5.0, 12.0]), t([1.0, -2.0]),
                                                  t([2.0, 0.5])),
        "inverse_gamma": torch.distributions.InverseGamma(t([6.0, 10.0]), t([2.0, 0.5])),
        "fisher_snedecor": torch.distributions.FisherSnedecor(t([4.0, 10.0]),
                                                              t([15.0, 30.0])),
        "kumaraswamy": torch.distributions.Kumaraswamy(t([0.5, 3.0]), t([2.0, 0.7])),
    }


@pytest.mark.parametrize("name", ["beta", "student_t", "inverse_gamma", "fisher_snedecor",
                                  "kumaraswamy"])
def test_sample_quantiles_match_torchs_sampler(name, device):
    """At our draws' deciles, the fraction of PyTorch's draws below is the decile within 6
    standard errors of the two-sample difference (the whole law, not only two moments)."""
    torch = pytest.importorskip("torch")
    ours = _families(device)[name].sample((N,)).cpu().numpy()
    torch.manual_seed(0)
    theirs = _torch_families(torch)[name].sample((N,)).numpy()
    for q in (0.1, 0.3, 0.5, 0.7, 0.9):
        cut = np.quantile(ours, q, axis=0)
        np.testing.assert_array_less(np.abs((theirs <= cut).mean(0) - q),
                                     6 * np.sqrt(2 * q * (1 - q) / N))


def test_kumaraswamy_sample_quantiles_match_its_cdf(device):
    d = _families(device)["kumaraswamy"]
    values = d.sample((N,)).cpu().numpy()
    for q in (0.1, 0.5, 0.9):
        cut = d.icdf(mt.full((2,), q, device=device))
        np.testing.assert_allclose(d.cdf(cut).cpu().numpy(), q, rtol=1e-5)
        np.testing.assert_array_less(np.abs((values <= cut.cpu().numpy()).mean(0) - q),
                                     6 * np.sqrt(q * (1 - q) / N))


def test_dirichlet_samples_lie_on_the_simplex_with_the_exact_moments(device):
    concentration = mt.tensor([[0.3, 1.0, 4.0], [2.0, 2.0, 2.0]], device=device)
    d = dist.Dirichlet(concentration)
    samples = d.sample((N,))
    assert samples.shape == (N, 2, 3) and samples.device == tensor_device(device)
    values = samples.cpu().numpy().astype(np.float64)
    np.testing.assert_allclose(values.sum(-1), 1.0, atol=1e-5)
    mean, variance = d.mean.cpu().numpy(), d.variance.cpu().numpy()
    np.testing.assert_array_less(np.abs(values.mean(0) - mean), 6 * np.sqrt(variance / N))


def test_kumaraswamy_mode_is_the_density_maximum():
    """PyTorch 2.13's ``Kumaraswamy.mode`` is NaN everywhere; ours is the argmax of the
    density (on a fine grid), and NaN where a concentration is below 1."""
    a = mt.tensor([2.0, 5.0, 1.5, 0.5], dtype=mt.float64)
    b = mt.tensor([3.0, 1.5, 1.2, 2.0], dtype=mt.float64)
    d = dist.Kumaraswamy(a, b)
    grid = mt.linspace(1e-4, 1 - 1e-4, 20_001, dtype=mt.float64).unsqueeze(-1)
    best = grid.squeeze(-1)[d.log_prob(grid).argmax(0)]
    mode = d.mode
    np.testing.assert_allclose(mode[:3].numpy(), best[:3].numpy(), atol=1e-4)
    assert bool(mode[3].isnan())


def test_the_families_run_on_meta():
    meta = mt.empty(4, 3, device="meta")
    for d in (dist.Beta(meta, meta), dist.StudentT(meta, meta, meta),
              dist.InverseGamma(meta, meta), dist.FisherSnedecor(meta, meta),
              dist.Kumaraswamy(meta, meta)):
        assert d.sample((2,)).is_meta and d.sample((2,)).shape == (2, 4, 3)
        assert d.log_prob(meta).shape == (4, 3) and _moments(d).shape == (4, 3)
    assert dist.Beta(meta, meta).entropy().shape == (4, 3)
    d = dist.Dirichlet(meta)
    assert d.rsample((2,)).shape == (2, 4, 3) and d.log_prob(meta).shape == (4,)
    assert d.mode.shape == (4, 3) and d.entropy().is_meta


REPRS = [
    lambda T: D(T).Beta(2.0, 3.0),
    lambda T: D(T).Beta(T.ones(2), 3.0),
    lambda T: D(T).Dirichlet(T.ones(3)),
    lambda T: D(T).Dirichlet(T.ones(2, 3)),
    lambda T: D(T).StudentT(3.0),
    lambda T: D(T).StudentT(T.ones(2), 0.0, 2.0),
    lambda T: D(T).InverseGamma(2.0, 3.0),
    lambda T: D(T).InverseGamma(T.ones(2) + 2, 3.0),
    lambda T: D(T).FisherSnedecor(5.0, 9.0),
    lambda T: D(T).FisherSnedecor(T.ones(2) + 4, 9.0),
    lambda T: D(T).Kumaraswamy(2.0, 3.0),
    lambda T: D(T).Kumaraswamy(T.ones(2) + 1, 3.0),
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
    assert ours.support.event_dim == theirs.support.event_dim
    assert {k: repr(v) for k, v in ours.arg_constraints.items()} == \
        {k: repr(v) for k, v in theirs.arg_constraints.items()}
    shape = (4,) + tuple(ours.batch_shape)
    expanded_ours, expanded_theirs = ours.expand(shape), theirs.expand(shape)
    assert repr(expanded_ours) == repr(expanded_theirs)
    assert tuple(expanded_ours.batch_shape) == tuple(expanded_theirs.batch_shape)
    assert tuple(expanded_ours.rsample((2,)).shape) == tuple(expanded_theirs.rsample((2,)).shape)
    np.testing.assert_allclose(expanded_ours.mean.numpy(), expanded_theirs.mean.numpy(),
                               rtol=1e-6)
    np.testing.assert_allclose(expanded_ours.variance.numpy(),
                               expanded_theirs.variance.numpy(), rtol=1e-5)
    if isinstance(ours, dist.FisherSnedecor):  # which has no entropy in PyTorch
        with pytest.raises(NotImplementedError):
            ours.entropy()
        return
    np.testing.assert_allclose(expanded_ours.entropy().numpy(),
                               expanded_theirs.entropy().numpy(), rtol=1e-5)


ERRORS = [
    lambda T: D(T).Beta(0.0, 1.0),
    lambda T: D(T).Beta(T.ones(2), T.tensor([1.0, -1.0])),
    lambda T: D(T).Beta(2.0, 3.0).log_prob(T.tensor(1.5)),
    lambda T: D(T).Beta(2.0, 3.0).log_prob(T.ones(2, 1, 3) * 0.5).shape and
    D(T).Beta(T.ones(2), 3.0).log_prob(T.ones(3) * 0.5),
    lambda T: D(T).Dirichlet(T.tensor(1.0)),
    lambda T: D(T).Dirichlet(T.tensor([1.0, -1.0])),
    lambda T: D(T).Dirichlet(T.ones(3)).log_prob(T.tensor([0.5, 0.5, 0.5])),
    lambda T: D(T).Dirichlet(T.ones(3)).log_prob(T.tensor([0.5, 0.5])),
    lambda T: D(T).StudentT(0.0),
    lambda T: D(T).StudentT(1.0, scale=-1.0),
    lambda T: D(T).StudentT(1.0, float("nan")),
    lambda T: D(T).InverseGamma(-1.0, 1.0),
    lambda T: D(T).InverseGamma(1.0, 0.0),
    lambda T: D(T).InverseGamma(1.0, 1.0).log_prob(T.tensor(-1.0)),
    lambda T: D(T).FisherSnedecor(1.0, 0.0),
    lambda T: D(T).FisherSnedecor(1.0, 1.0).log_prob(T.tensor([-1.0, 1.0])),
    lambda T: D(T).Kumaraswamy(0.0, 1.0),
    lambda T: D(T).Kumaraswamy(1.0, 1.0).log_prob(T.tensor(1.5)),
    lambda T: D(T).Beta(1.0, 1.0).cdf(T.tensor(0.5)),
    lambda T: D(T).kl_divergence(D(T).Beta(1.0, 1.0), D(T).Cauchy(0.0, 1.0)),
    lambda T: D(T).kl_divergence(D(T).StudentT(1.0), D(T).StudentT(2.0)),
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
    lambda T: D(T).Dirichlet(T.tensor([[0.5, 0.3, 0.2], [2.0, 3.0, 1.0], [0.5, 0.9, 2.0]]))
    .mode,
    lambda T: D(T).Beta(T.tensor([0.5, 2.0, 0.5]), T.tensor([0.8, 0.5, 3.0])).mode,
    lambda T: D(T).Beta(T.tensor([0.5, 2.0]), 1.0).log_prob(T.tensor([0.0, 1.0])),
    lambda T: D(T).StudentT(T.tensor([0.5, 1.5, 3.0])).mean,
    lambda T: D(T).StudentT(T.tensor([0.5, 1.5, 3.0])).variance,
    lambda T: D(T).InverseGamma(T.tensor([0.5, 1.5, 3.0]), 1.0).mean,
    lambda T: D(T).InverseGamma(T.tensor([0.5, 1.5, 3.0]), 1.0).variance,
    # a NaN concentration is not "> 1": PyTorch's where gives inf
    lambda T: D(T).InverseGamma(T.tensor([float("nan"), 3.0]), 1.0, validate_args=False).mean,
    lambda T: D(T).InverseGamma(T.tensor([float("nan"), 3.0]), 1.0,
                                validate_args=False).variance,
    lambda T: D(T).FisherSnedecor(T.tensor([1.0, 3.0, 5.0]), T.tensor([2.0, 3.0, 5.0])).mean,
    lambda T: D(T).FisherSnedecor(T.tensor([1.0, 3.0, 5.0]), T.tensor([2.0, 3.0, 5.0])).mode,
    lambda T: D(T).FisherSnedecor(T.tensor([1.0, 3.0, 5.0, 2.0]),
                                  T.tensor([2.0, 4.5, 5.0, 3.5])).variance,
    lambda T: D(T).Beta(T.zeros(2, dtype=T.float64) + 2, 1.0).sample((3,)).dtype,
    lambda T: D(T).Beta(2, 3).sample((3,)).dtype,
    lambda T: D(T).StudentT(T.zeros(2, dtype=T.float64) + 2).rsample((3,)).dtype,
    lambda T: D(T).kl_divergence(D(T).Beta(2.0, 3.0), D(T).Uniform(T.tensor([-1.0, 0.1]),
                                                                   T.tensor([1.0, 1.0]))),
    lambda T: D(T).kl_divergence(D(T).Uniform(T.tensor([0.0, -0.1]), T.tensor([1.0, 0.5])),
                                 D(T).Beta(2.0, 3.0)),
    lambda T: D(T).kl_divergence(D(T).Beta(T.ones(2), 3.0), D(T).Pareto(1.0, 2.0)),
    lambda T: D(T).kl_divergence(D(T).Exponential(T.ones(2)), D(T).Beta(1.0, 2.0)),
    lambda T: D(T).kl_divergence(D(T).Gamma(T.ones(2), 1.0), D(T).Beta(1.0, 2.0)),
    lambda T: D(T).kl_divergence(D(T).Pareto(T.ones(2), 1.0), D(T).Beta(1.0, 2.0)),
    lambda T: D(T).kl_divergence(D(T).Normal(T.ones(2), 1.0), D(T).Beta(1.0, 2.0)),
    lambda T: D(T).kl_divergence(D(T).Laplace(T.ones(2), 1.0), D(T).Beta(1.0, 2.0)),
    lambda T: D(T).kl_divergence(D(T).Gumbel(T.ones(2), 1.0), D(T).Beta(1.0, 2.0)),
])
def test_edge_values_match_torch(build):
    ours, theirs = build(mt), build(pytest.importorskip("torch"))
    if not hasattr(theirs, "numpy"):
        assert str(ours) == str(theirs)
        return
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_undefined_moments_pass_torchs_gradients():
    """Where a moment is undefined (NaN), its gradients are PyTorch's: FisherSnedecor puts
    the NaN into df2 before the formula, so df1's gradient there is NaN and df2's 0."""
    torch = pytest.importorskip("torch")
    df1, df2 = [3.0, 5.0, 2.5, 7.0], [3.0, 4.0, 6.0, 9.0]
    grads = []
    for T in (mt, torch):
        a = T.tensor(df1, dtype=T.float64, requires_grad=True)
        b = T.tensor(df2, dtype=T.float64, requires_grad=True)
        d = D(T).FisherSnedecor(a, b)
        (d.variance + d.mean).sum().backward()
        grads.append((a.grad.numpy(), b.grad.numpy()))
    (ours_a, ours_b), (theirs_a, theirs_b) = grads
    assert np.isnan(theirs_a[:2]).all() and np.isfinite(theirs_a[2:]).all()
    np.testing.assert_allclose(ours_a, theirs_a, rtol=1e-10)
    np.testing.assert_allclose(ours_b, theirs_b, rtol=1e-10)
