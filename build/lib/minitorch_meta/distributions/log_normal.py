"""``LogNormal(loc, scale)``: ``exp`` of a normal variable."""

from __future__ import annotations

from . import constraints
from .elementwise_transforms import ExpTransform
from .normal import Normal
from .transformed_distribution import TransformedDistribution


class LogNormal(TransformedDistribution):
    """``Y = exp(X)`` for ``X ~ Normal(loc, scale)``; ``rsample`` is differentiable in both
    parameters (through the normal's).

    Shape:
        ``loc`` and ``scale`` broadcast to ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc
