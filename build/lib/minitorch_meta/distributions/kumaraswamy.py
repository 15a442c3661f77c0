"""``Kumaraswamy(concentration1, concentration0)``: a Beta-like law on ``[0, 1]`` with a
closed-form CDF."""

from __future__ import annotations

import math

from ..factories import full_like
from . import constraints
from .elementwise_transforms import AffineTransform, PowerTransform
from .gumbel import EULER_CONSTANT
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import broadcast_all


def _moment(a, b, n: int):
    """``E[X^n] = b B(1 + n / a, b)``."""
    shifted = 1 + n / a
    return b * (shifted.lgamma() + b.lgamma() - (shifted + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """Density ``a b x^(a-1) (1 - x^a)^(b-1)`` on ``[0, 1]`` (``a`` is ``concentration1``,
    ``b`` ``concentration0``): ``(1 - U^(1/b))^(1/a)`` for ``U`` uniform, so ``rsample``
    is differentiable in both.

    Shape:
        ``concentration1`` and ``concentration0`` broadcast to ``batch_shape``;
        ``event_shape`` is ``()``.
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1,
                                                                 concentration0)
        base_dist = Uniform(full_like(self.concentration0, 0),
                            full_like(self.concentration0, 1), validate_args=validate_args)
        transforms = [PowerTransform(self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    @property
    def mean(self):
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        """``((a - 1) / (a b - 1))^(1 / a)``, undefined (NaN) when ``a < 1`` or ``b < 1``
        (PyTorch 2.13's formula gives NaN everywhere: see docs/differences.md)."""
        a, b = self.concentration1, self.concentration0
        log_mode = ((a - 1).log() - (a * b - 1).log()) / a
        return log_mode.exp().masked_fill((a < 1) | (b < 1), math.nan)

    @property
    def variance(self):
        return _moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic = (b + 1).digamma() + EULER_CONSTANT
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - a.log() - b.log()
