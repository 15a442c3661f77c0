"""``NegativeBinomial(total_count, probs=None, logits=None)``: successes before a number
of failures."""

from __future__ import annotations

from ..autograd import no_grad
from ..nn.functional import logsigmoid
from ..size import Size
from ..variate_functions import poisson
from . import constraints
from .bernoulli import BinaryProbsOrLogits, _probs_or_logits
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all, lazy_property


class NegativeBinomial(BinaryProbsOrLogits, Distribution):
    """Successes of probability ``probs`` (or ``sigmoid(logits)``) before ``total_count``
    failures (a real count >= 0): ``P(X = k) = Gamma(n + k) / (k! Gamma(n)) p^k
    (1 - p)^n``, as floats of the parameter's dtype. Sampled as a Poisson draw of a
    Gamma(``total_count``, ``exp(-logits)``) rate; not reparameterisable.

    Shape:
        the broadcast of ``total_count`` and the parameter is ``batch_shape``;
        ``event_shape`` is ``()``.

    Raises:
        ValueError: both or neither of ``probs``/``logits``, or (with validation) a
        negative count or a probability outside [0, 1).
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        name, given = _probs_or_logits(probs, logits)
        total_count, param = broadcast_all(total_count, given)
        self.total_count = total_count.type_as(param)
        self.__dict__[name] = param
        self._param = param
        super().__init__(param.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new.__dict__.pop("_gamma", None)  # rebuilt from the expanded parameters
        new._param = new.__dict__["probs" if "probs" in new.__dict__ else "logits"]
        return new

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=(-self.logits).exp(),
                     validate_args=False)

    def sample(self, sample_shape=()):
        with no_grad():
            return poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_unnormalised = n * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalisation = -(n + value).lgamma() + (1.0 + value).lgamma() + n.lgamma()
        # n = k = 0 has probability 1: lgamma(0) terms cancel to 0, not inf - inf
        log_normalisation = log_normalisation.masked_fill(n + value == 0.0, 0.0)
        return log_unnormalised - log_normalisation
