"""``Cauchy(loc, scale)``: the Lorentz distribution, the ratio of two centred normals."""

from __future__ import annotations

import math

from ..factories import full, rand
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Cauchy(Distribution):
    """Density ``1 / (pi scale (1 + ((x - loc) / scale)^2))``: no mean (NaN) and an
    infinite variance. ``rsample`` is ``loc + scale tan(pi (u - 1/2))`` for ``u``
    uniform on ``[0, 1)`` (the inverse CDF), differentiable in both parameters.

    Shape:
        ``loc`` and ``scale`` broadcast to ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def _filled(self, value: float):
        return full(self._extended_shape(), value, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def mean(self):
        return self._filled(math.nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._filled(math.inf)

    def rsample(self, sample_shape=()):
        u = rand(self._extended_shape(sample_shape), dtype=self.loc.dtype,
                 device=self.loc.device)
        eps = (math.pi * (u - 0.5)).tan()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
