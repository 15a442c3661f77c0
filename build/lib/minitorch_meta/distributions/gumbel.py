"""``Gumbel(loc, scale)``: the distribution of maxima (type-I extreme value)."""

from __future__ import annotations

import math

from ..factories import full_like, ones_like
from ..type_info import finfo
from . import constraints
from .elementwise_transforms import AffineTransform, ExpTransform
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import broadcast_all

#: the Euler-Mascheroni constant, the mean of the standard Gumbel distribution
EULER_CONSTANT = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """``loc - scale log(-log U)`` for ``U`` uniform on ``[tiny, 1 - eps]`` (the dtype's
    limits, so that both logs stay finite); ``rsample`` is differentiable in both
    parameters.

    Shape:
        ``loc`` and ``scale`` broadcast to ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = finfo(self.loc.dtype)
        base_dist = Uniform(full_like(self.loc, info.tiny), full_like(self.loc, 1 - info.eps),
                            validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * EULER_CONSTANT

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + EULER_CONSTANT)
