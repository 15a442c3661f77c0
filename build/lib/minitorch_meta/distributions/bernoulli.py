"""``Bernoulli(probs=None, logits=None)``: one coin flip per batch element."""

from __future__ import annotations

from numbers import Number

from ..factories import arange
from ..nn.functional import binary_cross_entropy_with_logits
from ..sampling import bernoulli
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


def _probs_or_logits(probs, logits):
    """The one parameter given, or PyTorch's ValueError when not exactly one is."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return ("probs", probs) if probs is not None else ("logits", logits)


class BinaryProbsOrLogits:
    """The ``probs``/``logits`` pair of a distribution of successes given either one
    (Bernoulli, Binomial, NegativeBinomial, Geometric): the other is computed from it, once,
    on first read."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


class Bernoulli(BinaryProbsOrLogits, ExponentialFamily):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0, in the parameter's
    float dtype. Give exactly one of ``probs`` and ``logits``; the other is derived on
    first use. Not reparameterisable: samples carry no gradient.

    Shape:
        the parameter is ``batch_shape`` (a number: ``()``); ``event_shape`` is ``()``.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, given = _probs_or_logits(probs, logits)
        (param,) = broadcast_all(given)
        self.__dict__[name] = param
        self._param = param
        batch_shape = Size() if isinstance(given, Number) else param.shape
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        # a fair coin has two modes: NaN, as PyTorch
        heads = (self.probs >= 0.5).to(self.probs.dtype)
        return heads.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = self.probs.detach()
        return bernoulli(probs if probs.shape == shape else probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # the loss wants one dtype; PyTorch computes a float32 value with float64 logits
        # in float32, we in the logits' dtype
        if isinstance(value, Tensor):
            value = value.to(self.logits.dtype)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    @property
    def _natural_params(self):
        return (self.probs.logit(),)

    def _log_normalizer(self, x):
        return x.exp().log1p()

    def enumerate_support(self, expand: bool = True):
        """``[0, 1]`` laid along a new first dim, expanded over the batch if ``expand``."""
        values = arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + self._batch_shape) if expand else values
