"""The padding layers, ``F.pad`` of the last 1, 2 or 3 dims: ``ZeroPad1d/2d/3d``,
``ConstantPad1d/2d/3d``, ``ReflectionPad1d/2d/3d``, ``ReplicationPad1d/2d/3d`` and
``CircularPad1d/2d/3d``, with PyTorch's class tree, settings and reprs."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


def _ntuple(padding, n: int) -> tuple:
    """``padding`` as a tuple: an int pads all ``n`` sides; a sequence is kept as given
    (PyTorch's ``_ntuple``: its length is checked by ``F.pad``)."""
    if isinstance(padding, (tuple, list)):
        return tuple(padding)
    return (padding,) * n


class _PadNd(Module):
    """Pads the last ``dims`` dims by ``padding``: an int for every side, or
    ``(left, right, top, bottom, front, back)`` cut to ``2 * dims`` numbers, the last dim
    first.

    Shape:
        ``(N, C, *spatial)`` or ``(C, *spatial)`` -> each padded dim grows by its two pads.
    """

    mode = "constant"
    dims = 2

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2 * self.dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    """Pads with ``value`` (see ``_PadNd`` for ``padding``).

    Shape:
        ``(N, C, *spatial)`` or ``(C, *spatial)`` -> each padded dim grows by its two pads.
    """

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with ``value``: ``padding`` an int or ``(left, right)``.

    Shape:
        ``(N, C, W)`` or ``(C, W)`` -> ``W + left + right``.
    """

    dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dims with ``value``: ``padding`` an int or
    ``(left, right, top, bottom)``.

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``H + top + bottom``, ``W + left + right``.
    """


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dims with ``value``: ``padding`` an int or
    ``(left, right, top, bottom, front, back)``.

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``D + front + back``,
        ``H + top + bottom``, ``W + left + right``.
    """

    dims = 3


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros (see ``ConstantPad1d``).

    Shape:
        ``(N, C, W)`` or ``(C, W)`` -> ``W + left + right``.
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dims with zeros (see ``ConstantPad2d``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``H + top + bottom``, ``W + left + right``.
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dims with zeros (see ``ConstantPad3d``).

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``D + front + back``,
        ``H + top + bottom``, ``W + left + right``.
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_PadNd):
    """Pads with the reflection about the edge (pads smaller than the dims)."""

    mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Pads the last dim with its reflection about the edge: ``padding`` an int or
    ``(left, right)``, each smaller than the dim.

    Shape:
        ``(N, C, W)`` or ``(C, W)`` -> ``W + left + right``.
    """

    dims = 1


class ReflectionPad2d(_ReflectionPadNd):
    """Pads the last two dims with their reflection about the edge (see ``_PadNd``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``H + top + bottom``, ``W + left + right``.
    """


class ReflectionPad3d(_ReflectionPadNd):
    """Pads the last three dims with their reflection about the edge (see ``_PadNd``).

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``D + front + back``,
        ``H + top + bottom``, ``W + left + right``.
    """

    dims = 3


class _ReplicationPadNd(_PadNd):
    """Pads by repeating the edge elements."""

    mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Pads the last dim by repeating its edge elements (see ``_PadNd``).

    Shape:
        ``(N, C, W)`` or ``(C, W)`` -> ``W + left + right``.
    """

    dims = 1


class ReplicationPad2d(_ReplicationPadNd):
    """Pads the last two dims by repeating their edge elements (see ``_PadNd``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``H + top + bottom``, ``W + left + right``.
    """


class ReplicationPad3d(_ReplicationPadNd):
    """Pads the last three dims by repeating their edge elements (see ``_PadNd``).

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``D + front + back``,
        ``H + top + bottom``, ``W + left + right``.
    """

    dims = 3


class _CircularPadNd(_PadNd):
    """Pads by wrapping around: the other edge's elements. The layer checks the input's
    rank itself, as PyTorch's does (``F.pad`` would accept a longer batch shape).

    Raises:
        ValueError: an input of another rank than ``dims + 1`` or ``dims + 2``.
    """

    mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (self.dims + 1, self.dims + 2):
            raise ValueError(f"expected {self.dims + 1}D or {self.dims + 2}D input (got "
                             f"{input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pads the last dim circularly (see ``_PadNd``).

    Shape:
        ``(N, C, W)`` or ``(C, W)`` -> ``W + left + right``.
    """

    dims = 1


class CircularPad2d(_CircularPadNd):
    """Pads the last two dims circularly (see ``_PadNd``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``H + top + bottom``, ``W + left + right``.
    """


class CircularPad3d(_CircularPadNd):
    """Pads the last three dims circularly (see ``_PadNd``).

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``D + front + back``,
        ``H + top + bottom``, ``W + left + right``.
    """

    dims = 3
