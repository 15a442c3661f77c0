"""The lazy convolutions: ``LazyConv1d``, ``LazyConv2d``, ``LazyConv3d`` and
``LazyConvTranspose1d``, ``2d``, ``3d`` take ``in_channels`` from their first input.

``_LazyConvXdMixin`` (PyTorch's name) holds what they share: the rank check, the channel
read (``infer_channels``), the ``groups`` check deferred to the first input, and the
materialisation of the weight and bias. The two constructors (direct and transposed, whose
arguments differ as in PyTorch) sit in two small private bases; each public class only
names the class it becomes.
"""

from __future__ import annotations

from ..errors import ShapeError
from ..ops.shapes import fmt
from ..tensor import Tensor
from .conv import Conv1d, Conv2d, _check_groups_and_mode
from .conv3d import Conv3d, ConvTranspose3d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d
from .lazy import LazyModuleMixin, infer_channels, materialize
from .parameter import UninitializedParameter

_SPATIAL = {1: "L", 2: "H, W", 3: "D, H, W"}  # the spatial dims' letters, for messages


class _LazyConvXdMixin(LazyModuleMixin):
    """Shape inference of the lazy convolutions: ``in_channels`` is the input's channel
    count (dimension 1 of a batch, 0 of one sample); the weight is then
    ``(out_channels, in_channels / groups, *kernel_size)`` (transposed: ``(in_channels,
    out_channels / groups, *kernel_size)``) and initialised as the ordinary layer's.

    Raises:
        ShapeError: the first input is not ``dims + 1`` or ``dims + 2``-D.
        ValueError: its channel count, or ``out_channels``, is not divisible by ``groups``
            (PyTorch: a RuntimeError of the convolution for ``out_channels``).
    """

    def _make_placeholders(self, out_channels: int, bias: bool, device, dtype) -> None:
        """Replace the zero-channel weight and bias the ordinary constructor made."""
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        # The constructor's call (no channels yet) and a placeholder have nothing to draw.
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _check_input_dim(self, input: Tensor) -> None:
        n = self.dims
        if input.dim() not in (n + 1, n + 2):
            spatial = _SPATIAL[n]
            raise ShapeError(f"conv{n}d", f"expected a {n + 1}-D (C_in, {spatial}) or {n + 2}-D "
                                          f"(N, C_in, {spatial}) input to {type(self).__name__}, "
                                          f"but got input of shape {fmt(input.shape)}")

    def _channel_dim(self, input: Tensor) -> int:
        return input.dim() - self.dims - 1

    def initialize_parameters(self, input: Tensor, *args) -> None:
        if not self.has_uninitialized_params():  # loaded from a state dict
            shape = self.weight.shape
            self.in_channels = shape[0] if self.transposed else shape[1] * self.groups
            return
        channels = infer_channels(self, input)
        # The ordinary layer's checks, deferred to the first input (before any change).
        _check_groups_and_mode(channels, self.out_channels, self.groups, self.padding_mode)
        self.in_channels = channels
        materialize(self, {"weight": self._weight_shape(), "bias": (self.out_channels,)})


class _LazyDirectConvNd(_LazyConvXdMixin):
    """The constructor of ``LazyConv1d``/``2d``/``3d``: ``Conv2d``'s arguments but
    ``in_channels``."""

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        # No bias yet: it would be a tensor thrown away at once.
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device, dtype)
        self._make_placeholders(out_channels, bias, device, dtype)


class _LazyConvTransposeNd(_LazyConvXdMixin):
    """The constructor of ``LazyConvTranspose1d``/``2d``/``3d``: ``ConvTranspose2d``'s
    arguments but ``in_channels``."""

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros",
                 device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device, dtype)
        self._make_placeholders(out_channels, bias, device, dtype)


class LazyConv1d(_LazyDirectConvNd, Conv1d):
    """A ``Conv1d`` whose ``in_channels`` is the channel count of its first input.

    Shape:
        input ``(N, C_in, L)`` or ``(C_in, L)`` -> as ``Conv1d``.
    """

    cls_to_become = Conv1d


class LazyConv2d(_LazyDirectConvNd, Conv2d):
    """A ``Conv2d`` whose ``in_channels`` is the channel count of its first input.

    Shape:
        input ``(N, C_in, H, W)`` or ``(C_in, H, W)`` -> as ``Conv2d``.
    """

    cls_to_become = Conv2d


class LazyConv3d(_LazyDirectConvNd, Conv3d):
    """A ``Conv3d`` whose ``in_channels`` is the channel count of its first input.

    Shape:
        input ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)`` -> as ``Conv3d``.
    """

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    """A ``ConvTranspose1d`` whose ``in_channels`` is the channel count of its first input.

    Shape:
        input ``(N, C_in, L)`` or ``(C_in, L)`` -> as ``ConvTranspose1d``.
    """

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    """A ``ConvTranspose2d`` whose ``in_channels`` is the channel count of its first input.

    Shape:
        input ``(N, C_in, H, W)`` or ``(C_in, H, W)`` -> as ``ConvTranspose2d``.
    """

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    """A ``ConvTranspose3d`` whose ``in_channels`` is the channel count of its first input.

    Shape:
        input ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)`` -> as ``ConvTranspose3d``.
    """

    cls_to_become = ConvTranspose3d


__all__ = ["LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]
