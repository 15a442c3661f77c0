"""``MaxPool1d``, ``AvgPool1d`` and ``AdaptiveAvgPool1d``: pooling over sequences."""

from __future__ import annotations

from ..ops.conv import ntuple
from ..tensor import Tensor
from . import functional as F
from .avg_pooling import _AdaptiveAvgPoolNd, _AvgPoolNd
from .pooling import _MaxPoolNd


class MaxPool1d(_MaxPoolNd):
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


class AvgPool1d(_AvgPoolNd):
    """Average pooling over sequences; ``stride`` defaults to ``kernel_size``. Settings are
    kept as one-int tuples, as PyTorch keeps them (``AvgPool1d(kernel_size=(3,), ...)``).

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, L_out)`` or ``(C, L_out)`` with
        ``L_out = (L + 2 * padding - kernel_size) // stride + 1`` (rounded up with
        ``ceil_mode``, if that window starts inside the input or the left padding).
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        # PyTorch's 1-D layer takes no divisor_override (the base keeps None).
        stride = stride if stride is not None else kernel_size
        super().__init__(ntuple(kernel_size, 1, "kernel_size"), ntuple(stride, 1, "stride"),
                         ntuple(padding, 1, "padding"), ceil_mode, count_include_pad)

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling of sequences to ``output_size`` positions, whatever their length.

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, output_size)`` or ``(C, output_size)``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)
