"""RelaxedBernoulli, LogitRelaxedBernoulli, RelaxedOneHotCategorical,
ExpRelaxedCategorical and LogisticNormal: log_prob three ways (float64 gradcheck, float32
values and gradients against PyTorch, meta shapes); rsample's gradients with the noise
fixed; the laws of the samples (exact ones where the relaxation keeps them, else against
PyTorch's sampler); reprs, constraints, expand and PyTorch's validation errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import distributions as dist
from tests.devices import tensor_device
from tests.distributions.helpers import D
from tests.distributions.helpers import reseeded as _reseeded
from tests.ops.harness import Arg, Case, check_gradients, check_meta, params, three_way_tests

S = (3, 4)


def _logit_relaxed(T, *args, **kwargs):
    return D(T).relaxed_bernoulli.LogitRelaxedBernoulli(*args, **kwargs)


def _exp_relaxed(T, *args, **kwargs):
    return D(T).relaxed_categorical.ExpRelaxedCategorical(*args, **kwargs)


CASES = [
    Case("relaxed_bernoulli_logits", lambda T, F, t, lg, v: D(T).RelaxedBernoulli(
        t, logits=lg).log_prob(v), [Arg((3, 1), "positive"), Arg(S), Arg((2, 3, 4), "prob")]),
    Case("relaxed_bernoulli_probs", lambda T, F, t, p, v: D(T).RelaxedBernoulli(
        t, probs=p).log_prob(v), [Arg(S, "positive"), Arg(S, "prob"), Arg(S, "prob")]),
    Case("logit_relaxed_bernoulli", lambda T, F, t, p, v: _logit_relaxed(T, t, probs=p)
         .log_prob(v), [Arg((4,), "positive"), Arg(S, "prob"), Arg((2, 3, 4))]),
    Case("relaxed_one_hot_logits", lambda T, F, t, lg, v: D(T).RelaxedOneHotCategorical(
        t, logits=lg).log_prob(v.softmax(-1)), [Arg((), "positive"), Arg(S), Arg((2, 3, 4))]),
    Case("relaxed_one_hot_probs", lambda T, F, t, p, v: D(T).RelaxedOneHotCategorical(
        t, probs=p.softmax(-1)).log_prob(v.softmax(-1)),
        [Arg((), "positive"), Arg((4,)), Arg(S)]),
    Case("exp_relaxed_categorical", lambda T, F, t, lg, v: _exp_relaxed(T, t, logits=lg)
         .log_prob(v.log_softmax(-1)), [Arg((), "positive"), Arg(S), Arg((2, 3, 4))]),
    Case("logistic_normal", lambda T, F, m, s, v: D(T).LogisticNormal(m, s).log_prob(
        v.softmax(-1)), [Arg((3, 3)), Arg((3, 3), "positive"), Arg((2, 3, 4))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


@pytest.mark.parametrize("build", [
    lambda T, v: D(T).RelaxedBernoulli(T.tensor(0.7), probs=0.3).log_prob(v.sigmoid()),
    lambda T, v: D(T).LogisticNormal(0.5, 2.0).log_prob(v[..., :2].softmax(-1)),
])
def test_number_parameters_match_torch(build):
    """A number parameter becomes a CPU tensor (as PyTorch's), so these run on the CPU."""
    torch = pytest.importorskip("torch")
    value = np.random.default_rng(8).standard_normal((3, 4))
    ours = mt.tensor(value, requires_grad=True)
    theirs = torch.tensor(value, requires_grad=True)
    out, ref = build(mt, ours), build(torch, theirs)
    assert str(out.dtype) == str(ref.dtype)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-6)


RSAMPLE_CASES = [
    Case("relaxed_bernoulli", _reseeded(lambda T, t, lg: D(T).RelaxedBernoulli(t, logits=lg)),
         [Arg((4,), "positive"), Arg(S)]),
    Case("logit_relaxed_bernoulli", _reseeded(lambda T, t, p: _logit_relaxed(T, t, probs=p)),
         [Arg((3, 1), "positive"), Arg(S, "prob")]),
    Case("relaxed_one_hot", _reseeded(lambda T, t, lg: D(T).RelaxedOneHotCategorical(
        t, logits=lg)), [Arg((), "positive"), Arg(S)]),
    Case("exp_relaxed_categorical", _reseeded(lambda T, t, p: _exp_relaxed(
        T, t, probs=p.softmax(-1))), [Arg((), "positive"), Arg(S)]),
    Case("logistic_normal", _reseeded(lambda T, m, s: D(T).LogisticNormal(m, s)),
         [Arg(S), Arg(S, "positive")]),
]


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_gradcheck(case, device):
    check_gradients(case, device)


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_meta_shapes(case):
    check_meta(case)


