"""``MaxPool1d``, ``AvgPool1d`` and ``AdaptiveAvgPool1d``: pooling over sequences."""

from __future__ import annotations

from ..ops.conv import ntuple
from ..tensor import Tensor
from . import functional as F
from .module import Module
from .pooling import MaxPool2d


class MaxPool1d(MaxPool2d):
    """Max pooling over sequences; ``stride`` defaults to ``kernel_size``. Settings are kept
    as given, so the repr reads like PyTorch's (``MaxPool1d(kernel_size=2, stride=2, ...)``).

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, L_out)`` or ``(C, L_out)`` with
        ``L_out = (L + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1``
        (rounded up with ``ceil_mode``).
    """

    def forward(self, input: Tensor):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    """Average pooling over sequences; ``stride`` defaults to ``kernel_size``. Settings are
    kept as one-int tuples, as PyTorch keeps them (``AvgPool1d(kernel_size=(3,), ...)``).

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, L_out)`` or ``(C, L_out)`` with
        ``L_out = (L + 2 * padding - kernel_size) // stride + 1`` (rounded up with
        ``ceil_mode``, if that window starts inside the input or the left padding).
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = ntuple(kernel_size, 1, "kernel_size")
        self.stride = ntuple(stride if stride is not None else kernel_size, 1, "stride")
        self.padding = ntuple(padding, 1, "padding")
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        # PyTorch's repr shows only these three.
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(Module):
    """Average pooling of sequences to ``output_size`` positions, whatever their length.

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, output_size)`` or ``(C, output_size)``.
    """

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
