"""KL(Pareto || q) for the other families PyTorch pairs a Pareto with: ``Exponential`` and
``Normal`` in closed form (infinite where p's mean, or second moment, is), and ``Uniform``,
infinite (it has no mass above its high, where a Pareto has some). The pairs with ``Beta``,
``Gamma`` and ``ContinuousBernoulli`` live in those families' files. Importing this module
registers them (the package does)."""

from __future__ import annotations

import math

from ..factories import full_like
from .exponential import Exponential
from .kl import register_kl
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    # -H(p) - E_p[log q] needs p's mean alpha scale / (alpha - 1)
    scale_rate = p.scale * q.rate
    t1 = (p.alpha / scale_rate).log()
    t3 = p.alpha * scale_rate / (p.alpha - 1)
    result = t1 - p.alpha.reciprocal() + t3 - 1
    # p's mean is infinite for alpha <= 1
    return result.masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    # -H(p) - E_p[log q] from p's mean alpha c and variance alpha c^2 / (alpha - 2),
    # c = scale / (alpha - 1)
    twice_var_normal = 2 * q.scale.pow(2)
    c = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    variance = p.alpha * c.pow(2) / (p.alpha - 2)
    mean_offset_sq = (p.alpha * c - q.loc).pow(2)
    result = t1 - p.alpha.reciprocal() + (variance + mean_offset_sq) / twice_var_normal - 1
    # p's second moment is infinite for alpha <= 2
    return result.masked_fill(p.alpha <= 2, math.inf)


# q gives no mass where p has some: infinite, of p's shape (PyTorch's pairs)
@register_kl(Pareto, Uniform)
def _kl_pareto_infinity(p, q):
    return full_like(p.scale, math.inf)
