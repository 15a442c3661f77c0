"""``kl_divergence`` pairs of ``Beta`` and ``Dirichlet``: with each other's own family
and with the other families PyTorch pairs ``Beta`` with. Importing this module registers
them (the package does)."""

from __future__ import annotations

import math

from ..factories import full_like
from .beta import Beta
from .dirichlet import Dirichlet
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    total_p = p.concentration1 + p.concentration0
    total_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + total_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + total_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (total_q - total_p) * total_p.digamma()
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    total_p = p.concentration.sum(-1)
    t1 = total_p.lgamma() - q.concentration.sum(-1).lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - total_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    # E[log X] of the beta variable
    mean_log = p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    return -p.entropy() + t2 - (q.concentration - 1) * mean_log + q.rate * p.mean


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    mean = p.mean
    var_normal = q.scale.pow(2)
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    second_moment = 0.5 * (mean * (1 - mean) / (p.concentration1 + p.concentration0 + 1)
                           + mean.pow(2))
    return -p.entropy() + t2 + (second_moment - q.loc * mean + 0.5 * q.loc.pow(2)) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # q has no mass on part of [0, 1]
    outside = (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)
    return result.masked_fill(outside, math.inf)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    t2 = ((q.concentration1 - 1) * (p.high.xlogy(p.high) - p.low.xlogy(p.low) - width)
          / width)
    high, low = 1 - p.high, 1 - p.low
    t3 = (q.concentration0 - 1) * (high.xlogy(high) - low.xlogy(low) + width) / width
    t4 = (q.concentration1.lgamma() + q.concentration0.lgamma()
          - (q.concentration1 + q.concentration0).lgamma())
    result = t3 + t4 - width.log() - t2
    # p has mass outside [0, 1], where q has none
    outside = (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound)
    return result.masked_fill(outside, math.inf)


# q gives no mass where p has some: infinite everywhere (PyTorch's pairs)
@register_kl(Beta, Pareto)
def _kl_beta_infinity(p, q):
    return full_like(p.concentration1, math.inf)


@register_kl(Exponential, Beta)
def _kl_exponential_infinity(p, q):
    return full_like(p.rate, math.inf)


@register_kl(Gamma, Beta)
def _kl_gamma_infinity(p, q):
    return full_like(p.concentration, math.inf)


@register_kl(Pareto, Beta)
def _kl_pareto_infinity(p, q):
    return full_like(p.scale, math.inf)


@register_kl(Normal, Beta)
@register_kl(Laplace, Beta)
@register_kl(Gumbel, Beta)
def _kl_real_line_infinity(p, q):
    return full_like(p.loc, math.inf)
