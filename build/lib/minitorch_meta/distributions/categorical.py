"""``Categorical(probs=None, logits=None)``: one category index per batch element."""

from __future__ import annotations

import math

from ..dtypes import int64
from ..factories import arange, full
from ..sampling import multinomial
from ..size import Size
from ..tensor import Tensor
from ..type_info import finfo
from . import constraints
from .bernoulli import _probs_or_logits
from .distribution import Distribution
from .utils import broadcast_shape, lazy_property, logits_to_probs, probs_to_logits


class Categorical(Distribution):
    """Category ``k`` of ``K`` with probability ``probs[..., k]`` (or
    ``softmax(logits)[..., k]``), as an int64 index. ``probs`` need not sum to 1 (they are
    normalised along the last dim); ``logits`` are normalised to log-probabilities.

    Shape:
        the parameter is ``batch_shape + (K,)``; ``event_shape`` is ``()``; a sample is
        ``sample_shape + batch_shape``, int64.

    Raises:
        ValueError: both or neither of ``probs``/``logits``, a 0-d parameter, or (with
        validation) probabilities that are negative or not finite.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, given = _probs_or_logits(probs, logits)
        if not isinstance(given, Tensor):
            raise TypeError(f"Categorical expects `{name}` to be a Tensor of shape "
                            f"(..., categories), got {type(given).__name__}")
        if given.dim() < 1:
            raise ValueError(f"`{name}` parameter must be at least one-dimensional.")
        if name == "probs":
            self.probs = given / given.sum(-1, keepdim=True)
        else:
            self.logits = given - given.logsumexp(dim=-1, keepdim=True)
        self._param = self.__dict__[name]
        self._num_events = self._param.shape[-1]
        super().__init__(self._param.shape[:-1], validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return self._undefined()

    @property
    def variance(self):
        return self._undefined()

    def _undefined(self):
        """NaN of the batch shape: the moments of unordered categories are undefined."""
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype,
                    device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    def sample(self, sample_shape=()):
        shape = Size(sample_shape)
        rows = self.probs.detach().reshape(-1, self._num_events)
        draws = multinomial(rows, shape.numel(), True).T
        return draws.reshape(self._extended_shape(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        index = value.long().unsqueeze(-1)
        shape = broadcast_shape(index.shape, self.logits.shape)
        index = index.expand(shape[:-1] + (1,))
        logits = self.logits if self.logits.shape == shape else self.logits.expand(shape)
        return logits.gather(-1, index).squeeze(-1)

    def entropy(self):
        # -inf logits (zero probabilities) would give 0 * -inf = NaN: the dtype's lowest
        # finite value gives the right 0
        logits = self.logits.clamp(min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True):
        """Every category index along a new first dim, expanded over the batch if asked."""
        values = arange(self._num_events, dtype=int64, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + self._batch_shape) if expand else values
