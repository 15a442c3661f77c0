"""``Flatten``: merge a range of dimensions into one (by default all but the batch)."""

from __future__ import annotations

from ..tensor import Tensor
from .module import Module


class Flatten(Module):
    """Flatten dimensions ``start_dim`` .. ``end_dim`` into one.

    Shape:
        ``(N, *dims)`` -> ``(N, prod(dims))`` with the defaults.
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
