"""``Normal(loc, scale)``: the Gaussian distribution."""

from __future__ import annotations

import math

from ..factories import randn
from ..functions import erf
from ..more_math_functions import erfinv
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Normal(ExponentialFamily):
    """The normal distribution N(``loc``, ``scale``²), elementwise over the batch.

    ``rsample`` is ``loc + scale * eps`` with ``eps`` standard normal noise from the
    parameters' device, so gradients flow to ``loc`` and ``scale``.

    Shape:
        ``loc`` and ``scale`` broadcast to ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

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
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def rsample(self, sample_shape=()):
        eps = randn(self._extended_shape(sample_shape), dtype=self.loc.dtype,
                    device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        squared = (value - self.loc) ** 2
        return -squared / (2 * self.scale ** 2) - self.scale.log() - _LOG_SQRT_2PI

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        """The value whose ``cdf`` is ``value`` (a probability): ``loc + scale sqrt(2)
        erfinv(2 value - 1)``."""
        return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()


_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))
