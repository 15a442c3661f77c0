"""What ``HalfNormal`` and ``HalfCauchy`` share: a symmetric base folded at zero by
``AbsTransform``, whose density is twice the base's on ``[0, inf)``."""

from __future__ import annotations

import math

from ..broadcast_functions import where
from ..factories import as_tensor, zeros_like
from . import constraints
from .elementwise_transforms import AbsTransform
from .transformed_distribution import TransformedDistribution


class FoldedAtZero(TransformedDistribution):
    """``|X|`` for ``X`` from a base symmetric about 0 of scale ``scale``. Not public:
    the base of ``HalfNormal`` and ``HalfCauchy``.

    Shape:
        ``scale`` is ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, base_dist, validate_args=None):
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
