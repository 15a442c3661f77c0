"""Sampling: shapes, dtypes and devices; statistics of 100k draws against the exact moments
(tolerances from the variance of the estimate, 6 standard errors: a chance failure has
probability below 1e-8); seeds; and rsample's gradients (float64 gradcheck with the noise
fixed by reseeding, and meta shapes)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import distributions as dist
from tests.devices import tensor_device
from tests.distributions.helpers import reseeded as _reseeded
from tests.ops.harness import Arg, Case, check_gradients, check_meta, params

N = 100_000


def _assert_moments(samples: np.ndarray, mean: np.ndarray, variance: np.ndarray) -> None:
    """The sample mean and variance over axis 0 are within 6 standard errors of the exact
    ones; the variance's standard error comes from the samples' fourth central moment."""
    n = samples.shape[0]
    centred = samples - samples.mean(0)
    np.testing.assert_array_less(np.abs(samples.mean(0) - mean), 6 * np.sqrt(variance / n))
    fourth = (centred ** 4).mean(0)
    np.testing.assert_array_less(np.abs(samples.var(0) - variance),
                                 6 * np.sqrt((fourth - variance ** 2) / n) + 1e-12)


def _continuous(device):
    t = lambda values: mt.tensor(values, device=device)  # noqa: E731
    return [
        dist.Normal(t([0.0, -2.0]), t([1.0, 0.5])),
        dist.Uniform(t([0.0, -3.0]), t([1.0, 5.0])),
        dist.Exponential(t([0.5, 4.0])),
        dist.Laplace(t([1.0, -1.0]), t([2.0, 0.25])),
        dist.Bernoulli(t([0.1, 0.7])),
        dist.Bernoulli(logits=t([-2.0, 0.5])),
    ]


@pytest.mark.parametrize("index", range(6), ids=["normal", "uniform", "exponential", "laplace",
                                                 "bernoulli", "bernoulli_logits"])
def test_sample_statistics_match_the_exact_moments(index, device):
    d = _continuous(device)[index]
    samples = d.sample((N,))
    assert samples.shape == (N, 2) and samples.device == tensor_device(device)
    assert samples.dtype is mt.float32 and not samples.requires_grad
    _assert_moments(samples.cpu().numpy().astype(np.float64), d.mean.cpu().numpy(),
                    d.variance.cpu().numpy())


def test_sample_support():
    assert (dist.Uniform(2.0, 3.0).sample((N,)) >= 2).all()
    assert (dist.Uniform(2.0, 3.0).sample((N,)) < 3).all()
    assert (dist.Exponential(3.0).sample((N,)) >= 0).all()
    assert mt.isfinite(dist.Laplace(0.0, 1.0).sample((N,))).all()
    assert set(dist.Bernoulli(0.5).sample((1000,)).tolist()) == {0.0, 1.0}


def test_categorical_frequencies_match_the_probabilities(device):
    weights = mt.tensor([[1.0, 2.0, 0.0, 5.0], [4.0, 1.0, 1.0, 2.0]], device=device)
    d = dist.Categorical(weights)
    samples = d.sample((N,))
    assert samples.shape == (N, 2) and samples.dtype is mt.int64
    counts = np.stack([np.bincount(samples.cpu().numpy()[:, row], minlength=4) / N
                       for row in range(2)])
    p = (weights / weights.sum(-1, keepdim=True)).cpu().numpy()
    np.testing.assert_array_less(np.abs(counts - p), 6 * np.sqrt(p * (1 - p) / N) + 1e-12)
    assert counts[0, 2] == 0  # a zero probability is never drawn


def test_one_hot_categorical_samples_are_one_hot_with_the_right_frequencies(device):
    probs = mt.tensor([0.2, 0.3, 0.5], device=device)
    samples = dist.OneHotCategorical(probs).sample((N,))
    assert samples.shape == (N, 3) and samples.dtype is mt.float32
    values = samples.cpu().numpy()
    assert ((values == 0) | (values == 1)).all() and (values.sum(-1) == 1).all()
    _assert_moments(values.astype(np.float64), probs.cpu().numpy(),
                    (probs * (1 - probs)).cpu().numpy())


@pytest.mark.parametrize("make, sample_shape, shape", [
    (lambda: dist.Normal(mt.zeros(3), 1.0), (), (3,)),
    (lambda: dist.Normal(0.0, 1.0), (2, 5), (2, 5)),
    (lambda: dist.Uniform(mt.zeros(2, 3), 1.0), mt.Size([4]), (4, 2, 3)),
    (lambda: dist.Categorical(mt.ones(2, 3)), (5,), (5, 2)),
    (lambda: dist.Categorical(mt.ones(3)), (), ()),
    (lambda: dist.OneHotCategorical(mt.ones(2, 3)), (4,), (4, 2, 3)),
    (lambda: dist.Independent(dist.Normal(mt.zeros(2, 3), 1.0), 1), (4,), (4, 2, 3)),
    (lambda: dist.Bernoulli(0.5), [3], (3,)),
])
def test_sample_shape_is_sample_then_batch_then_event(make, sample_shape, shape):
    assert make().sample(sample_shape).shape == shape


def test_samples_follow_the_parameters_dtype_and_meta_device():
    assert dist.Normal(mt.zeros(2, dtype=mt.float64), 1.0).sample().dtype is mt.float64
    assert dist.Exponential(mt.ones(2, dtype=mt.float64)).rsample((3,)).dtype is mt.float64
    for d in (dist.Normal(mt.zeros(2, device="meta"), 1.0),
              dist.Laplace(mt.zeros(2, device="meta"), 1.0),
              dist.Bernoulli(mt.full((2,), 0.5, device="meta")),
              dist.Categorical(mt.ones(2, 3, device="meta"))):
        sample = d.sample((2**20,))
        assert sample.is_meta and sample.shape == (2**20, 2)


def test_manual_seed_reproduces_the_draws():
    d = dist.Normal(mt.zeros(3), 1.0)
    mt.manual_seed(7)
    first = d.sample((4,)).tolist()
    mt.manual_seed(7)
    assert d.sample((4,)).tolist() == first


def test_rsample_is_in_the_graph_and_sample_is_not():
    loc, scale = mt.zeros(3, requires_grad=True), mt.ones(3, requires_grad=True)
    d = dist.Normal(loc, scale)
    assert d.rsample().grad_fn is not None and d.sample().grad_fn is None
    assert dist.Bernoulli(mt.full((2,), 0.5, requires_grad=True)).sample().grad_fn is None
    assert dist.Categorical(mt.ones(3, requires_grad=True)).sample().grad_fn is None


def test_rsample_gradients_are_the_noise():
    loc, scale = mt.zeros(4, requires_grad=True), mt.full((4,), 2.0, requires_grad=True)
    x = dist.Normal(loc, scale).rsample((3,))
    x.sum().backward()
    assert loc.grad.tolist() == [3.0] * 4
    noise = (x.detach() - loc.detach()) / scale.detach()
    np.testing.assert_allclose(scale.grad.numpy(), noise.sum(0).numpy(), rtol=1e-6)


RSAMPLE_CASES = [
    Case("normal_rsample", _reseeded(lambda T, m, s: T.distributions.Normal(m, s)),
         [Arg((3,)), Arg((3,), "positive")]),
    Case("uniform_rsample", _reseeded(lambda T, lo, w: T.distributions.Uniform(lo, lo + w)),
         [Arg((2, 3)), Arg((2, 3), "positive")]),
    Case("exponential_rsample", _reseeded(lambda T, r: T.distributions.Exponential(r)),
         [Arg((3,), "positive")]),
    Case("laplace_rsample", _reseeded(lambda T, m, s: T.distributions.Laplace(m, s)),
         [Arg((3,)), Arg((3,), "positive")]),
    Case("independent_rsample", _reseeded(
        lambda T, m, s: T.distributions.Independent(T.distributions.Normal(m, s), 1)),
        [Arg((2, 3)), Arg((2, 3), "positive")]),
]


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_gradcheck(case, device):
    check_gradients(case, device)


@pytest.mark.parametrize("case", params(RSAMPLE_CASES))
def test_rsample_meta_shapes(case):
    check_meta(case)


@pytest.mark.parametrize("make", [
    lambda: dist.Bernoulli(0.5), lambda: dist.Categorical(mt.ones(3)),
    lambda: dist.OneHotCategorical(mt.ones(3)),
    lambda: dist.Independent(dist.Bernoulli(mt.full((2,), 0.5)), 1),
])
def test_discrete_distributions_have_no_rsample(make):
    d = make()
    assert not d.has_rsample
    with pytest.raises(NotImplementedError, match="has no reparameterised sampler"):
        d.rsample()


def test_categorical_sample_of_no_draw_raises_as_torch():
    with pytest.raises(RuntimeError, match="cannot sample n_sample <= 0 samples"):
        dist.Categorical(mt.ones(3)).sample((0,))
