"""``Independent(base_distribution, reinterpreted_batch_ndims)``: batch dims as event dims."""

from __future__ import annotations

from ..size import Size
from . import constraints
from .distribution import Distribution
from .utils import sum_rightmost


class Independent(Distribution):
    """``base_distribution`` with its ``reinterpreted_batch_ndims`` rightmost batch dims
    read as one event: ``log_prob`` and ``entropy`` sum over them (a diagonal Normal as
    ``Independent(Normal(loc, scale), 1)``). Sampling is the base's.

    Shape:
        ``batch_shape`` is the base's without its last ``reinterpreted_batch_ndims`` dims,
        which join the front of ``event_shape``.

    Raises:
        ValueError: more dims to reinterpret than the base has batch dims.
    """

    arg_constraints: dict = {}

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int,
                 validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= "
                             f"len(base_distribution.batch_shape), actual "
                             f"{reinterpreted_batch_ndims} vs "
                             f"{len(base_distribution.batch_shape)}")
        shape = base_distribution.batch_shape + base_distribution.event_shape
        split = len(shape) - reinterpreted_batch_ndims - len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[:split], shape[split:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        kept = self._event_shape[:self.reinterpreted_batch_ndims]
        new.base_dist = self.base_dist.expand(Size(batch_shape) + kept)
        new._batch_shape = Size(batch_shape)
        return new

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        # enumerating a whole event of several coins is not offered (as in PyTorch)
        return self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support

    @property
    def support(self):
        if self.reinterpreted_batch_ndims == 0:
            return self.base_dist.support
        return constraints.independent(self.base_dist.support, self.reinterpreted_batch_ndims)

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
