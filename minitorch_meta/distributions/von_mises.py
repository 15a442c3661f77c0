"""``VonMises(loc, concentration)``: the circular normal distribution of an angle."""

from __future__ import annotations

import math

from .. import dtypes
from ..autograd import no_grad
from ..factories import rand, zeros
from ..functions import where
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property


class VonMises(Distribution):
    """Density ``exp(concentration cos(x - loc)) / (2 pi I0(concentration))`` on the
    circle: ``loc`` and values are angles in radians (any real number, read modulo
    ``2 pi``); samples lie in ``[-pi, pi)``. ``mean`` and ``variance`` are the circular
    ones: ``loc`` and ``1 - I1(concentration) / I0(concentration)``.

    ``log_prob`` takes ``log I0(k)`` as ``log(i0e(k)) + |k|`` (no overflow for a large
    concentration) and is differentiable in both parameters. ``sample`` is Best and
    Fisher's rejection sampler (1979) in float64, all draws at once: each round proposes
    for every place still waiting, until all are accepted (about 1.5 rounds on average).

    Shape:
        ``loc`` and ``concentration`` broadcast to ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def log_prob(self, value):
        from ..bessel_gamma_functions import i0e

        if self._validate_args:
            self._validate_sample(value)
        kappa = self.concentration
        # I0 is even: |kappa| keeps log I0 right for a negative concentration (unchecked
        # with validate_args=False), where i0e's exp(-|k|) is not undone by adding k
        log_i0 = i0e(kappa).log() + kappa.abs()
        return kappa * (value - self.loc).cos() - math.log(2 * math.pi) - log_i0

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        from ..bessel_gamma_functions import i0e, i1e

        # The ratio of the scaled functions is I1 / I0: the exp(-k) factors cancel. The
        # circular variance takes |I1|, as PyTorch's (a negative concentration, unchecked
        # with validate_args=False, is the same law turned by pi)
        kappa = self.concentration
        return 1 - i1e(kappa.abs()) / i0e(kappa)

    @lazy_property
    def _proposal_r(self):
        """Best and Fisher's ``r = (1 + rho^2) / (2 rho)``, in float64 (in float32 the
        acceptance test fails for a small concentration and sampling never ends)."""
        kappa = self.concentration.detach().to(dtypes.float64)
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        # Below 1e-5, rho's formula cancels catastrophically: its Taylor form takes over.
        return where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            kappa = self.concentration.detach().to(dtypes.float64).expand(shape)
            angle = _rejection_sample(kappa, self._proposal_r.expand(shape))
            loc = self.loc.detach().to(dtypes.float64)
            # Back onto [-pi, pi) around ``loc``.
            return ((angle + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)


def _rejection_sample(kappa, r):
    """Angles around 0 drawn by Best and Fisher's sampler: a wrapped Cauchy proposal
    ``f = (1 + r z) / (r + z)``, ``z = cos(pi u1)``, accepted by the cheap squeeze
    ``c (2 - c) > u2`` or the exact test ``log(c / u2) + 1 - c >= 0``, ``c = kappa (r - f)``;
    the sign comes from ``u3``. Every place is drawn each round and keeps its first
    accepted angle; on meta one round gives the shape."""
    angle = zeros(kappa.shape, dtype=kappa.dtype, device=kappa.device)
    done = zeros(kappa.shape, dtype=dtypes.bool_, device=kappa.device)
    while not (done.is_meta or bool(done.all())):
        u1, u2, u3 = rand((3, *kappa.shape), dtype=kappa.dtype, device=kappa.device).unbind()
        z = (math.pi * u1).cos()
        f = (1 + r * z) / (r + z)
        c = kappa * (r - f)
        # c / u2 may be negative: its log is NaN, which compares False (rejected).
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        fresh = accept & ~done
        angle = where(fresh, (u3 - 0.5).sign() * f.acos(), angle)
        done = done | fresh
    return angle
