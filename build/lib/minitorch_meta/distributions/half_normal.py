"""``HalfNormal(scale)``: the absolute value of a centred normal variable."""

from __future__ import annotations

import math

from .folded import FoldedAtZero
from .normal import Normal


class HalfNormal(FoldedAtZero):
    """``Y = |X|`` for ``X ~ Normal(0, scale)``; ``rsample`` is differentiable in
    ``scale``.

    Shape:
        ``scale`` is ``batch_shape``; ``event_shape`` is ``()``.
    """

    def __init__(self, scale, validate_args=None):
        # the base is not validated: this distribution checks ``scale`` under its own name
        super().__init__(Normal(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
