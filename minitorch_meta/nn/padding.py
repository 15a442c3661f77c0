"""``ZeroPad2d``, ``ConstantPad2d``, ``ReflectionPad2d``, ``ReplicationPad2d``: ``F.pad`` of
the last two dims as layers."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


def _quadruple(padding) -> tuple:
    """``padding`` as ``(left, right, top, bottom)``: an int pads all four sides."""
    if isinstance(padding, (tuple, list)):
        return tuple(padding)
    return (padding,) * 4


class _Pad2d(Module):
    """Pads the last two dims by ``padding`` (an int, or ``(left, right, top, bottom)``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``H + top + bottom``, ``W + left + right``.
    """

    mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ConstantPad2d(_Pad2d):
    """Pads the last two dims with ``value`` (see ``_Pad2d`` for ``padding``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``H + top + bottom``, ``W + left + right``.
    """

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dims with zeros (see ``_Pad2d`` for ``padding``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``H + top + bottom``, ``W + left + right``.
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad2d(_Pad2d):
    """Pads the last two dims with their reflection about the edge (pads smaller than the
    dims; see ``_Pad2d`` for ``padding``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``H + top + bottom``, ``W + left + right``.
    """

    mode = "reflect"


class ReplicationPad2d(_Pad2d):
    """Pads the last two dims by repeating their edge elements (see ``_Pad2d``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``H + top + bottom``, ``W + left + right``.
    """

    mode = "replicate"
