"""``StudentT(df, loc=0.0, scale=1.0)``: Student's t distribution."""

from __future__ import annotations

import math

from ..factories import randn
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all


class StudentT(Distribution):
    """Student's t of ``df`` degrees of freedom, shifted by ``loc`` and scaled by
    ``scale``. ``rsample`` is ``loc + scale * X / sqrt(Z / df)`` for ``X`` standard normal
    and ``Z ~ Chi2(df)``, differentiable in all three (``df`` through the chi-squared
    draw's implicit gradient).

    Shape:
        ``df``, ``loc`` and ``scale`` broadcast to ``batch_shape``; ``event_shape`` is ``()``.
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        # made (and validated) first, as PyTorch: a bad df names Chi2 in the error
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self):
        """``loc``, undefined (NaN) for ``df <= 1``."""
        return self.loc.masked_fill(self.df <= 1, math.nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """``scale^2 df / (df - 2)`` for ``df > 2``, infinite for ``1 < df <= 2``, NaN below."""
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        return finite.masked_fill(df <= 2, math.inf).masked_fill(df <= 1, math.nan)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        normal = randn(shape, dtype=self.df.dtype, device=self.df.device)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (normal * (chi2 / self.df).rsqrt())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        df = self.df
        y = (value - self.loc) / self.scale
        norm = (self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi)
                + (0.5 * df).lgamma() - (0.5 * (df + 1.0)).lgamma())
        return -0.5 * (df + 1.0) * (y.pow(2) / df).log1p() - norm

    def entropy(self):
        df = self.df
        log_beta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return (self.scale.log()
                + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma() - (0.5 * df).digamma())
                + 0.5 * df.log() + log_beta)
