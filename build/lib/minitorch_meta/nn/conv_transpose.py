"""``ConvTranspose2d`` and ``ConvTranspose1d``: learned upsampling by transposed convolution
(the gradient of a convolution with respect to its input), PyTorch's layers, and
``_ConvTransposeNd``, what every transposed convolution layer shares (as PyTorch's)."""

from __future__ import annotations

from ..size import Size
from ..tensor import Tensor
from . import functional as F
from .conv import _check_groups_and_mode, _ConvNd


class _ConvTransposeNd(_ConvNd):
    """The construction, forward and ``output_size`` rule of ``ConvTranspose1d``, ``2d`` and
    ``3d``; each names its functional form in ``_function``. A private base, as PyTorch's,
    so that ``ConvTranspose1d`` and ``3d`` are not ``ConvTranspose2d`` instances."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__()
        name = type(self).__name__
        _check_groups_and_mode(in_channels, out_channels, groups, padding_mode)
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        if isinstance(padding, str):
            raise ValueError(f"{name}: padding must be an int or a tuple of ints, got "
                             f"{padding!r} ('same' and 'valid' are for convolutions only)")
        self._setup(in_channels, out_channels, kernel_size, stride, padding, dilation, True,
                    output_padding, groups, bias, padding_mode, device, dtype)

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        output_padding = self._output_padding(input, output_size)
        return self._function(input, self.weight, self.bias, self.stride, self.padding,
                              output_padding, self.groups, self.dilation)

    def _output_padding(self, input: Tensor, output_size) -> tuple:
        """``output_padding``, or the one that gives ``output_size`` (spatial sizes, or the
        whole output shape): PyTorch's rule, each size between the smallest output and
        ``stride - 1`` more."""
        if output_size is None:
            return self.output_padding
        n = self.dims
        kept = 2 if input.dim() == n + 2 else 1  # batch and channel dims, or channel only
        sizes = output_size  # sliced, not converted: the error shows it as given
        if len(sizes) == kept + n:
            sizes = sizes[kept:]
        if len(sizes) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have "
                             f"{n} or {kept + n} elements (got {len(sizes)})")
        spatial = tuple(input.shape)[-n:]
        smallest = [(size - 1) * s - 2 * p + d * (k - 1) + 1 for size, s, p, d, k in
                    zip(spatial, self.stride, self.padding, self.dilation, self.kernel_size)]
        largest = [low + s - 1 for low, s in zip(smallest, self.stride)]
        if any(not low <= size <= high for size, low, high in zip(sizes, smallest, largest)):
            raise ValueError(f"requested an output size of {sizes}, but valid sizes range from "
                             f"{smallest} to {largest} (for an input of {Size(spatial)})")
        return tuple(int(size) - low for size, low in zip(sizes, smallest))


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution with ``stride``, ``padding``, ``output_padding``,
    ``dilation`` and an optional bias; ``forward(input, output_size=None)`` may ask for an
    output size instead of ``output_padding``.

    Each of ``groups`` groups of input channels spreads into its own ``out_channels /
    groups`` output channels. The weight is ``(in_channels, out_channels / groups, kH, kW)``;
    initialised as in PyTorch: kaiming_uniform(a=sqrt(5)) and the bias in
    ``±1/sqrt(fan_in)``, where ``fan_in`` is read off the weight's dimension 1:
    ``out_channels / groups * kH * kW``.

    Shape:
        input ``(N, C_in, H, W)`` or ``(C_in, H, W)`` -> ``(N, C_out, H_out, W_out)`` or
        ``(C_out, H_out, W_out)`` with ``H_out = (H - 1) * stride - 2 * padding + dilation *
        (kH - 1) + output_padding + 1`` (likewise W).

    Raises:
        ValueError: groups not a positive int or not dividing ``in_channels`` and
            ``out_channels``, a padding mode other than ``'zeros'`` (PyTorch's message),
            padding given as a string; at forward, an ``output_size`` out of reach.
    """

    @staticmethod
    def _function(*args) -> Tensor:
        return F.conv_transpose2d(*args)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution over sequences, with ``ConvTranspose2d``'s arguments (one
    int each), initialisation and ``output_size``.

    Shape:
        input ``(N, C_in, L)`` or ``(C_in, L)`` -> ``(N, C_out, L_out)`` or
        ``(C_out, L_out)`` with ``L_out = (L - 1) * stride - 2 * padding + dilation *
        (kW - 1) + output_padding + 1``.

    Raises:
        ValueError: as ``ConvTranspose2d``.
    """

    dims = 1

    @staticmethod
    def _function(*args) -> Tensor:
        return F.conv_transpose1d(*args)
