"""``MaxPool3d``, ``AvgPool3d``, ``AdaptiveAvgPool3d`` and ``AdaptiveMaxPool3d``: pooling
over volumes, with the 2-D layers' settings and reprs (kept as given, as PyTorch keeps
them)."""

from __future__ import annotations

from ..tensor import Tensor
from . import pool3d_functions as F3
from .adaptive_max_pooling import _AdaptiveMaxPoolNd
from .avg_pooling import _AdaptiveAvgPoolNd, _AvgPoolNd
from .pooling import _MaxPoolNd


class MaxPool3d(_MaxPoolNd):
    """Max pooling over volumes; ``stride`` defaults to ``kernel_size``.

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``(N, C, D_out, H_out, W_out)`` or
        ``(C, D_out, H_out, W_out)`` with ``D_out = (D + 2 * padding - dilation *
        (kernel_size - 1) - 1) // stride + 1`` (rounded up with ``ceil_mode``; likewise H, W).
    """

    def forward(self, input: Tensor):
        return F3.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                             ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool3d(_AvgPoolNd):
    """Average pooling over volumes; ``stride`` defaults to ``kernel_size``.

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``(N, C, D_out, H_out, W_out)`` or
        ``(C, D_out, H_out, W_out)`` with ``D_out = (D + 2 * padding - kernel_size) //
        stride + 1`` (rounded up with ``ceil_mode``; likewise H and W).
    """

    def forward(self, input: Tensor) -> Tensor:
        return F3.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of volumes to a fixed ``output_size`` (an int, or three sizes whose
    ``None`` keeps that input size).

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``(N, C, *output_size)`` or
        ``(C, *output_size)``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F3.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """``F.adaptive_max_pool3d`` as a layer (``None`` in ``output_size`` keeps that size).

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``(N, C, *output_size)`` or
        ``(C, *output_size)``.
    """

    def forward(self, input: Tensor):
        return F3.adaptive_max_pool3d(input, self.output_size, self.return_indices)
