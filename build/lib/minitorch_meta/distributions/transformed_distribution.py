"""``TransformedDistribution(base_distribution, transforms)``: a base pushed through
transforms (``LogNormal`` is ``Normal`` through ``ExpTransform``)."""

from __future__ import annotations

from ..autograd import no_grad
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transform import ComposeTransform, Transform
from .utils import sum_rightmost


def _as_list(transforms) -> list:
    """``transforms`` as a list of Transforms, or PyTorch's ValueError."""
    if isinstance(transforms, Transform):
        return [transforms]
    if isinstance(transforms, list):
        if not all(isinstance(t, Transform) for t in transforms):
            raise ValueError("transforms must be a Transform or a list of Transforms")
        return transforms
    raise ValueError(f"transforms must be a Transform or list, but was {transforms}")


class TransformedDistribution(Distribution):
    """``y = t_n(... t_1(x))`` for ``x`` drawn from ``base_distribution``.

    ``log_prob(y)`` is the base's at ``x`` (found through the inverses) minus each
    transform's log-det-Jacobian; ``rsample`` is differentiable when the base's is. The
    base is expanded when the transforms broadcast it (an ``AffineTransform`` with a
    batch of scales), and read as ``Independent`` when the transforms need more event
    dims than it has.

    Shape:
        ``batch_shape + event_shape`` is the transforms' ``forward_shape`` of the base's;
        the event is the larger of the last transform's codomain event and the base's
        event carried through.

    Raises:
        ValueError: ``transforms`` is not a Transform or a list of them, or the base has
        fewer dims than the transforms need.
    """

    arg_constraints: dict = {}

    def __init__(self, base_distribution: Distribution, transforms, validate_args=None):
        self.transforms = _as_list(transforms)
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{transform.domain.event_dim}, but got {base_shape}.")
        forward_shape = Size(transform.forward_shape(base_shape))
        expanded_base_shape = Size(transform.inverse_shape(forward_shape))
        if base_shape != expanded_base_shape:
            base_batch = expanded_base_shape[:len(expanded_base_shape) - base_event_dim]
            base_distribution = base_distribution.expand(base_batch)
        reinterpreted = transform.domain.event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The same transforms over the base expanded to what ``batch_shape`` needs; the
        subclasses' own parameter tensors are expanded too."""
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        kept = len(self._batch_shape)
        for name, value in self.__dict__.items():
            if isinstance(value, Tensor):
                value = value.expand(batch_shape + value.shape[kept:])
            new.__dict__[name] = value
        shape = batch_shape + self._event_shape
        for transform in reversed(self.transforms):
            shape = transform.inverse_shape(shape)
        base_batch = Size(shape[:len(shape) - len(self.base_dist.event_shape)])
        new.base_dist = self.base_dist.expand(base_batch)
        new._batch_shape = batch_shape
        return new

    @property
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self._event_shape) > support.event_dim:
            support = constraints.independent(support, len(self._event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def sample(self, sample_shape=()):
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self._event_shape)
        log_prob = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                event_dim - transform.domain.event_dim)
            y = x
        return log_prob + sum_rightmost(self.base_dist.log_prob(y),
                                        event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """``value`` for an increasing map, ``1 - value`` when the transforms decrease."""
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for transform in reversed(self.transforms):
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value
