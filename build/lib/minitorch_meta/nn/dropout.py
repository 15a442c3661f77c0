"""``Dropout``: random zeroing during training, the identity in eval mode."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .channel_dropout import _DropoutNd


class Dropout(_DropoutNd):
    """Zero each element with probability ``p`` while training; scale the rest by
    ``1 / (1 - p)`` so that the expected value is unchanged.

    Shape:
        unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training)