N = 100_000


def _tolerance(p, n=N):
    return 6 * np.sqrt(p * (1 - p) / n)


def test_relaxed_bernoulli_keeps_the_coins_law(device):
    """``P(X > 1/2) = probs`` at any temperature, and the logit ``(L + l) / t`` (``L``
    logistic) has the cdf ``sigmoid(t x - l)``."""
    temperature = mt.tensor([0.3, 1.0, 4.0], device=device)
    logits = mt.tensor([-1.5, 0.0, 2.0], device=device)
    mt.manual_seed(5)
    samples = dist.RelaxedBernoulli(temperature, logits=logits).sample((N,))
    assert samples.shape == (N, 3) and samples.device == tensor_device(device)
    assert not samples.requires_grad and samples.dtype is mt.float32
    values = samples.cpu().numpy()
    assert ((values > 0) & (values < 1)).all()
    probs = 1 / (1 + np.exp(-logits.cpu().numpy()))
    np.testing.assert_array_less(np.abs((values > 0.5).mean(0) - probs), _tolerance(probs))
    logit_values = _logit_relaxed(mt, temperature, logits=logits).sample((N,)).cpu().numpy()
    t, lg = temperature.cpu().numpy(), logits.cpu().numpy()
    for x in (-2.0, -0.5, 0.5, 3.0):
        cdf = 1 / (1 + np.exp(-(t * x - lg)))
        np.testing.assert_array_less(np.abs((logit_values <= x).mean(0) - cdf),
                                     _tolerance(cdf) + 1e-9)


def test_relaxed_one_hot_argmax_is_categorical(device):
    """The Gumbel-max trick: the largest entry of a sample is a ``Categorical(probs)``
    draw, whatever the temperature; every sample lies on the simplex."""
    probs = mt.tensor([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], device=device)
    mt.manual_seed(6)
    samples = dist.RelaxedOneHotCategorical(mt.tensor(2.5, device=device), probs=probs) \
        .sample((N,))
    assert samples.shape == (N, 2, 3) and samples.device == tensor_device(device)
    values = samples.cpu().numpy().astype(np.float64)
    np.testing.assert_allclose(values.sum(-1), 1.0, atol=1e-5)
    counts = np.stack([(values.argmax(-1) == k).mean(0) for k in range(3)], -1)
    expected = probs.cpu().numpy()
    np.testing.assert_array_less(np.abs(counts - expected), _tolerance(expected))
    logs = _exp_relaxed(mt, mt.tensor(0.5, device=device), probs=probs).sample((N,))
    np.testing.assert_allclose(logs.exp().sum(-1).cpu().numpy(), 1.0, rtol=1e-5)


def _two_sample(build, device, coordinate):
    """At our draws' deciles, the fraction of PyTorch's draws below is the decile within 6
    standard errors of the two-sample difference."""
    torch = pytest.importorskip("torch")
    mt.manual_seed(7)
    ours = build(mt, device).sample((N,))[..., coordinate].cpu().numpy()
    torch.manual_seed(0)
    theirs = build(torch, "cpu").sample((N,))[..., coordinate].numpy()
    for q in (0.1, 0.3, 0.5, 0.7, 0.9):
        cut = np.quantile(ours, q, axis=0)
        np.testing.assert_array_less(np.abs((theirs <= cut).mean(0) - q),
                                     6 * np.sqrt(2 * q * (1 - q) / N))


@pytest.mark.parametrize("coordinate", [0, 2])
def test_logistic_normal_samples_follow_torchs_law(coordinate, device):
    _two_sample(lambda T, dev: D(T).LogisticNormal(
        T.tensor([[0.5, -1.0], [2.0, 0.0]], device=dev),
        T.tensor([[1.0, 0.3], [0.5, 2.0]], device=dev)), device, coordinate)


def test_relaxed_one_hot_samples_follow_torchs_law(device):
    _two_sample(lambda T, dev: D(T).RelaxedOneHotCategorical(
        T.tensor(0.7, device=dev), logits=T.tensor([[0.5, -1.0, 1.0]], device=dev)), device, 0)


def test_the_families_run_on_meta():
    meta = mt.empty(3, 4, device="meta")
    temperature = mt.empty((), device="meta")
    for d in (dist.RelaxedBernoulli(temperature, logits=meta),
              _logit_relaxed(mt, temperature, probs=meta)):
        assert d.rsample((2,)).shape == (2, 3, 4) and d.log_prob(meta).shape == (3, 4)
    for d in (dist.RelaxedOneHotCategorical(temperature, probs=meta),
              _exp_relaxed(mt, temperature, logits=meta), dist.LogisticNormal(meta[:, :3],
                                                                              meta[:, :3])):
        assert d.rsample((2,)).shape == (2, 3, 4) and d.log_prob(meta).shape == (3,)
        assert d.sample().is_meta


