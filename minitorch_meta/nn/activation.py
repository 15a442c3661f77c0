"""``ReLU``: the rectifier as a layer."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


class ReLU(Module):
    """``max(x, 0)`` elementwise. ``inplace`` is accepted for compatibility; the result is
    always a new tensor (minitorch_meta has no in-place autograd ops).

    Shape:
        unchanged.
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """``tanh(x)`` elementwise (the lecture pairs it with ±1 targets and ``MSELoss``).

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)
