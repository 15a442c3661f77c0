"""The transforms onto the probability simplex: ``SoftmaxTransform`` (not injective,
for optimisation) and ``StickBreakingTransform`` (a bijection from ``K - 1`` reals onto
the simplex of ``K`` entries, what ``biject_to(simplex)`` gives)."""

from __future__ import annotations

from ..nn.functional import logsigmoid, pad
from ..size import Size
from ..type_info import finfo
from . import constraints
from .elementwise_transforms import _clipped_sigmoid
from .transform import Transform


def _at_least_1d(shape):
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")
    return shape


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last dim; its "inverse" is ``log(y)`` (one of the many
    preimages), and it has no log-det-Jacobian.

    Shape:
        ``x`` and ``y`` have the same shape, at least 1-D.
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        return _at_least_1d(shape)

    def inverse_shape(self, shape):
        return _at_least_1d(shape)


def _offset_logs(x):
    """``log(K - k)`` for ``k = 0 .. K - 1`` (``K`` the last dim of ``x``): the shift that
    makes ``x = 0`` break the stick into equal pieces."""
    k = x.shape[-1]
    return (k + 1 - x.new_ones(k).cumsum(-1)).log()


class StickBreakingTransform(Transform):
    """The stick-breaking bijection: entry ``k`` of ``y`` takes the fraction
    ``sigmoid(x_k - log(K - k))`` of what the entries before it left, the last entry the
    rest.

    Shape:
        ``x`` is ``(*, K - 1)``, ``y`` is ``(*, K)``.
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    def _call(self, x):
        z = _clipped_sigmoid(x - _offset_logs(x))
        left = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(left, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        # what is left of the stick can round to zero or below when the last entry is ~0
        left = (1 - y_crop.cumsum(-1)).clamp(min=finfo(y.dtype).tiny)
        return y_crop.log() - left.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        x = x - _offset_logs(x)
        # 1 - sigmoid(x) = exp(-x) sigmoid(x) keeps the terms finite
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        shape = _at_least_1d(shape)
        return Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        shape = _at_least_1d(shape)
        return Size(tuple(shape[:-1]) + (shape[-1] - 1,))
