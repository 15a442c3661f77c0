"""``ExponentialFamily`` (the class hierarchy PyTorch has, its generic Bregman entropy and
KL, differentiable in every parameter) and the top-level exports of the
transforms."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import distributions as dist
from minitorch_meta.distributions import kl
from tests.distributions.helpers import errors_of_both


def _torch():
    return pytest.importorskip("torch")


def test_every_transform_is_exported_at_the_top_as_torchs():
    torch = _torch()
    names = [n for n in torch.distributions.__all__
             if n.endswith("Transform") or n == "identity_transform"]
    ours = [n for n in names if hasattr(dist.transforms, n)]
    assert len(ours) >= 13
    for name in ours:
        assert getattr(dist, name) is getattr(dist.transforms, name)
        assert name in dist.__all__


def test_the_class_hierarchy_is_torchs():
    """For every distribution class both have, ``issubclass`` against every other one
    (``ExponentialFamily`` and ``TransformedDistribution`` included) agrees."""
    torch = _torch()
    names = [n for n in dist.__all__ if inspect.isclass(getattr(dist, n))
             and issubclass(getattr(dist, n), dist.Distribution)]
    assert "ExponentialFamily" in names and "Beta" in names
    for a in names:
        for b in names:
            theirs = issubclass(getattr(torch.distributions, a), getattr(torch.distributions, b))
            assert issubclass(getattr(dist, a), getattr(dist, b)) == theirs, (a, b)


def _families(T):
    t = T.tensor
    return [T.distributions.Normal(t([0.3, -1.0]), t([2.0, 0.5])),
            T.distributions.Bernoulli(t([0.2, 0.7])),
            T.distributions.Exponential(t([0.2, 3.0])),
            T.distributions.Gamma(t([0.5, 3.0]), t([2.0, 0.3])),
            T.distributions.Chi2(t([0.5, 3.0]))]


@pytest.mark.parametrize("index", range(5))
def test_the_generic_entropy_is_the_closed_form_one(index):
    torch = _torch()
    ours, theirs = _families(mt)[index], _families(torch)[index]
    generic = dist.ExponentialFamily.entropy(ours)
    np.testing.assert_allclose(generic.numpy(), ours.entropy().numpy(), rtol=1e-5)
    np.testing.assert_allclose(generic.numpy(),
                               torch.distributions.ExponentialFamily.entropy(theirs)
                               .detach().numpy(), rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda T, a, b: T.distributions.Normal(a, b),
    lambda T, a, b: T.distributions.Gamma(a, b),
    lambda T, a, b: T.distributions.Beta(a, b),
    lambda T, a, b: T.distributions.Dirichlet(T.stack([a, b], -1)),
    lambda T, a, b: T.distributions.Poisson(a),
])
def test_the_generic_kl_is_the_closed_form_one_and_differentiable_in_q(make):
    """``_kl_expfamily_expfamily`` (what PyTorch uses for a family of no closed form) gives
    the registered closed form's value, and its gradient in q's parameters."""
    torch = _torch()
    values = [np.array(v, np.float64) for v in ([0.7, 2.0], [1.5, 0.4], [2.5, 0.9],
                                                [0.6, 3.0])]
    q_ours = [mt.tensor(v, requires_grad=True) for v in values[2:]]
    q_theirs = [torch.tensor(v, requires_grad=True) for v in values[2:]]
    p_ours = make(mt, *(mt.tensor(v) for v in values[:2]))
    p_theirs = make(torch, *(torch.tensor(v) for v in values[:2]))
    ours = kl._kl_expfamily_expfamily(p_ours, make(mt, *q_ours))
    theirs = torch.distributions.kl._kl_expfamily_expfamily(p_theirs, make(torch, *q_theirs))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)
    if not isinstance(p_ours, dist.Poisson):  # no closed form registered for Poisson's
        closed = dist.kl_divergence(p_ours, make(mt, *q_ours))
        np.testing.assert_allclose(ours.detach().numpy(), closed.detach().numpy(), rtol=1e-6)
    ours.sum().backward()
    theirs.sum().backward()
    for a, b in zip(q_ours, q_theirs):
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6)


def test_a_user_family_gets_the_generic_kl_and_entropy():
    """A subclass with only the three hooks (a rate-parameterised exponential law) gets
    ``kl_divergence`` and ``entropy`` from the Bregman divergence of its log normalizer."""

    class Rate(dist.ExponentialFamily):
        arg_constraints = {}
        _mean_carrier_measure = 0

        def __init__(self, rate):
            self.rate = rate
            super().__init__(rate.shape)

        @property
        def _natural_params(self):
            return (-self.rate,)

        def _log_normalizer(self, x):
            return -(-x).log()

    p, q = mt.tensor([0.5, 2.0]), mt.tensor([1.5, 1.0])
    expected = dist.kl_divergence(dist.Exponential(p), dist.Exponential(q))
    np.testing.assert_allclose(dist.kl_divergence(Rate(p), Rate(q)).numpy(),
                               expected.numpy(), rtol=1e-6)
    np.testing.assert_allclose(Rate(p).entropy().numpy(),
                               dist.Exponential(p).entropy().numpy(), rtol=1e-6)


def _gradients(make, forms):
    """The gradients, in p's and q's parameters, of the product of ``forms(p, q)``."""
    values = ([0.7, 2.0], [1.5, 0.4], [2.5, 0.9], [0.6, 3.0])
    leaves = [mt.tensor(v, dtype=mt.float64, requires_grad=True) for v in values]
    p, q = make(*leaves[:2]), make(*leaves[2:])
    result = 1
    for form in forms(p, q):
        result = result * form
    return [g.numpy() for g in mt.autograd.grad(result.sum(), leaves, allow_unused=True,
                                                materialize_grads=True)]


def _assert_same_gradients(ours, expected):
    for a, b in zip(ours, expected):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("make", [
    lambda a, b: dist.Normal(a, b),
    lambda a, b: dist.Gamma(a, b),
    lambda a, b: dist.Beta(a, b),
    lambda a, b: dist.Dirichlet(mt.stack([a, b], -1)),
])
def test_the_generic_kl_passes_the_closed_forms_gradients_to_p_and_q(make):
    """Differentiated through dF/dtheta (second-order formulas, lgamma's and digamma's
    included), the generic KL gives the closed form's gradients in every parameter
    (PyTorch's detaches p's natural parameters and gives them none)."""
    _assert_same_gradients(_gradients(make, lambda p, q: [kl._kl_expfamily_expfamily(p, q)]),
                           _gradients(make, lambda p, q: [dist.kl_divergence(p, q)]))


@pytest.mark.parametrize("make", [lambda a, b: dist.Normal(a, b),
                                  lambda a, b: dist.Gamma(a, b)])
def test_the_generic_entropy_passes_the_closed_forms_gradients(make):
    """(Beta and Dirichlet have no carrier measure, in PyTorch either.)"""
    entropies = lambda p, q: [dist.ExponentialFamily.entropy(p),  # noqa: E731
                              dist.ExponentialFamily.entropy(q)]
    _assert_same_gradients(_gradients(make, entropies),
                           _gradients(make, lambda p, q: [p.entropy(), q.entropy()]))


def test_the_generic_forms_are_plain_values_without_a_gradient_wanted():
    loc = mt.tensor([0.5, 1.0], requires_grad=True)
    p, q = dist.Normal(loc, 1.0), dist.Normal(0.0, 2.0)
    with mt.no_grad():
        value = kl._kl_expfamily_expfamily(p, q)
        entropy = dist.ExponentialFamily.entropy(p)
    assert not value.requires_grad and not entropy.requires_grad
    np.testing.assert_allclose(value.numpy(), dist.kl_divergence(p, q).detach().numpy(),
                               rtol=1e-6)
    fixed = dist.Normal(mt.tensor([0.5, 1.0]), 1.0)
    assert not dist.ExponentialFamily.entropy(fixed).requires_grad


@pytest.mark.parametrize("call", [
    lambda T: T.distributions.kl_divergence(T.distributions.Normal(0.0, 1.0),
                                            T.distributions.Bernoulli(0.3)),
    lambda T: T.distributions.kl_divergence(T.distributions.Beta(1.0, 2.0),
                                            T.distributions.Dirichlet(T.ones(2))),
    lambda T: T.distributions.Dirichlet(T.ones(2)).expand((3,)).perplexity().shape and
    T.distributions.ExponentialFamily.entropy(T.distributions.Beta(1.0, 2.0)),
    lambda T: T.distributions.Poisson(2.0).entropy(),
])
def test_errors_are_torchs_type_and_text(call):
    theirs, ours = errors_of_both(call)
    assert str(ours) == str(theirs) or (
        isinstance(theirs, NotImplementedError) and not str(theirs))
