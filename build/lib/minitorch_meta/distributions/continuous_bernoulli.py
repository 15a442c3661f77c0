"""``ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501))``: the density on
[0, 1] proportional to ``p^x (1 - p)^(1 - x)`` (Loaiza-Ganem and Cunningham, 2019)."""

from __future__ import annotations

import math
from numbers import Number

from ..broadcast_functions import where
from ..factories import rand
from ..nn.functional import binary_cross_entropy_with_logits
from ..size import Size
from . import constraints
from .bernoulli import _probs_or_logits
from .constraints import all_true
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli: density ``C(p) p^x (1 - p)^(1 - x)`` on [0, 1], given by
    ``probs`` ``p`` in (0, 1) or ``logits`` (``p = sigmoid(logits)``), exactly one.
    Unlike the Bernoulli's, ``probs`` is no probability; the names are kept by analogy.

    The closed forms of the normaliser ``C``, the moments and the cdf divide by
    ``2 p - 1``; inside ``lims`` (around 1/2) they take their Taylor expansions at 1/2
    instead, as PyTorch's. ``rsample`` is ``icdf`` of a uniform draw, differentiable in the
    parameter. ``probs`` is clamped into ``[eps, 1 - eps]`` so that its logs stay finite.

    Shape:
        the parameter is ``batch_shape`` (a number: ``()``); ``event_shape`` is ``()``.

    Raises:
        ValueError: both or neither of ``probs``/``logits`` given; with ``validate_args``
        given (True or False, as PyTorch's), ``probs`` outside [0, 1].
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        name, given = _probs_or_logits(probs, logits)
        (param,) = broadcast_all(given)
        if name == "probs":
            # PyTorch checks the probs before the clamp (which would hide a bad value)
            # whenever validate_args is given, even False, and never by default
            if validate_args is not None and not all_true(
                    self.arg_constraints["probs"].check(param)):
                raise ValueError("The parameter probs has invalid values")
            param = clamp_probs(param)
        self.__dict__[name] = param
        self._param = param
        self._lims = lims
        batch_shape = Size() if isinstance(given, Number) else param.shape
        super().__init__(batch_shape, validate_args=validate_args)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    # -- the two regions: closed forms outside lims, Taylor expansions inside -----------
    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        """``probs`` outside the unstable region, ``lims[0]`` inside: the closed forms
        evaluated there stay finite (their branch is discarded, but its gradient is not
        NaN)."""
        return where(self._outside_unstable_region(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self):
        """``log C(p) = log(|log(1 - p) - log p| / |1 - 2 p|)``; near 1/2 its expansion
        ``log 2 + 4/3 x + 104/45 x²`` in ``x = (p - 1/2)²``."""
        cut = self._cut_probs()
        below_half = where(cut <= 0.5, cut, 0.0)
        above_half = where(cut >= 0.5, cut, 1.0)
        # the where keeps the log of the two halves' own expression finite
        log_norm = ((-cut).log1p() - cut.log()).abs().log() - where(
            cut <= 0.5, (-2.0 * below_half).log1p(), (2.0 * above_half - 1.0).log())
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        closed = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return where(self._outside_unstable_region(), closed, taylor)

    @property
    def variance(self):
        cut = self._cut_probs()
        closed = (cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2)
                  + 1.0 / ((-cut).log1p() - cut.log()).pow(2))
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), closed, taylor)

    # -- sampling and densities ---------------------------------------------------------
    def rsample(self, sample_shape=()):
        u = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype,
                 device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        """``(p^x (1 - p)^(1 - x) + p - 1) / (2 p - 1)`` (``x`` itself near ``p = 1/2``),
        0 below the support and 1 above it."""
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        closed = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        inside = where(self._outside_unstable_region(), closed, value)
        return where(value <= 0.0, 0.0, where(value >= 1.0, 1.0, inside))

    def icdf(self, value):
        """The ``x`` whose ``cdf`` is ``value``: ``log1p((2 p - 1) value - p) - log1p(-p)``
        over ``log p - log1p(-p)`` (``value`` itself near ``p = 1/2``)."""
        cut = self._cut_probs()
        closed = (((-cut + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p())
                  / (cut.log() - (-cut).log1p()))
        return where(self._outside_unstable_region(), closed, value)

    def entropy(self):
        log_probs0, log_probs1 = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    # -- exponential family -------------------------------------------------------------
    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """``log(|expm1 x| / |x|)`` of the natural parameter ``x``, by its expansion near 0.
        PyTorch compares ``x`` (a logit) with ``lims - 1/2``: a window of width 0.002
        around 0 in logits, which this keeps."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = where(outside, x, self._lims[0] - 0.5)
        log_norm = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return where(outside, log_norm, taylor)
