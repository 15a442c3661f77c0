"""``F.unfold``/``F.fold`` and their layers ``Unfold``/``Fold``: sliding blocks of an image
as columns, and columns added back into an image (``ops/fold.py``)."""

from __future__ import annotations

from ..ops import fold as fold_ops
from ..tensor import Tensor
from .module import Module


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Every ``kernel_size`` block of the zero-padded input as a column (im2col).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C * kH * kW, L)`` or ``(C * kH * kW, L)``,
        ``L`` the number of blocks: ``prod((size + 2 * padding - dilation * (kernel - 1)
        - 1) // stride + 1)`` over H and W.
    """
    return fold_ops.Unfold(kernel_size=kernel_size, dilation=dilation, padding=padding,
                           stride=stride)(input)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Columns of blocks added into an image of ``output_size`` (col2im, ``unfold``'s
    adjoint: overlapping values add up).

    Shape:
        ``(N, C * kH * kW, L)`` or ``(C * kH * kW, L)`` -> ``(N, C, H, W)`` or ``(C, H, W)``
        with ``(H, W) = output_size``; ``L`` must be the number of blocks that fit in it.
    """
    return fold_ops.Fold(output_size=output_size, kernel_size=kernel_size, dilation=dilation,
                         padding=padding, stride=stride)(input)


class Unfold(Module):
    """``F.unfold`` as a layer; settings are kept as given, for PyTorch's repr.

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C * kH * kW, L)`` or
        ``(C * kH * kW, L)`` (see ``F.unfold``).
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """``F.fold`` as a layer; settings are kept as given, for PyTorch's repr.

    Shape:
        ``(N, C * kH * kW, L)`` or ``(C * kH * kW, L)`` -> ``(N, C, H, W)`` or
        ``(C, H, W)`` with ``(H, W) = output_size`` (see ``F.fold``).
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                    self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")
