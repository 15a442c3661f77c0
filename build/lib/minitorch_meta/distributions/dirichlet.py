"""``Dirichlet(concentration)``: the distribution of probability vectors."""

from __future__ import annotations

from ..nn.functional import one_hot
from ..variate_functions import _standard_gamma
from . import constraints
from .exp_family import ExponentialFamily


class Dirichlet(ExponentialFamily):
    """Density ``Gamma(a_0) / prod Gamma(a_i) * prod x_i^(a_i - 1)`` on the simplex
    (``a`` the ``concentration`` along the last dim, ``a_0`` its sum).

    ``rsample`` normalises independent standard gamma draws, ``g / g.sum(-1)``; its
    gradient in the concentration flows through each draw's implicit reparameterisation
    gradient (``_standard_gamma``'s) and the normalisation. PyTorch's ``_dirichlet_grad``
    is another pathwise gradient of the same expectation (see docs/differences.md).

    Shape:
        ``concentration`` is ``batch_shape + event_shape``, ``event_shape`` its last dim.

    Raises:
        ValueError: ``concentration`` is 0-d.
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def rsample(self, sample_shape=()):
        draws = _standard_gamma(self.concentration.expand(self._extended_shape(sample_shape)))
        # every draw is at least the dtype's tiny (the kernel's clamp): the sum is > 0
        return draws / draws.sum(-1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return ((c - 1.0).xlogy(value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        """``(a - 1) / sum(a - 1)`` (``a - 1`` clamped at 0); when every ``a < 1`` the
        density is unbounded at the corners: the one-hot of the largest entry there."""
        excess = (self.concentration - 1).clamp(min=0.0)
        mode = excess / excess.sum(-1, keepdim=True)
        corner = one_hot(mode.argmax(-1), excess.shape[-1]).to(mode.dtype)
        every_below_one = (self.concentration < 1).all(-1, keepdim=True)
        return corner.where(every_below_one, mode)

    @property
    def variance(self):
        c = self.concentration
        total = c.sum(-1, keepdim=True)
        return c * (total - c) / (total.pow(2) * (total + 1))

    def entropy(self):
        c = self.concentration
        k = c.shape[-1]
        total = c.sum(-1)
        return (c.lgamma().sum(-1) - total.lgamma() - (k - total) * total.digamma()
                - ((c - 1.0) * c.digamma()).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()
