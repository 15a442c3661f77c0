"""``nn.CrossMapLRN2d``: PyTorch's legacy cross-channel local response normalisation
layer (the op, with PyTorch's own backward, is ``ops/cross_map_lrn.py``)."""

from __future__ import annotations

from ..ops.cross_map_lrn import cross_map_lrn2d
from ..tensor import Tensor
from .module import Module


class CrossMapLRN2d(Module):
    """Each channel divided by ``(k + alpha / size * (sum of input² over the ``size``
    neighbouring channels)) ** beta``, as PyTorch's legacy layer computes it (its gradient is
    PyTorch's formula, see ``ops/cross_map_lrn.py``; ``LocalResponseNorm`` is the modern
    layer).

    Shape:
        input ``(N, C, H, W)`` only -> output of the same shape.

    Raises:
        ValueError: an input that is not 4-D.
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
