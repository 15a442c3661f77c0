"""KL(Normal || q) for the other families PyTorch pairs a normal with: ``Gumbel`` and
``Laplace`` in closed form, and the infinite ones (``Exponential``, ``Pareto``, ``Uniform``:
a normal has mass on the whole line, they have none beyond a bound). The pairs with
``Beta``, ``Gamma`` and ``ContinuousBernoulli`` live in those families' files. Importing
this module registers them (the package does)."""

from __future__ import annotations

import math

from ..factories import full_like
from .exponential import Exponential
from .gumbel import Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    # -H(p) - E_p[log q] with z = (x - q.loc) / q.scale: log q = -log scale - z - exp(-z),
    # and E_p[exp(-x / q.scale)] is the normal's moment generating function at -1 / scale
    mean_ratio = p.loc / q.scale
    var_ratio = (p.scale / q.scale).pow(2)
    loc_ratio = q.loc / q.scale
    mgf_term = (loc_ratio - mean_ratio + 0.5 * var_ratio).exp()
    return (-0.5 * var_ratio.log() + mean_ratio - loc_ratio + mgf_term
            - 0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # E_p|x - q.loc| is the mean of a folded normal
    loc_diff = p.loc - q.loc
    standardized = loc_diff / p.scale
    folded_mean = (math.sqrt(2 / math.pi) * p.scale * (-0.5 * standardized.pow(2)).exp()
                   + loc_diff * (math.sqrt(0.5) * standardized).erf())
    return (-(p.scale / q.scale).log() + folded_mean / q.scale
            - 0.5 * (1 + math.log(0.5 * math.pi)))


# q gives no mass where p has some: infinite, of p's shape (PyTorch's pairs)
@register_kl(Normal, Exponential)
@register_kl(Normal, Pareto)
@register_kl(Normal, Uniform)
def _kl_normal_infinity(p, q):
    return full_like(p.loc, math.inf)
