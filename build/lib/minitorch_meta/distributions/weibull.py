"""``Weibull(scale, concentration)``: the two-parameter Weibull distribution."""

from __future__ import annotations

from ..factories import ones_like
from ..more_math_functions import lgamma
from . import constraints
from .elementwise_transforms import AffineTransform, PowerTransform
from .exponential import Exponential
from .gumbel import EULER_CONSTANT
from .transformed_distribution import TransformedDistribution
from .utils import broadcast_all


class Weibull(TransformedDistribution):
    """``scale * E ** (1 / concentration)`` for ``E ~ Exponential(1)``: CDF
    ``1 - exp(-(x / scale) ** concentration)``; ``rsample`` is differentiable in both
    parameters.

    Shape:
        ``scale`` and ``concentration`` broadcast to ``batch_shape``; ``event_shape`` is
        ``()``.
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        # the transforms hold the parameters: rebuild them from the expanded ones
        new.transforms = [PowerTransform(exponent=new.concentration_reciprocal),
                          AffineTransform(loc=0, scale=new.scale)]
        return new

    @property
    def mean(self):
        return self.scale * lgamma(1 + self.concentration_reciprocal).exp()

    @property
    def mode(self):
        return (self.scale * ((self.concentration - 1) / self.concentration)
                ** self.concentration.reciprocal())

    @property
    def variance(self):
        return self.scale.pow(2) * (lgamma(1 + 2 * self.concentration_reciprocal).exp()
                                    - (2 * lgamma(1 + self.concentration_reciprocal)).exp())

    def entropy(self):
        return (EULER_CONSTANT * (1 - self.concentration_reciprocal)
                + (self.scale * self.concentration_reciprocal).log() + 1)
