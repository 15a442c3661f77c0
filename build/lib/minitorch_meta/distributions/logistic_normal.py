"""``LogisticNormal(loc, scale)``: a normal vector mapped onto the simplex by stick
breaking."""

from __future__ import annotations

from . import constraints
from .normal import Normal
from .simplex_transforms import StickBreakingTransform
from .transformed_distribution import TransformedDistribution


class LogisticNormal(TransformedDistribution):
    """``StickBreakingTransform`` of ``Independent(Normal(loc, scale), 1)``: a point of
    the ``K``-simplex from ``K - 1`` normal coordinates; ``rsample`` is differentiable
    in both parameters.

    Shape:
        ``loc`` and ``scale`` broadcast to ``batch_shape + (K - 1,)`` (a 0-d broadcast
        counts as ``(1,)``); ``event_shape`` is ``(K,)``.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])  # the transform needs a vector
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale
