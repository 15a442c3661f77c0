"""``Dropout``: random zeroing during training, the identity in eval mode."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


class Dropout(Module):
    """Zero each element with probability ``p`` while training; scale the rest by
    ``1 / (1 - p)`` so that the expected value is unchanged.

    Shape:
        unchanged.

    Raises:
        ValueError: ``p`` is outside ``[0, 1]``.
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
