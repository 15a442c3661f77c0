"""``OneHotCategorical(probs=None, logits=None)``: a ``Categorical`` as one-hot vectors,
and ``OneHotCategoricalStraightThrough``, the same with a straight-through ``rsample``."""

from __future__ import annotations

from ..nn.functional import one_hot
from ..size import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution


class OneHotCategorical(Distribution):
    """A category drawn as ``Categorical(probs, logits)`` draws it, given as a one-hot
    vector of length ``K`` in the parameter's dtype.

    Shape:
        the parameter is ``batch_shape + (K,)``; ``event_shape`` is ``(K,)``.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        new._categorical = self._categorical.expand(batch_shape)
        new._batch_shape = Size(batch_shape)
        return new

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def _param(self):
        return self._categorical._param

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        return self._one_hot(self.probs.argmax(-1))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def _one_hot(self, indices):
        return one_hot(indices, self._event_shape[0]).to(self.probs.dtype)

    def sample(self, sample_shape=()):
        return self._one_hot(self._categorical.sample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True):
        """The ``K`` one-hot vectors along a new first dim, expanded over the batch if
        asked."""
        n = self._event_shape[0]
        values = self._one_hot(self._categorical.enumerate_support(expand=False).view(n))
        values = values.view((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n,) + self._batch_shape + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A ``OneHotCategorical`` with the straight-through ``rsample`` (Bengio et al., 2013):
    the one-hot sample's values, with the gradient of ``probs`` (as if the sample were
    the probabilities)."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
