"""``AvgPool2d`` and ``AdaptiveAvgPool2d``: means over sliding or fitted windows, and their
private bases ``_AvgPoolNd`` and ``_AdaptiveAvgPoolNd`` (as PyTorch's), what the 1-D, 2-D
and 3-D layers share."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


class _AvgPoolNd(Module):
    """The settings and repr of ``AvgPool1d``, ``2d`` and ``3d``: ``stride`` defaults to
    ``kernel_size``; kept as given, so that reprs read like PyTorch's. A private base, as
    PyTorch's, so that ``AvgPool1d`` and ``3d`` are not ``AvgPool2d`` instances."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self) -> str:
        # PyTorch's repr shows only these three.
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """Average pooling; ``stride`` defaults to ``kernel_size``. Settings are kept as given,
    so the repr reads like PyTorch's (``AvgPool2d(kernel_size=2, stride=2, padding=0)``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` or
        ``(C, H_out, W_out)`` with ``H_out = (H + 2 * padding - kernel_size) // stride + 1``
        (rounded up with ``ceil_mode``, if that window starts inside the input or the
        left padding).
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptiveAvgPoolNd(Module):
    """``output_size`` and the repr of ``AdaptiveAvgPool1d``, ``2d`` and ``3d``. A private
    base, as PyTorch's, so that the 1-D and 3-D layers are not ``AdaptiveAvgPool2d``
    instances."""

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed ``output_size``, whatever the input size (an int, or a
    pair whose ``None`` keeps that input size).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` or
        ``(C, H_out, W_out)`` where ``(H_out, W_out)`` is ``output_size``.
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)
