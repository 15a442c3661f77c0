"""``kl_divergence`` pairs of ``Gamma`` (and ``Chi2``), ``Poisson`` and ``Binomial``:
with each other and with the other families PyTorch pairs them with. Importing this module
registers them (the package does)."""

from __future__ import annotations

import math

from ..factories import full_like
from .bernoulli import Bernoulli
from .binomial import Binomial
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import EULER_CONSTANT, Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    fewer = p.total_count < q.total_count
    if not fewer.is_meta and bool(fewer.any()):  # meta has no counts to compare
        raise NotImplementedError("KL between Binomials where q.total_count > "
                                  "p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    # q cannot reach p's largest counts
    return kl.masked_fill(p.total_count > q.total_count, math.inf)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    return (-q.concentration * ratio.log() + ratio + q.concentration.lgamma()
            + q.concentration * EULER_CONSTANT - (1 + EULER_CONSTANT))


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    c = p.concentration
    beta_scale = p.rate * q.scale
    loc_scale = q.loc / q.scale
    t1 = (c - 1) * c.digamma() - c.lgamma() - c
    t2 = beta_scale.log() + c / beta_scale
    t3 = loc_scale.exp() * (1 + beta_scale.reciprocal()).pow(-c) - loc_scale
    return t1 + t2 + t3


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    c = p.concentration
    var_normal = q.scale.pow(2)
    beta_sq = p.rate.pow(2)
    t1 = 0.5 * (beta_sq * var_normal * 2 * math.pi).log() - c - c.lgamma()
    t2 = 0.5 * (c.pow(2) + c) / beta_sq
    t3 = q.loc * c / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (c - 1) * c.digamma() + (t2 - t3 + t4) / var_normal


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    common = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    # p's mean is infinite for alpha <= 1
    return (t1 + t2 + t3 + t4 - 1).masked_fill(p.alpha <= 1, math.inf)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = ((1 - q.concentration) * (p.high.xlogy(p.high) - p.low.xlogy(p.low) - width)
          / width)
    t4 = q.rate * (p.high + p.low) / 2
    # p has mass below 0, where q has none
    return (-width.log() + t2 + t3 + t4).masked_fill(p.low < q.support.lower_bound, math.inf)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


# q gives no mass where p has some: infinite everywhere (PyTorch's pairs)
@register_kl(Gamma, Pareto)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinity(p, q):
    return full_like(p.concentration, math.inf)


@register_kl(Normal, Gamma)
@register_kl(Laplace, Gamma)
@register_kl(Gumbel, Gamma)
def _kl_real_line_gamma(p, q):
    return full_like(p.loc, math.inf)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p, q):
    return full_like(p.rate, math.inf)
