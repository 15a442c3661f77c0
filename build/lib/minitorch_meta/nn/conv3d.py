"""``Conv3d`` and ``ConvTranspose3d``: the volumetric convolution layers, the 2-D layers'
settings, initialisation and reprs with three ints each."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .conv import _DirectConvNd
from .conv_transpose import _ConvTransposeNd


class Conv3d(_DirectConvNd):
    """3-D convolution over volumes (video, medical scans) with ``Conv2d``'s arguments
    (three ints each) and initialisation (``fan_in = in_channels / groups * kD * kH * kW``).
    The weight is ``(out_channels, in_channels / groups, kD, kH, kW)``.

    Shape:
        input ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)`` -> ``(N, C_out, D_out, H_out,
        W_out)`` or ``(C_out, D_out, H_out, W_out)`` with ``D_out = (D + 2 * padding -
        dilation * (kD - 1) - 1) // stride + 1`` (likewise H and W).

    Raises:
        ValueError: as ``Conv2d``.
    """

    dims = 3

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            return self._padded_forward(F.conv3d, input)
        return F.conv3d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution, with ``ConvTranspose2d``'s arguments (three ints each),
    initialisation and ``output_size``. The weight is ``(in_channels, out_channels /
    groups, kD, kH, kW)``.

    Shape:
        input ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)`` -> ``(N, C_out, D_out, H_out,
        W_out)`` or ``(C_out, D_out, H_out, W_out)`` with ``D_out = (D - 1) * stride - 2 *
        padding + dilation * (kD - 1) + output_padding + 1`` (likewise H and W).

    Raises:
        ValueError: as ``ConvTranspose2d``.
    """

    dims = 3

    @staticmethod
    def _function(*args) -> Tensor:
        return F.conv_transpose3d(*args)
