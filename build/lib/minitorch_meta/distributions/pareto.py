"""``Pareto(scale, alpha)``: the Pareto type-I (power-law) distribution."""

from __future__ import annotations

from . import constraints
from .elementwise_transforms import AffineTransform, ExpTransform
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .utils import broadcast_all


class Pareto(TransformedDistribution):
    """``scale * exp(E)`` for ``E ~ Exponential(alpha)``: density ``alpha scale^alpha /
    x^(alpha + 1)`` on ``[scale, inf)``; ``rsample`` is differentiable in both parameters.
    The mean (``alpha <= 1``) and variance (``alpha <= 2``) are infinite where they
    diverge, as PyTorch's.

    Shape:
        ``scale`` and ``alpha`` broadcast to ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @property
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
