"""``GeneralizedPareto(loc, scale, concentration)``: the generalized Pareto distribution,
the law of the excesses over a high threshold."""

from __future__ import annotations

import math

from ..factories import ones_like, rand, zeros_like
from ..functions import where
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class GeneralizedPareto(Distribution):
    """Survival ``(1 + c z)^(-1/c)`` of ``z = (x - loc) / scale`` (``c`` the
    ``concentration``; ``exp(-z)`` at ``c = 0``), on ``x >= loc``, and below
    ``loc - scale / c`` too when ``c < 0``. Exponential (``loc = c = 0``), Pareto and
    Uniform (``c = -1``) are special cases.

    Every formula divides by ``c``: where ``c`` is within ``1e-8`` of zero (``isclose``)
    the ``c = 0`` limit is taken instead and ``c`` replaced by 1 in the branch not taken,
    so that its gradient stays finite. ``rsample`` is ``icdf`` of a uniform draw.

    Shape:
        ``loc``, ``scale`` and ``concentration`` broadcast to ``batch_shape``;
        ``event_shape`` is ``()``.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def support(self):
        """``[loc, loc - scale / c]`` for ``c < 0``, ``[loc, inf]`` otherwise."""
        upper = where(self.concentration < 0,
                      self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)

    def _zero_and_safe_concentration(self):
        """Where ``c`` counts as zero, and ``c`` with 1 there (the branch not taken)."""
        c = self.concentration
        at_zero = c.isclose(zeros_like(c))
        return at_zero, where(at_zero, ones_like(c), c)

    def _z(self, value):
        return (value - self.loc) / self.scale

    def rsample(self, sample_shape=()):
        u = rand(self._extended_shape(sample_shape), dtype=self.loc.dtype,
                 device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, c = self._zero_and_safe_concentration()
        power = 1 / c + ones_like(z)
        # a power of 0 (c = -1, the uniform case) leaves 0 even where log1p is -inf
        general = where(power == 0, power, power * (c * z).log1p())
        return -self.scale.log() - where(at_zero, z, general)

    def log_survival_function(self, value):
        """``log P(X > value)``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, c = self._zero_and_safe_concentration()
        return where(at_zero, -z, -(c * z).log1p() / c)

    def log_cdf(self, value):
        """``log P(X <= value)``."""
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        at_zero, c = self._zero_and_safe_concentration()
        log_survival = (-value).log1p()
        general = self.loc + self.scale / c * (-c * log_survival).expm1()
        return where(at_zero, self.loc - self.scale * log_survival, general)

    @property
    def mean(self):
        """``loc + scale / (1 - c)``; NaN for ``c >= 1`` (no finite mean)."""
        c = self.concentration
        finite = c < 1
        c = where(finite, c, 0.5)
        return where(finite, self.loc + self.scale / (1 - c), math.nan)

    @property
    def variance(self):
        """``scale^2 / ((1 - c)^2 (1 - 2c))``; NaN for ``c >= 1/2``."""
        c = self.concentration
        finite = c < 0.5
        c = where(finite, c, 0.25)
        return where(finite, self.scale.pow(2) / ((1 - c).pow(2) * (1 - 2 * c)), math.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return (self.scale.log() + self.concentration + 1).broadcast_to(self._batch_shape)
