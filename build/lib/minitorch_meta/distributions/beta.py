"""``Beta(concentration1, concentration0)``: a probability, the first entry of a
two-entry Dirichlet."""

from __future__ import annotations

from numbers import Number

from ..factories import tensor
from ..functions import stack
from ..size import Size
from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Beta(ExponentialFamily):
    """Density ``x^(a - 1) (1 - x)^(b - 1) / B(a, b)`` on ``[0, 1]`` (``a`` is
    ``concentration1``, ``b`` ``concentration0``). It is ``Dirichlet([a, b])``'s first
    entry, as PyTorch builds it: ``rsample`` is differentiable in both (the standard gamma
    draws' implicit gradient).

    Shape:
        ``concentration1`` and ``concentration0`` broadcast to ``batch_shape``;
        ``event_shape`` is ``()``.
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, Number) and isinstance(concentration0, Number):
            both = tensor([float(concentration1), float(concentration0)])
        else:
            both = stack(broadcast_all(concentration1, concentration0), -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._dirichlet = self._dirichlet.expand(Size(batch_shape))
        return new

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return x.lgamma() + y.lgamma() - (x + y).lgamma()
