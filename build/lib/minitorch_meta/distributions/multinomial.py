"""``Multinomial(total_count=1, probs=None, logits=None)``: counts of each category in
``total_count`` independent categorical draws."""

from __future__ import annotations

import math

from ..factories import tensor, zeros
from ..size import Size
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all


class Multinomial(Distribution):
    """Counts of ``K`` categories in ``total_count`` draws, category ``k`` drawn with
    probability ``probs[..., k]`` (normalised) or ``softmax(logits)[..., k]``; counts are
    floats of the parameter's dtype. ``total_count`` is one Python int for the whole batch
    (``sample`` and ``entropy`` use it; ``log_prob`` reads each value's own total). Not
    reparameterisable.

    Shape:
        the parameter is ``batch_shape + (K,)``; ``event_shape`` is ``(K,)``.

    Raises:
        NotImplementedError: ``total_count`` is not an int (PyTorch's "inhomogeneous").
        ValueError: both or neither of ``probs``/``logits``, or (with validation) values
        that are negative or whose counts sum above ``total_count``.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new.probs,
                                 validate_args=False)
        return new

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        sample_shape = Size(sample_shape)
        # total_count category draws per sample, counted along the last dim
        draws = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        draws = draws.permute(*range(1, draws.dim()), 0)
        counts = zeros(self._extended_shape(sample_shape), dtype=draws.dtype,
                       device=draws.device)
        counts.scatter_add_(-1, draws, draws.new_ones(draws.shape))
        return counts.type_as(self.probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # a category of zero probability drawn zero times adds 0, not 0 * -inf
        logits = logits.masked_fill((value == 0) & (logits == -math.inf), 0.0)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def entropy(self):
        n = tensor(float(self.total_count), dtype=self.probs.dtype, device=self.probs.device)
        term1 = n * self._categorical.entropy() - (n + 1).lgamma()
        # E[sum_k log x_k!] from each count's binomial marginal
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(support).exp()
        term2 = (binomial_probs * (support + 1).lgamma()).sum((0, -1))
        return term1 + term2
