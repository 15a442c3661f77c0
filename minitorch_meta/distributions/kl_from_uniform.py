"""KL(Uniform || q) for the other families PyTorch pairs a uniform with, all in closed
form: ``Exponential``, ``Gumbel``, ``Normal`` and ``Pareto`` (infinite where p reaches
below q's support). The pairs with ``Beta``, ``Gamma`` and ``ContinuousBernoulli`` live in
those families' files. Importing this module registers them (the package does)."""

from __future__ import annotations

import math

from .exponential import Exponential
from .gumbel import Gumbel
from .kl import register_kl
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform


def _mean_log(p):
    """E_p[log x] for a uniform on [low, high] with 0 <= low: (x log x - x) between them
    over the width (``xlogy`` so that a low of 0 gives 0 log 0 = 0)."""
    width = p.high - p.low
    return (p.high.xlogy(p.high) - p.low.xlogy(p.low) - width) / width


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    # p has mass below 0, where q has none
    return result.masked_fill(p.low < q.support.lower_bound, math.inf)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    # -H(p) - E_p[log q] with z = (x - q.loc) / q.scale; exp(-z) integrates in closed form
    scale_width = q.scale / (p.high - p.low)
    high_z = (p.high - q.loc) / q.scale
    low_z = (p.low - q.loc) / q.scale
    t1 = scale_width.log() + 0.5 * (high_z + low_z)
    return t1 - scale_width * ((-high_z).exp() - (-low_z).exp())


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    # -H(p) - E_p[log q] from p's variance width^2 / 12 and midpoint
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    # log q(x) = log alpha + alpha log scale - (alpha + 1) log x; PyTorch takes the log of
    # alpha * scale ** alpha * width, which overflows for a large alpha: summed logs do not
    log_normalizer = q.alpha.log() + q.alpha * q.scale.log() + (p.high - p.low).log()
    result = (q.alpha + 1) * _mean_log(p) - log_normalizer
    # p has mass below q's scale, where q has none
    return result.masked_fill(p.low < q.support.lower_bound, math.inf)
