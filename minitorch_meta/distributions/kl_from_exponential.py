"""KL(Exponential || q) for the other families PyTorch pairs an exponential with:
``Gumbel`` and ``Normal`` in closed form, and the infinite ones (``Pareto`` has no mass
below its scale, ``Uniform`` none above its high, where an exponential has some). The pairs
with ``Beta``, ``Gamma`` and ``ContinuousBernoulli`` live in those families' files.
Importing this module registers them (the package does)."""

from __future__ import annotations

import math

from ..factories import full_like
from .exponential import Exponential
from .gumbel import Gumbel
from .kl import register_kl
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    # -H(p) - E_p[log q] with z = (x - q.loc) / q.scale: E_p[exp(-x / scale)] is
    # rate scale / (rate scale + 1), the exponential's moment generating function
    scale_rate = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    t1 = scale_rate.log() - 1
    t2 = loc_ratio.exp() * scale_rate / (scale_rate + 1)
    return t1 - loc_ratio + t2 + scale_rate.reciprocal()


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    # -H(p) - E_p[log q] from p's moments 1 / rate and 2 / rate^2
    var_normal = q.scale.pow(2)
    rate_sq = p.rate.pow(2)
    t1 = 0.5 * (rate_sq * var_normal * 2 * math.pi).log()
    moments = rate_sq.reciprocal() - q.loc / p.rate + 0.5 * q.loc.pow(2)
    return t1 - 1 + moments / var_normal


# q gives no mass where p has some: infinite, of p's shape (PyTorch's pairs)
@register_kl(Exponential, Pareto)
@register_kl(Exponential, Uniform)
def _kl_exponential_infinity(p, q):
    return full_like(p.rate, math.inf)
