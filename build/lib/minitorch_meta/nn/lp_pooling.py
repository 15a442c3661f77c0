"""Power-average pooling: ``F.lp_pool1d``/``2d``/``3d`` and ``LPPool1d``/``2d``/``3d``.

PyTorch's composition op for op, so that values, gradients (zero where a window's sum of
powers is zero) and ``grad_fn`` (``PowBackward0``) are PyTorch's:
``(sign(s) * relu(|s|) * window) ** (1 / p)`` with ``s`` the ``avg_pool`` of ``x ** p``;
``p = inf`` is ``max_pool`` of ``|x|``, ``p = -inf`` minus that of ``-|x|``.
"""

from __future__ import annotations

import math

from ..ops.conv import ntuple
from ..tensor import Tensor
from .module import Module


def _root(out: Tensor, window: int, norm_type) -> Tensor:
    """``avg_pool``'s mean of powers back to a ``norm_type``-norm of each window."""
    from .functional import relu  # functional imports this module

    return (out.sign() * relu(out.abs())).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type, kernel_size, stride=None,
              ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window, ``(sum x ** p) ** (1 / p)``, over sequences;
    ``stride`` defaults to ``kernel_size``.

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, L_out)`` or ``(C, L_out)`` with
        ``L_out = (L - kernel_size) // stride + 1`` (rounded up with ``ceil_mode``).
    """
    from .functional import avg_pool1d, max_pool1d

    if norm_type in (math.inf, -math.inf):
        return _infinite(max_pool1d, input, norm_type, kernel_size, stride, ceil_mode)
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root(out, ntuple(kernel_size, 1, "kernel_size")[0], norm_type)


def lp_pool2d(input: Tensor, norm_type, kernel_size, stride=None,
              ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window, ``(sum x ** p) ** (1 / p)``; ``stride``
    defaults to ``kernel_size``.

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` or
        ``(C, H_out, W_out)`` with ``H_out = (H - kH) // stride + 1`` (likewise W; rounded
        up with ``ceil_mode``).
    """
    from .functional import avg_pool2d, max_pool2d

    if norm_type in (math.inf, -math.inf):
        return _infinite(max_pool2d, input, norm_type, kernel_size, stride, ceil_mode)
    kh, kw = ntuple(kernel_size, 2, "kernel_size")
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root(out, kh * kw, norm_type)


def lp_pool3d(input: Tensor, norm_type, kernel_size, stride=None,
              ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window of a volume, ``(sum x ** p) ** (1 / p)``;
    ``stride`` defaults to ``kernel_size``.

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``(N, C, D_out, H_out, W_out)`` or
        ``(C, D_out, H_out, W_out)`` with ``D_out = (D - kD) // stride + 1`` (likewise H,
        W; rounded up with ``ceil_mode``).
    """
    from .pool3d_functions import avg_pool3d, max_pool3d

    if norm_type in (math.inf, -math.inf):
        return _infinite(max_pool3d, input, norm_type, kernel_size, stride, ceil_mode)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root(out, math.prod(ntuple(kernel_size, 3, "kernel_size")), norm_type)


def _infinite(max_pool, input: Tensor, norm_type, kernel_size, stride, ceil_mode) -> Tensor:
    """The limits ``p = inf`` (the largest ``|x|``) and ``p = -inf`` (the smallest)."""
    if norm_type > 0:
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)


class _LPPoolNd(Module):
    """Settings kept as given, as PyTorch keeps them (``LPPool2d(norm_type=2,
    kernel_size=3, stride=None, ceil_mode=False)``)."""

    def __init__(self, norm_type: float, kernel_size, stride=None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """Power-average pooling over sequences (see ``F.lp_pool1d``).

    Shape:
        ``(N, C, L)`` or ``(C, L)`` -> ``(N, C, L_out)`` or ``(C, L_out)`` with
        ``L_out = (L - kernel_size) // stride + 1`` (rounded up with ``ceil_mode``).
    """

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                         self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Power-average pooling (see ``F.lp_pool2d``).

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, H_out, W_out)`` or
        ``(C, H_out, W_out)`` with ``H_out = (H - kH) // stride + 1`` (likewise W; rounded
        up with ``ceil_mode``).
    """

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                         self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over volumes (see ``F.lp_pool3d``).

    Shape:
        ``(N, C, D, H, W)`` or ``(C, D, H, W)`` -> ``(N, C, D_out, H_out, W_out)`` or
        ``(C, D_out, H_out, W_out)`` with ``D_out = (D - kD) // stride + 1`` (likewise H,
        W; rounded up with ``ceil_mode``).
    """

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                         self.ceil_mode)
