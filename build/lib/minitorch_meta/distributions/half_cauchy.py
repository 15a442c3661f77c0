"""``HalfCauchy(scale)``: the absolute value of a centred Cauchy variable."""

from __future__ import annotations

import math

from ..factories import full
from .cauchy import Cauchy
from .folded import FoldedAtZero


class HalfCauchy(FoldedAtZero):
    """``Y = |X|`` for ``X ~ Cauchy(0, scale)``: infinite mean and variance;
    ``rsample`` is differentiable in ``scale``.

    Shape:
        ``scale`` is ``batch_shape``; ``event_shape`` is ``()``.
    """

    def __init__(self, scale, validate_args=None):
        # the base is not validated: this distribution checks ``scale`` under its own name
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self):
        return full(self._extended_shape(), math.inf, dtype=self.scale.dtype,
                    device=self.scale.device)

    @property
    def variance(self):
        return self.base_dist.variance
