"""Volumetric pooling functions (``F.max_pool3d``, ``F.avg_pool3d``,
``F.adaptive_avg_pool3d``, ``F.adaptive_max_pool3d`` and the ``_with_indices`` forms): thin
wrappers over ``ops/pooling3d.py`` and ``ops/adaptive_pooling3d.py``, whose ops take
unbatched ``(C, D, H, W)`` inputs themselves."""

from __future__ import annotations

from ..autocasting import autocast_op
from ..ops import adaptive_pooling3d, pooling3d
from ..tensor import Tensor
from .adaptive_mean import mean_of_other_ranks


@autocast_op("max_pool3d")
def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """Max pooling over ``kernel_size`` windows; ``stride`` defaults to ``kernel_size``.
    With ``return_indices``, also each maximum's flat position ``(d * H + h) * W + w`` in
    its input volume (int64).

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``(N, C, D_out, H_out, W_out)`` or
        ``(C, D_out, H_out, W_out)`` with ``D_out = (D + 2 * padding - dilation *
        (kernel_size - 1) - 1) // stride + 1`` (rounded up with ``ceil_mode``; likewise H, W).
    """
    return pooling3d.MaxPool3d(kernel_size=kernel_size, stride=stride, padding=padding,
                               dilation=dilation, ceil_mode=ceil_mode,
                               return_indices=return_indices)(input)


def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = False):
    """``max_pool3d`` that always returns ``(output, indices)``."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@autocast_op("avg_pool3d")
def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """Average pooling over ``kernel_size`` windows; ``stride`` defaults to ``kernel_size``.
    Padding counts in each window's divisor with ``count_include_pad``; ``divisor_override``
    replaces every divisor.

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``(N, C, D_out, H_out, W_out)`` or
        ``(C, D_out, H_out, W_out)`` with ``D_out = (D + 2 * padding - kernel_size) //
        stride + 1`` (rounded up with ``ceil_mode``; likewise H and W).
    """
    return pooling3d.AvgPool3d(kernel_size=kernel_size, stride=stride, padding=padding,
                               ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                               divisor_override=divisor_override)(input)


@autocast_op("adaptive_avg_pool3d")
def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Average pooling to ``output_size`` (an int, or three sizes whose ``None`` keeps that
    input size).

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``(N, C, *output_size)`` or
        ``(C, *output_size)``; an output of ones is the mean over D, H and W of an input of
        any rank >= 3, as PyTorch.
    """
    mean = mean_of_other_ranks("adaptive_avg_pool3d", input, output_size, 3, (4, 5))
    if mean is not None:
        return mean
    return adaptive_pooling3d.AdaptiveAvgPool3d(output_size=output_size)(input)


@autocast_op("adaptive_max_pool3d")
def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling to ``output_size`` (an int, or three sizes whose ``None`` keeps that
    input size); with ``return_indices``, also each maximum's flat position ``(d * H + h) *
    W + w`` in its volume (int64).

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``(N, C, *output_size)`` or
        ``(C, *output_size)``; window ``i`` along D covers ``[floor(i * D / D_out),
        ceil((i + 1) * D / D_out))`` (likewise H and W).
    """
    return adaptive_pooling3d.AdaptiveMaxPool3d(output_size=output_size,
                                                return_indices=return_indices)(input)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """``adaptive_max_pool3d`` that always returns ``(output, indices)``."""
    return adaptive_max_pool3d(input, output_size, True)
