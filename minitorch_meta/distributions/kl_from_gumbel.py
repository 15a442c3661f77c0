"""KL(Gumbel || q) for the other families PyTorch pairs a Gumbel with: ``Normal`` in
closed form, and the infinite ones (``Exponential``, ``Pareto``, ``Uniform``: a Gumbel has
mass on the whole line, they have none beyond a bound). The pairs with ``Beta``, ``Gamma``
and ``ContinuousBernoulli`` live in those families' files. Importing this module registers
them (the package does)."""

from __future__ import annotations

import math

from ..factories import full_like
from .exponential import Exponential
from .gumbel import EULER_CONSTANT, Gumbel
from .kl import register_kl
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    # -H(p) - E_p[log q] from p's mean loc + scale * gamma and variance (pi scale)^2 / 6
    scale_ratio = p.scale / q.scale
    t1 = (scale_ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * scale_ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * EULER_CONSTANT - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (EULER_CONSTANT + 1)


# q gives no mass where p has some: infinite, of p's shape (PyTorch's pairs)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Pareto)
@register_kl(Gumbel, Uniform)
def _kl_gumbel_infinity(p, q):
    return full_like(p.loc, math.inf)
