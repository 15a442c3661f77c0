"""Activation layers: ``ReLU``, ``LeakyReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``,
``LogSoftmax``, ``GELU`` and ``SiLU``."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


class InplaceActivation(Module):
    """Base of the layers whose only argument is ``inplace``. It is accepted for
    compatibility and shown in the repr when True, as PyTorch's; the result is always a new
    tensor (minitorch_meta has no in-place autograd ops)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(InplaceActivation):
    """``max(x, 0)`` elementwise. ``inplace`` is accepted for compatibility; the result is
    always a new tensor (minitorch_meta has no in-place autograd ops).

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input)


class LeakyReLU(Module):
    """``x`` where positive, else ``negative_slope * x``, elementwise. ``inplace`` is
    accepted for compatibility; as with ``ReLU``, the result is always a new tensor.

    Shape:
        unchanged.
    """

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


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


class _SoftmaxBase(Module):
    """A softmax-like layer along ``dim``; ``dim=None`` takes PyTorch's legacy implicit dim
    (0 for 0-, 1- and 3-D inputs, else 1) with its deprecation warning."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """``exp(x) / sum(exp(x))`` along ``dim``: each slice along ``dim`` sums to 1.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)


class LogSoftmax(_SoftmaxBase):
    """``log(softmax(x))`` along ``dim``, computed stably; pair it with ``NLLLoss``.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)


class GELU(Module):
    """``x * Phi(x)`` elementwise, ``Phi`` the standard normal distribution function; with
    ``approximate='tanh'``, ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x³)))``.

    ``approximate`` is checked when the layer is called, as in PyTorch.

    Shape:
        unchanged.
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(InplaceActivation):
    """``x * sigmoid(x)`` elementwise (swish). ``inplace`` is accepted for compatibility; as
    with ``ReLU``, the result is always a new tensor.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input)
