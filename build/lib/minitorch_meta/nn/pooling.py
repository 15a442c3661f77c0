"""``MaxPool2d``: the maximum over sliding windows, and ``_MaxPoolNd``, the settings and
repr every max pooling layer shares (as PyTorch's)."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


class _MaxPoolNd(Module):
    """The settings of ``MaxPool1d``, ``2d`` and ``3d``, kept as given (``stride`` defaults
    to ``kernel_size``) so that reprs read like PyTorch's. A private base, as PyTorch's, so
    that ``MaxPool1d`` and ``3d`` are not ``MaxPool2d`` instances."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_MaxPoolNd):
    """Max pooling; ``stride`` defaults to ``kernel_size``. Settings are kept as given, so
    the repr reads like PyTorch's (``MaxPool2d(kernel_size=2, stride=2, ...)``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` with
        ``H_out = (H + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1``
        (rounded up with ``ceil_mode``).
    """

    def forward(self, input: Tensor):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)
