"""``FisherSnedecor(df1, df2)``: the F distribution, a ratio of scaled chi-squared
variables."""

from __future__ import annotations

import math

from ..type_info import finfo
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all


class FisherSnedecor(Distribution):
    """``(X1 / df1) / (X2 / df2)`` for ``Xi ~ Chi2(dfi)``. ``rsample`` draws the two as
    ``Gamma(dfi / 2, dfi)`` and is differentiable in both dfs. PyTorch gives it no ``entropy``.

    Shape:
        ``df1`` and ``df2`` broadcast to ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        # each chi-squared draw divided by its df; made (and validated) first, as PyTorch:
        # a bad df names Gamma in the error
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(self.df1.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        return new

    @property
    def mean(self):
        """``df2 / (df2 - 2)``, undefined (NaN) for ``df2 <= 2``."""
        df2 = self.df2
        return (df2 / (df2 - 2)).masked_fill(df2 <= 2, math.nan)

    @property
    def mode(self):
        """Undefined (NaN) for ``df1 <= 2``."""
        df1, df2 = self.df1, self.df2
        return ((df1 - 2) / df1 * df2 / (df2 + 2)).masked_fill(df1 <= 2, math.nan)

    @property
    def variance(self):
        """Undefined (NaN) for ``df2 <= 4``."""
        # NaN put in df2 before the formula, as PyTorch does: df1's gradient there is NaN
        # too (df2's is 0, the masked entries are constants)
        df1, df2 = self.df1, self.df2.masked_fill(self.df2 <= 4, math.nan)
        return 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        numerator = self._gamma1.rsample(sample_shape)
        denominator = self._gamma2.rsample(sample_shape)
        # each gamma draw is at least tiny; the ratio may underflow again (PyTorch's clamp)
        return (numerator / denominator).clamp(min=finfo(numerator.dtype).tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        half1, half2 = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        t1 = (half1 + half2).lgamma() - half1.lgamma() - half2.lgamma()
        t2 = half1 * ratio.log() + (half1 - 1) * value.log()
        t3 = (half1 + half2) * (ratio * value).log1p()
        return t1 + t2 - t3
