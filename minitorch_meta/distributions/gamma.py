"""``Gamma(concentration, rate)``: the gamma distribution (shape and rate)."""

from __future__ import annotations

from ..factories import as_tensor
from ..incomplete_gamma_functions import gammainc
from ..type_info import finfo
from ..variate_functions import _standard_gamma
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Gamma(ExponentialFamily):
    """Density ``rate^c x^(c-1) e^(-rate x) / Gamma(c)`` on ``x > 0`` (``c`` the
    ``concentration``). ``rsample`` is ``_standard_gamma(concentration) / rate``, whose
    gradient in ``concentration`` is the implicit reparameterisation one (PyTorch's).

    Shape:
        ``concentration`` and ``rate`` broadcast to ``batch_shape``; ``event_shape`` is
        ``()``.
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        tiny = finfo(value.dtype).tiny
        if value.dim() == 0:
            # a 0-d result of an elementwise op is not writable in place on NumPy yet (it
            # holds a NumPy scalar): clamped out of place, so the gradient stops if it is hit
            return value.clamp(min=tiny)
        # the division may underflow again: clamped in place, outside the graph (PyTorch's)
        value.detach().clamp_(min=tiny)
        return value

    def log_prob(self, value):
        value = as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (self.concentration.xlogy(self.rate) + (self.concentration - 1).xlogy(value)
                - self.rate * value - self.concentration.lgamma())

    def cdf(self, value):
        """``P(concentration, rate * value)`` (``special.gammainc``), as PyTorch's: not
        differentiable in ``concentration`` (asking raises NotImplementedError)."""
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)

    def entropy(self):
        c = self.concentration
        return c - self.rate.log() + c.lgamma() + (1.0 - c) * c.digamma()

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()
