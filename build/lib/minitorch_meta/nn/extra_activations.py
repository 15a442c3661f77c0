"""Yet more activation layers: ``GLU``, ``Softmin``, ``Hardshrink``, ``Softshrink``,
``Tanhshrink``, ``Threshold``, ``CELU`` and ``RReLU``.

Constructor arguments, defaults and reprs are PyTorch's; the arguments are checked when
the layer is called, as in PyTorch. ``inplace=True`` is accepted and shown in the repr,
but the result is always a new tensor, as for ``ReLU`` (docs/differences.md).
"""

from __future__ import annotations

from ..tensor import Tensor
from . import extra_activation_functions as A
from .activation import _SoftmaxBase
from .module import Module
from .more_activations import AlphaActivation


class GLU(Module):
    """The gated linear unit ``a * sigmoid(b)``, ``a`` and ``b`` the halves of the input
    along ``dim``.

    Shape:
        ``(*, 2 n, *)`` -> ``(*, n, *)``.
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return A.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(_SoftmaxBase):
    """``softmax(-x)`` along ``dim``: each slice along ``dim`` sums to 1, the smallest
    value weighing most.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.softmin(input, self.dim)


class _Shrink(Module):
    """What ``Hardshrink`` and ``Softshrink`` share: ``lambd``, shown alone in the repr.
    A private base because in PyTorch neither layer derives from the other."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    """``x`` where ``|x| > lambd``, else 0.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.hardshrink(input, self.lambd)


class Softshrink(_Shrink):
    """``x`` moved ``lambd`` towards 0, and 0 where ``|x| <= lambd``.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.softshrink(input, self.lambd)


class Tanhshrink(Module):
    """``x - tanh(x)``.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.tanhshrink(input)


class Threshold(Module):
    """``value`` where ``x <= threshold``, else ``x``.

    Shape:
        unchanged.
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return A.threshold(input, self.threshold, self.value)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{inplace}"


class CELU(AlphaActivation):
    """``x`` where positive, else ``alpha * (exp(x / alpha) - 1)``.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.celu(input, self.alpha)


class RReLU(Module):
    """``x`` where positive, else ``slope * x``: while training a slope drawn from
    ``U(lower, upper)`` for each element, in eval mode the mean ``(lower + upper) / 2``.

    Shape:
        unchanged.
    """

    def __init__(self, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return A.rrelu(input, self.lower, self.upper, self.training)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"
