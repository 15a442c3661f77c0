"""``RelaxedOneHotCategorical(temperature, probs | logits)`` and its log,
``ExpRelaxedCategorical``: the Concrete (Gumbel-softmax) relaxation of a one-hot
categorical draw, differentiable in the parameters."""

from __future__ import annotations

import math

from ..factories import rand
from ..size import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .elementwise_transforms import ExpTransform
from .transformed_distribution import TransformedDistribution
from .utils import broadcast_all, clamp_probs


class ExpRelaxedCategorical(Distribution):
    """``log_softmax((logits + g) / temperature)`` for standard Gumbel noise ``g``: the
    log of a ``RelaxedOneHotCategorical`` sample (working in logs keeps small
    temperatures finite). ``log_prob`` is the Concrete density of the log values.

    Shape:
        the parameter is ``batch_shape + (K,)``; ``event_shape`` is ``(K,)``.

    Raises:
        ValueError: both or neither of ``probs``/``logits``, a 0-d parameter, or (with
        validation) values outside the constraints.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector  # the true support is a submanifold of it
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The same temperature over the categorical expanded to ``batch_shape``."""
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._categorical = self._categorical.expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -(-uniforms.log()).log()
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # log((K - 1)!) + (K - 1) log(temperature)
        log_scale = math.lgamma(k) + (k - 1) * self.temperature.log()
        score = logits - value * self.temperature
        return (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """``exp`` of an ``ExpRelaxedCategorical`` sample: points of the simplex that
    approach one-hot ``OneHotCategorical(probs)`` draws as ``temperature`` goes to 0,
    with ``rsample``.

    Shape:
        the parameter is ``batch_shape + (K,)``; ``event_shape`` is ``(K,)``.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits,
                                          validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
