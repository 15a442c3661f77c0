"""``F.pixel_shuffle``/``F.pixel_unshuffle`` and their layers: channels traded for a larger
(or smaller) image, composed of ``reshape``, ``permute`` and one copy, with the last node
named as PyTorch's (``PixelShuffleBackward0``); any number of leading batch dimensions."""

from __future__ import annotations

from ..autograd.graph_node import show_as_op
from ..int_arguments import is_int
from ..ops import layout
from ..ops.shapes import ShapeRuntimeError
from ..tensor import Tensor
from .module import Module


def _factor(op: str, name: str, value) -> int:
    """PyTorch's checks of the factor: an int (not a bool), above zero."""
    if not is_int(value):
        raise TypeError(f"{op}(): argument '{name}' (position 2) must be int, not "
                        f"{type(value).__name__}")
    if value <= 0:
        raise ShapeRuntimeError(op, f"expects a positive {name}, but got {value}")
    return value


def _require_image(op: str, input: Tensor) -> tuple:
    if input.dim() < 3:
        raise ShapeRuntimeError(op, f"expects input to have at least 3 dimensions (*, C, H, W), "
                                    f"but got input with {input.dim()} dimension(s) of shape "
                                    f"{tuple(input.shape)}")
    return tuple(input.shape)


def _shuffled(input: Tensor, split: tuple, order: tuple, shape: tuple, name: str) -> Tensor:
    """``input`` reshaped to ``split``, its last five dimensions permuted by ``order``,
    copied (PyTorch's result is a new contiguous tensor, not a view) and reshaped to
    ``shape``; the last node is named ``name``."""
    lead = len(split) - 5
    permuted = input.reshape(split).permute(tuple(range(lead)) + tuple(lead + d for d in order))
    out = layout.Clone()(permuted).reshape(shape)
    show_as_op(out, name, (input,))
    return out


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C * r * r, H, W)`` -> ``(*, C, H * r, W * r)``: channel ``c * r * r + i * r + j``
    becomes pixel ``(h * r + i, w * r + j)`` of channel ``c``.

    Shape:
        ``(*, C_in, H, W)`` -> ``(*, C_in / r**2, H * r, W * r)``; ``C_in`` divisible by
        ``r**2``.
    """
    op = "pixel_shuffle"
    *batch, C, H, W = _require_image(op, input)
    r = _factor(op, "upscale_factor", upscale_factor)
    if C % (r * r):
        raise ShapeRuntimeError(op, f"expects its input's 'channel' dimension to be divisible "
                                    f"by the square of upscale_factor, but "
                                    f"input.size(-3)={C} is not divisible by {r * r}")
    c = C // (r * r)
    return _shuffled(input, (*batch, c, r, r, H, W), (0, 3, 1, 4, 2),
                     (*batch, c, H * r, W * r), "PixelShuffleBackward0")


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``pixel_shuffle``'s inverse: ``(*, C, H * r, W * r)`` -> ``(*, C * r * r, H, W)``.

    Shape:
        ``(*, C, H_in, W_in)`` -> ``(*, C * r**2, H_in / r, W_in / r)``; ``H_in`` and
        ``W_in`` divisible by ``r``.
    """
    op = "pixel_unshuffle"
    *batch, C, H, W = _require_image(op, input)
    r = _factor(op, "downscale_factor", downscale_factor)
    for axis, size, name in ((-2, H, "height"), (-1, W, "width")):
        if size % r:
            raise ShapeRuntimeError(op, f"expects {name} to be divisible by downscale_factor, "
                                        f"but input.size({axis})={size} is not divisible by "
                                        f"{r}")
    h, w = H // r, W // r
    return _shuffled(input, (*batch, C, h, r, w, r), (0, 2, 4, 1, 3),
                     (*batch, C * r * r, h, w), "PixelUnshuffleBackward0")


class PixelShuffle(Module):
    """``F.pixel_shuffle`` as a layer.

    Shape:
        ``(*, C * r * r, H, W)`` -> ``(*, C, H * r, W * r)``, ``r = upscale_factor``.
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``F.pixel_unshuffle`` as a layer.

    Shape:
        ``(*, C, H * r, W * r)`` -> ``(*, C * r * r, H, W)``, ``r = downscale_factor``.
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
