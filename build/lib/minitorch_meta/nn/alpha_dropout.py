"""Alpha dropout for self-normalising networks (``SELU``): ``F.alpha_dropout``,
``F.feature_alpha_dropout``, ``nn.AlphaDropout`` and ``nn.FeatureAlphaDropout``.

A dropped element (or, for the feature form, a whole channel ``input[n, c]``) is set to
SELU's negative saturation ``-alpha * scale`` rather than 0, then everything is mapped by
``a * x + b`` chosen so that inputs of mean 0 and variance 1 keep them. PyTorch's
composition: ``input * (keep * a) + b`` with ``b = (keep - 1) * alpha' * a + alpha' * a * p``
(``alpha' = alpha * scale``), so the ``grad_fn`` is ``AddBackward0`` and the gradient
``keep * a``. The keep mask is ``channel_dropout.keep_mask``'s.
"""

from __future__ import annotations

import math

from ..tensor import Tensor
from .channel_dropout import _DropoutNd, check_probability, keep_mask

#: SELU's negative saturation value, ``alpha * scale`` (PyTorch's constant)
_SATURATION = 1.7580993408473766


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Set each element to SELU's saturation with probability ``p``, then scale and shift
    so that a mean of 0 and a variance of 1 are kept; the identity when not training.
    ``inplace`` is accepted and returns a new tensor.

    Shape:
        unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``. RuntimeError: an integer input, while
            training.
    """
    check_probability(p)
    return _alpha_dropout(input, p, training, per_channel=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """``alpha_dropout`` of whole channels ``input[n, c]``: one draw per (sample, channel).

    Shape:
        ``(N, C, *)`` -> unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``. RuntimeError: an input of fewer than 2
            dimensions, while training.
    """
    check_probability(p)
    return _alpha_dropout(input, p, training, per_channel=True)


def _alpha_dropout(input: Tensor, p: float, training: bool, per_channel: bool) -> Tensor:
    # PyTorch's order: these return before the rank is checked
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input * 0.0
    if not input.is_floating_point():
        raise RuntimeError(f"alpha dropout: expected a floating-point input, got {input.dtype} "
                           "(its result is float and cannot be stored in it, as in PyTorch); "
                           "convert it first, e.g. with .float()")
    keep = keep_mask(input, p, per_channel).to(input.dtype)
    a = 1.0 / math.sqrt((_SATURATION * _SATURATION * p + 1) * (1 - p))
    shift = (keep - 1) * (_SATURATION * a) + _SATURATION * a * p
    return input * (keep * a) + shift


class AlphaDropout(_DropoutNd):
    """``alpha_dropout`` while training, the identity in eval mode. ``inplace`` is
    accepted; the result is always a new tensor.

    Shape:
        unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """``feature_alpha_dropout`` while training (whole channels), the identity in eval mode.

    Shape:
        ``(N, C, *)`` -> unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return feature_alpha_dropout(input, self.p, self.training)
