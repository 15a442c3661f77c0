"""``Poisson(rate)``: counts of events at a constant rate."""

from __future__ import annotations

from ..autograd import no_grad
from ..factories import as_tensor
from ..tensor import Tensor
from ..variate_functions import poisson
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Poisson(ExponentialFamily):
    """``P(X = k) = rate^k e^(-rate) / k!`` for ``k = 0, 1, ...``, as floats of the rate's
    dtype. Not reparameterisable.

    Shape:
        ``rate`` is ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        with no_grad():
            return poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        if not isinstance(value, Tensor):  # a number (validation off)
            value = as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        # the ops broadcast (a rate given as a number, a 0-d CPU tensor, joins a value on
        # any device); xlogy: a zero rate gives the count 0 probability 1 (0 log 0 = 0)
        return value.xlogy(self.rate) - self.rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, x):
        return x.exp()
