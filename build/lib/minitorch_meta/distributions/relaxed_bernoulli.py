"""``RelaxedBernoulli(temperature, probs | logits)`` and its logit,
``LogitRelaxedBernoulli``: the binary Concrete (Gumbel-sigmoid) relaxation of a coin flip,
whose samples are differentiable in the parameters."""

from __future__ import annotations

from numbers import Number

from ..factories import rand
from ..size import Size
from . import constraints
from .bernoulli import BinaryProbsOrLogits, _probs_or_logits
from .distribution import Distribution
from .elementwise_transforms import SigmoidTransform
from .transformed_distribution import TransformedDistribution
from .utils import broadcast_all, clamp_probs


class LogitRelaxedBernoulli(BinaryProbsOrLogits, Distribution):
    """``(logit(u) + logits) / temperature`` for ``u`` uniform in (0, 1): the logit of a
    ``RelaxedBernoulli`` sample. Its density is
    ``t exp(l - t x) / (1 + exp(l - t x))²`` (``t`` the temperature, ``l`` the logits).

    ``temperature`` is used as given (a tensor broadcasting with the batch, as
    PyTorch's); as PyTorch, ``has_rsample`` is False although ``rsample`` is
    differentiable.

    Shape:
        the parameter is ``batch_shape`` (a number: ``()``); ``event_shape`` is ``()``.

    Raises:
        ValueError: both or neither of ``probs``/``logits``, or (with validation) values
        outside their constraints.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        name, given = _probs_or_logits(probs, logits)
        (param,) = broadcast_all(given)
        self.__dict__[name] = param
        self._param = param
        batch_shape = Size() if isinstance(given, Number) else param.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The same temperature over the given parameter expanded to ``batch_shape``."""
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(batch_shape)
                new._param = new.__dict__[name]
        new._batch_shape = batch_shape
        return new

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(rand(shape, dtype=probs.dtype, device=probs.device))
        logistic_noise = uniforms.log() - (-uniforms).log1p()
        return (logistic_noise + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        shifted = logits - value * self.temperature
        return self.temperature.log() + shifted - 2 * shifted.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """``sigmoid`` of a ``LogitRelaxedBernoulli`` sample: values in (0, 1) that approach
    a ``Bernoulli(probs)`` coin as ``temperature`` goes to 0, with ``rsample``.

    Shape:
        the parameter is ``batch_shape`` (a number: ``()``); ``event_shape`` is ``()``.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
