"""``Upsample``, ``UpsamplingNearest2d``, ``UpsamplingBilinear2d``: ``F.interpolate`` as
layers."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


class Upsample(Module):
    """Resizes the spatial dims to ``size`` or by ``scale_factor`` with ``mode``
    (``nearest``, ``nearest-exact``, ``linear`` for 3-D inputs, ``bilinear`` for 4-D);
    see ``F.interpolate``. The scale factor is kept as a float (or a tuple of floats), as
    PyTorch keeps it, so the repr reads the same (``Upsample(scale_factor=2.0,
    mode='nearest')``).

    Shape:
        ``(N, C, W)`` -> ``(N, C, W_out)``; ``(N, C, H, W)`` -> ``(N, C, H_out, W_out)``.
    """

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            shown = f"scale_factor={self.scale_factor!r}"
        else:
            shown = f"size={self.size!r}"
        return f"{shown}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of images to ``size`` or by ``scale_factor``
    (``Upsample(mode='nearest')``, PyTorch's older name).

    Shape:
        ``(N, C, H, W)`` -> ``(N, C, H_out, W_out)``.
    """

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of images with the corners aligned
    (``Upsample(mode='bilinear', align_corners=True)``, PyTorch's older name).

    Shape:
        ``(N, C, H, W)`` -> ``(N, C, H_out, W_out)``.
    """

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
