"""``Laplace(loc, scale)``: the double-exponential distribution."""

from __future__ import annotations

import math

from ..factories import rand
from ..type_info import finfo
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Laplace(Distribution):
    """The Laplace distribution with density ``exp(-|x - loc| / scale) / (2 scale)``.

    ``rsample`` inverts the CDF at ``u`` uniform on ``[eps - 1, 1)`` (``eps`` the dtype's
    machine epsilon, so that ``log1p(-|u|)`` stays finite), differentiable in both
    parameters.

    Shape:
        ``loc`` and ``scale`` broadcast to ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    def rsample(self, sample_shape=()):
        eps = finfo(self.loc.dtype).eps
        u = rand(self._extended_shape(sample_shape), dtype=self.loc.dtype,
                 device=self.loc.device) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        centred = value - self.loc
        return 0.5 - 0.5 * centred.sign() * (-centred.abs() / self.scale).expm1()

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()
