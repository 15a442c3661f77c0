"""``Exponential(rate)``: waiting times of a Poisson process."""

from __future__ import annotations

from ..factories import rand, zeros_like
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Exponential(ExponentialFamily):
    """The exponential distribution of rate ``rate`` (mean ``1 / rate``).

    ``rsample`` is ``-log(1 - u) / rate`` for ``u`` uniform on ``[0, 1)`` (the inverse
    CDF; ``1 - u > 0``, so every draw is finite), differentiable in ``rate``.

    Shape:
        ``rate`` is ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        u = rand(self._extended_shape(sample_shape), dtype=self.rate.dtype,
                 device=self.rate.device)
        return -(-u).log1p() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()
