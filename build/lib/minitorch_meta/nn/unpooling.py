"""Max pooling's indices and their partial inverse: ``F.max_pool1d_with_indices``,
``F.max_pool2d_with_indices``, ``F.max_unpool1d``/``2d``/``3d`` and the layers
``MaxUnpool1d``/``2d``/``3d`` (``ops/unpooling.py``).

The default output size and the checks of a given ``output_size`` are PyTorch's Python
(``_unpool_output_size``), read from shapes only, so meta raises the same errors. The 1-D
form is the 2-D op on a width of 1 (``unsqueeze(-1)``, unpool, ``squeeze(-1)``), as PyTorch
composes it, so its ``grad_fn`` reads ``SqueezeBackward1`` as in PyTorch.
"""

from __future__ import annotations

from ..autocasting import autocast_op
from ..ops.conv import ntuple
from ..ops.unpooling import MaxUnpool2d as _MaxUnpool2dOp
from ..ops.unpooling import MaxUnpool3d as _MaxUnpool3dOp
from ..tensor import Tensor
from .module import Module
from .pool1d_functions import max_pool1d


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = False):
    """``max_pool1d`` that always returns ``(output, indices)`` (PyTorch's name)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode,
                      return_indices=True)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = False):
    """``max_pool2d`` that always returns ``(output, indices)`` (PyTorch's name)."""
    from .functional import max_pool2d  # functional imports this module

    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode,
                      return_indices=True)


def unpool_output_size(input: Tensor, kernel, stride, padding, output_size) -> tuple:
    """The spatial output size: ``(in - 1) * stride + kernel - 2 * padding`` per dim by
    default; a given ``output_size`` (the spatial sizes, or the whole shape) must lie
    strictly within ``stride`` of it.

    Raises:
        ValueError for an ``output_size`` of the wrong length or out of range, or a
        negative default size (PyTorch's messages).
    """
    spatial = tuple(input.shape[len(input.shape) - len(kernel):])
    default = tuple((n - 1) * s + k - 2 * p for n, k, s, p in zip(spatial, kernel, stride,
                                                                  padding))
    if output_size is None:
        sizes = default
    else:
        if len(output_size) == len(kernel) + 2:
            output_size = output_size[2:]  # shown as given, sliced (PyTorch's message)
        sizes = tuple(output_size)
        if len(sizes) != len(kernel):
            raise ValueError(f"output_size should be a sequence containing {len(kernel)} or "
                             f"{len(kernel) + 2} elements, but it has a length of "
                             f"'{len(sizes)}'")
        for d, (size, base, step) in enumerate(zip(sizes, default, stride)):
            if not base - step < size < base + step:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be '
                                 f"between {base - step} and {base + step})")
    for d, size in enumerate(sizes):
        if size < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={size}")
    return tuple(int(s) for s in sizes)


@autocast_op("max_unpool2d")
def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """The partial inverse of ``max_pool2d``: each value written at its index (a flat
    position in its output plane, as ``max_pool2d(..., return_indices=True)`` gives it),
    zeros elsewhere. ``stride`` defaults to ``kernel_size``.

    Shape:
        input and indices ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` or
        ``(C, H_out, W_out)`` with ``H_out = (H - 1) * stride - 2 * padding + kernel_size``
        (likewise W), or ``output_size``.
    """
    kernel = ntuple(kernel_size, 2, "kernel_size")
    step = kernel if stride is None else ntuple(stride, 2, "stride")
    sizes = unpool_output_size(input, kernel, step, ntuple(padding, 2, "padding"), output_size)
    return _MaxUnpool2dOp(output_size=sizes)(input, indices)


@autocast_op("max_unpool3d")
def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """The partial inverse of ``max_pool3d`` (see ``max_unpool2d``): indices are flat
    positions in each output volume.

    Shape:
        input and indices ``(N, C, D, H, W)`` or ``(C, D, H, W)`` ->
        ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)`` with
        ``D_out = (D - 1) * stride - 2 * padding + kernel_size`` (likewise H, W), or
        ``output_size``.
    """
    kernel = ntuple(kernel_size, 3, "kernel_size")
    step = kernel if stride is None else ntuple(stride, 3, "stride")
    sizes = unpool_output_size(input, kernel, step, ntuple(padding, 3, "padding"), output_size)
    return _MaxUnpool3dOp(output_size=sizes)(input, indices)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """The partial inverse of ``max_pool1d`` (see ``max_unpool2d``).

    Shape:
        input and indices ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, L_out)`` or
        ``(C, L_out)`` with ``L_out = (L - 1) * stride - 2 * padding + kernel_size``, or
        ``output_size``.
    """
    kernel = ntuple(kernel_size, 1, "kernel_size")
    step = kernel if stride is None else ntuple(stride, 1, "stride")
    sizes = unpool_output_size(input, kernel, step, ntuple(padding, 1, "padding"), output_size)
    op = _MaxUnpool2dOp(output_size=sizes + (1,))
    return op(input.unsqueeze(-1), indices.unsqueeze(-1)).squeeze(-1)


class _MaxUnpoolNd(Module):
    """Settings kept as tuples, as PyTorch keeps them (``MaxUnpool2d(kernel_size=(2, 2),
    stride=(2, 2), padding=(0, 0))``)."""

    dims = 2

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = ntuple(kernel_size, self.dims, "kernel_size")
        self.stride = ntuple(stride if stride is not None else kernel_size, self.dims,
                             "stride")
        self.padding = ntuple(padding, self.dims, "padding")

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d``: ``forward(input, indices, output_size=None)``.

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, L_out)`` or ``(C, L_out)`` with
        ``L_out = (L - 1) * stride - 2 * padding + kernel_size``, or ``output_size``.
    """

    dims = 1

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                            output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d``: ``forward(input, indices, output_size=None)``.

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` or
        ``(C, H_out, W_out)`` with ``H_out = (H - 1) * stride - 2 * padding + kernel_size``
        (likewise W), or ``output_size``.
    """

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                            output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool3d``: ``forward(input, indices, output_size=None)``.

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``(N, C, D_out, H_out, W_out)`` or
        ``(C, D_out, H_out, W_out)`` with ``D_out = (D - 1) * stride - 2 * padding +
        kernel_size`` (likewise H, W), or ``output_size``.
    """

    dims = 3

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                            output_size)