REPRS = [
    lambda T: D(T).RelaxedBernoulli(T.tensor(0.5), probs=0.3),
    lambda T: D(T).RelaxedBernoulli(T.tensor([0.5, 2.0]), logits=T.zeros(2)),
    lambda T: _logit_relaxed(T, T.tensor(0.5), probs=T.ones(2) / 2),
    lambda T: _logit_relaxed(T, T.tensor(0.5), logits=1.0),
    lambda T: D(T).RelaxedOneHotCategorical(T.tensor(0.5), probs=T.ones(2, 3) / 3),
    lambda T: _exp_relaxed(T, T.tensor(0.5), logits=T.zeros(3)),
    lambda T: D(T).LogisticNormal(T.zeros(2, 3), T.ones(3)),
    lambda T: D(T).LogisticNormal(0.0, 1.0),
]


@pytest.mark.parametrize("build", REPRS)
def test_repr_shapes_support_and_constraints_are_torchs(build):
    torch = pytest.importorskip("torch")
    ours, theirs = build(mt), build(torch)
    assert repr(ours) == repr(theirs)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert repr(ours.support) == repr(theirs.support)
    assert ours.has_rsample == theirs.has_rsample
    assert {k: repr(v) for k, v in ours.arg_constraints.items()} == \
        {k: repr(v) for k, v in theirs.arg_constraints.items()}
    shape = (5,) + tuple(ours.batch_shape)
    expanded_ours, expanded_theirs = ours.expand(shape), theirs.expand(shape)
    assert type(expanded_ours) is type(ours)
    assert repr(expanded_ours) == repr(expanded_theirs)
    assert tuple(expanded_ours.batch_shape) == tuple(expanded_theirs.batch_shape)
    sample = expanded_theirs.sample((2,))
    assert tuple(expanded_ours.rsample((2,)).shape) == tuple(sample.shape)
    np.testing.assert_allclose(expanded_ours.log_prob(mt.tensor(sample.numpy())).numpy(),
                               expanded_theirs.log_prob(sample).numpy(), rtol=1e-5, atol=1e-5)
    for method in ("entropy", "mean", "variance"):  # none of these are given in PyTorch
        with pytest.raises(NotImplementedError):
            attribute = getattr(ours, method)
            attribute()


ERRORS = [
    lambda T: D(T).RelaxedBernoulli(T.tensor(0.5)),
    lambda T: D(T).RelaxedBernoulli(T.tensor(0.5), probs=0.5, logits=0.0),
    lambda T: D(T).RelaxedBernoulli(T.tensor(0.5), probs=T.tensor([0.5, 1.5])),
    lambda T: D(T).RelaxedBernoulli(T.tensor(0.5), logits=T.tensor([float("nan")])),
    lambda T: D(T).RelaxedBernoulli(T.tensor(0.5), probs=0.5).log_prob(T.tensor(1.5)),
    lambda T: _logit_relaxed(T, T.tensor(0.5), probs=T.tensor([-0.5])),
    lambda T: _logit_relaxed(T, T.tensor(0.5), probs=0.5).log_prob(T.tensor(float("nan"))),
    lambda T: D(T).RelaxedOneHotCategorical(T.tensor(0.5)),
    lambda T: D(T).RelaxedOneHotCategorical(T.tensor(0.5), probs=T.tensor(1.0)),
    lambda T: D(T).RelaxedOneHotCategorical(T.tensor(0.5), probs=T.tensor([-0.5, 1.5])),
    lambda T: D(T).RelaxedOneHotCategorical(T.tensor(0.5), logits=T.zeros(3)).log_prob(
        T.tensor([0.5, 0.6, 0.1])),
    lambda T: D(T).RelaxedOneHotCategorical(T.tensor(0.5), logits=T.zeros(3)).log_prob(
        T.tensor([0.5, 0.5])),
    lambda T: _exp_relaxed(T, T.tensor(0.5), logits=T.zeros(3)).log_prob(
        T.tensor([0.0, float("nan"), 0.0])),
    lambda T: D(T).LogisticNormal(0.0, -1.0),
    lambda T: D(T).LogisticNormal(T.zeros(2), 1.0).log_prob(T.tensor([0.5, 0.6, 0.1])),
    lambda T: D(T).LogisticNormal(T.zeros(2), 1.0).log_prob(T.tensor([0.5, 0.5])),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_torchs_type_and_text(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(mt)
    assert str(ours.value) == str(theirs.value)
