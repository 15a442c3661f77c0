"""``Geometric(probs=None, logits=None)``: failures before the first success."""

from __future__ import annotations

from numbers import Number

from ..autograd import no_grad
from ..factories import rand, zeros_like
from ..nn.functional import binary_cross_entropy_with_logits
from ..size import Size
from ..type_info import finfo
from . import constraints
from .bernoulli import BinaryProbsOrLogits, _probs_or_logits
from .distribution import Distribution
from .utils import broadcast_all


class Geometric(BinaryProbsOrLogits, Distribution):
    """``P(X = k) = (1 - p)^k p`` for ``k = 0, 1, ...`` (``p = probs`` or
    ``sigmoid(logits)``), in the parameter's float dtype. Not reparameterisable.

    Shape:
        the parameter is ``batch_shape``; ``event_shape`` is ``()``.

    Raises:
        ValueError: both or neither of ``probs``/``logits``, or (with validation) a
        probability outside ``(0, 1]``.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, given = _probs_or_logits(probs, logits)
        (self.__dict__[name],) = broadcast_all(given)
        batch_shape = Size() if isinstance(given, Number) else given.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and name == "probs":
            self._check_positive(self.probs)

    def _check_positive(self, value) -> None:
        """A success probability of 0 never ends: PyTorch refuses it on its own."""
        valid = value > 0
        if not (valid.is_meta or bool(valid.all())):
            raise ValueError(f"Expected parameter probs ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) of distribution {self!r} to be positive "
                             f"but found invalid values:\n{value.detach()[~valid]}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        # inverse CDF of the floor of an exponential; u >= tiny keeps log(u) finite
        shape = self._extended_shape(sample_shape)
        with no_grad():
            u = rand(shape, dtype=self.probs.dtype, device=self.probs.device)
            u = u.clamp(min=finfo(self.probs.dtype).tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # a sure success (p = 1) at k = 0 has probability 1: 0 * log(0) must be 0
        probs = probs.masked_fill((probs == 1) & (value == 0), 0.0)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs,
                                                reduction="none") / self.probs
