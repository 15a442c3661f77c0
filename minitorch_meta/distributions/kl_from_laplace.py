"""KL(Laplace || q) for the other families PyTorch pairs a Laplace with: ``Normal`` in
closed form, and the infinite ones (``Exponential``, ``Pareto``, ``Uniform``: a Laplace has
mass on the whole line, they have none beyond a bound). The pairs with ``Beta``, ``Gamma``
and ``ContinuousBernoulli`` live in those families' files. Importing this module registers
them (the package does)."""

from __future__ import annotations

import math

from ..factories import full_like
from .exponential import Exponential
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    # -H(p) - E_p[log q]: p's second moment about q.loc is 2 scale^2 + (p.loc - q.loc)^2
    var_normal = q.scale.pow(2)
    scale_sq_ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * (2 * scale_sq_ratio / math.pi).log()
    loc_terms = 0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)
    return -t1 + scale_sq_ratio + loc_terms / var_normal - 1


# q gives no mass where p has some: infinite, of p's shape (PyTorch's pairs)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Pareto)
@register_kl(Laplace, Uniform)
def _kl_laplace_infinity(p, q):
    return full_like(p.loc, math.inf)
