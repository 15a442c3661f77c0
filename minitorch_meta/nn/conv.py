"""``Conv2d`` and ``Conv1d``: banks of learned filters (cross-correlation, as in PyTorch);
``_ConvNd``, what they share with the transposed convolutions, and ``_DirectConvNd``, the
construction every direct (not transposed) convolution layer shares."""

from __future__ import annotations

from ..int_arguments import is_int
from ..ops.conv import ntuple
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import add_weight_and_bias

_PADDING_STRINGS = ("same", "valid")
_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _check_padding(padding, stride, dims: int = 2):
    """Normalise ``padding`` once: ``dims`` ints, or ``'same'``/``'valid'``."""
    if isinstance(padding, str):
        if padding not in _PADDING_STRINGS:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                             f"{set(_PADDING_STRINGS)}")
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        return padding
    return ntuple(padding, dims, "padding")


def _check_groups_and_mode(in_channels: int, out_channels: int, groups,
                           padding_mode: str) -> None:
    """PyTorch's checks of every convolution layer: ``groups`` a positive int dividing both
    channel counts, and a known padding mode."""
    if not is_int(groups) or groups <= 0:
        raise ValueError(f"groups must be a positive integer, got {groups!r}")
    if in_channels % groups:
        raise ValueError(f"in_channels must be divisible by groups, got in_channels="
                         f"{in_channels} and groups={groups}")
    if out_channels % groups:
        raise ValueError(f"out_channels must be divisible by groups, got out_channels="
                         f"{out_channels} and groups={groups}")
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, but got "
                         f"padding_mode='{padding_mode}'")


class _ConvNd(Module):
    """What the convolution layers share: settings kept as PyTorch keeps them (tuples of
    ``dims`` ints), the weight and bias, PyTorch's initialisation and repr."""

    dims = 2  # spatial dimensions

    def _setup(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
               transposed, output_padding, groups, bias, padding_mode, device, dtype) -> None:
        n = self.dims
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = ntuple(kernel_size, n, "kernel_size")
        self.stride = ntuple(stride, n, "stride")
        self.padding = _check_padding(padding, self.stride, n)
        self.dilation = ntuple(dilation, n, "dilation")
        self.transposed = transposed
        self.output_padding = ntuple(output_padding, n, "output_padding")
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _pad_widths(self.padding, self.kernel_size,
                                                            self.dilation)
        add_weight_and_bias(self, self._weight_shape(), bias, device, dtype,
                            bias_size=out_channels)
        self.reset_parameters()

    def _weight_shape(self) -> tuple:
        """The weight's shape for the current channel counts (lazy layers ask it later)."""
        if self.transposed:  # the weight maps input channels to output channels
            return (self.in_channels, self.out_channels // self.groups) + self.kernel_size
        return (self.out_channels, self.in_channels // self.groups) + self.kernel_size

    def reset_parameters(self) -> None:
        """Draw fresh filters and bias from PyTorch's default distributions."""
        init.default_layer_init_(self.weight, self.bias)

    def extra_repr(self) -> str:
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class _DirectConvNd(_ConvNd):
    """The construction of the direct convolutions ``Conv1d``, ``Conv2d`` and ``Conv3d``
    (PyTorch's checks, then ``_ConvNd``'s settings and parameters). A private base rather
    than ``Conv2d`` itself so that, as in PyTorch, ``Conv1d`` and ``Conv3d`` are not
    ``Conv2d`` instances (init loops test ``isinstance(m, nn.Conv2d)``)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None) -> None:
        super().__init__()
        _check_groups_and_mode(in_channels, out_channels, groups, padding_mode)
        self._setup(in_channels, out_channels, kernel_size, stride, padding, dilation, False, 0,
                    groups, bias, padding_mode, device, dtype)

    def _padded_forward(self, conv, input: Tensor) -> Tensor:
        """``conv`` (``F.conv1d``/``2d``/``3d``) of ``input`` padded by ``F.pad`` in
        ``padding_mode`` ('reflect', 'replicate' or 'circular'), then unpadded: PyTorch's
        way, so values and gradients are its."""
        padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return conv(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)


def _pad_widths(padding, kernel_size, dilation) -> list:
    """``F.pad``'s widths for ``padding`` (last dim first, each side): an int tuple repeated
    per side; 'same' splits each dim's ``dilation * (k - 1)`` with the extra one after, as
    PyTorch does; 'valid' none."""
    if padding == "valid":
        return [0, 0] * len(kernel_size)
    if padding == "same":
        widths = []
        for k, d in zip(reversed(kernel_size), reversed(dilation)):
            total = d * (k - 1)
            widths += [total // 2, total - total // 2]
        return widths
    return [p for p in reversed(padding) for _ in range(2)]


class Conv2d(_DirectConvNd):
    """2-D convolution with ``stride``, ``padding`` (ints, ``'same'``, ``'valid'``),
    ``dilation``, ``groups`` (each of ``groups`` groups of input channels has its own
    ``out_channels / groups`` filters; depthwise when ``groups == in_channels``) and an
    optional bias. The weight is ``(out_channels, in_channels / groups, kH, kW)``.

    Initialised as in PyTorch: weight ~ kaiming_uniform(a=sqrt(5)) and bias ~
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with ``fan_in = in_channels / groups * kH * kW``.

    Shape:
        input ``(N, C_in, H, W)`` or ``(C_in, H, W)`` -> ``(N, C_out, H_out, W_out)`` with
        ``H_out = (H + 2 * padding - dilation * (kH - 1) - 1) // stride + 1`` (likewise W).

    Raises:
        ValueError: a bad padding string, ``'same'`` with stride > 1, groups not a positive
            int or not dividing ``in_channels`` and ``out_channels``.
    """

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            return self._padded_forward(F.conv2d, input)
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class Conv1d(_DirectConvNd):
    """1-D convolution over sequences, with ``Conv2d``'s arguments (one int each) and
    initialisation (``fan_in = in_channels / groups * kW``).

    Shape:
        input ``(N, C_in, L)`` or ``(C_in, L)`` -> ``(N, C_out, L_out)`` or
        ``(C_out, L_out)`` with ``L_out = (L + 2 * padding - dilation * (kW - 1) - 1) //
        stride + 1``.

    Raises:
        ValueError: as ``Conv2d``.
    """

    dims = 1

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            return self._padded_forward(F.conv1d, input)
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)
