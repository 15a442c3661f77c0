"""The KL pairs PyTorch registers with ``ContinuousBernoulli``: with itself, from Beta,
Uniform and Exponential, to Exponential, Normal and Uniform, and the infinite ones (one
side has mass where the other has none)."""

from __future__ import annotations

import math

from ..broadcast_functions import where
from ..factories import full_like
from .beta import Beta
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform


def _kl_to_continuous_bernoulli(p, q):
    """``-H(p) - E_p[log q(x)]`` for a continuous Bernoulli ``q``: the cross entropy
    needs only p's mean (``log q`` is linear in ``x``)."""
    return -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return _kl_to_continuous_bernoulli(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = _kl_to_continuous_bernoulli(p, q)
    # p has mass outside [0, 1], where q has none (a boundary touching it has no mass)
    outside = (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound)
    return where(outside, math.inf, result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).square()) + q.scale.log()
    t3 = (p.variance + p.mean.square() - 2.0 * q.loc * p.mean) / (2.0 * q.scale.square())
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # q misses part of [0, 1], where p has mass
    outside = (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)
    return where(outside, math.inf, result)


# q gives no mass where p has some: infinite everywhere (PyTorch's pairs)
@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p, q):
    return full_like(p.probs, math.inf)


@register_kl(Exponential, ContinuousBernoulli)
def _kl_exponential_infinity(p, q):
    return full_like(p.rate, math.inf)


@register_kl(Gamma, ContinuousBernoulli)
def _kl_gamma_infinity(p, q):
    return full_like(p.concentration, math.inf)


@register_kl(Pareto, ContinuousBernoulli)
def _kl_pareto_infinity(p, q):
    return full_like(p.scale, math.inf)


@register_kl(Normal, ContinuousBernoulli)
@register_kl(Laplace, ContinuousBernoulli)
@register_kl(Gumbel, ContinuousBernoulli)
def _kl_real_line_infinity(p, q):
    return full_like(p.loc, math.inf)
