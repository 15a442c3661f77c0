"""``InverseGamma(concentration, rate)``: the reciprocal of a gamma variable."""

from __future__ import annotations

import math

from ..broadcast_functions import where
from . import constraints
from .elementwise_transforms import PowerTransform
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution


class InverseGamma(TransformedDistribution):
    """``Y = 1 / X`` for ``X ~ Gamma(concentration, rate)``: density
    ``rate^c y^(-c-1) e^(-rate / y) / Gamma(c)`` on ``y > 0``. ``rsample`` is
    differentiable in both parameters (the gamma draw's).

    Shape:
        ``concentration`` and ``rate`` broadcast to ``batch_shape``; ``event_shape`` is
        ``()``.
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        minus_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(minus_one), validate_args=validate_args)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        """``rate / (concentration - 1)``, infinite for ``concentration <= 1``."""
        c = self.concentration
        # kept where c > 1, PyTorch's test: a NaN concentration gives inf, as there
        return where(c > 1, self.rate / (c - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        """Infinite for ``concentration <= 2``."""
        c = self.concentration
        finite = self.rate.square() / ((c - 1).square() * (c - 2))
        return where(c > 2, finite, math.inf)

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * c.digamma()
