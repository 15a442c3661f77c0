"""``F.affine_grid`` and ``F.grid_sample`` (spatial transformer networks): PyTorch's argument
handling around the ops ``AffineGridGenerator``, ``GridSampler2D`` and ``GridSampler3D``."""

from __future__ import annotations

from ..autocasting import autocast_op
from ..caller_warnings import warn_at_caller
from ..ops.affine_grid import AffineGridGenerator
from ..ops.grid_sample import MODES, PADDING_MODES, sampler_for
from ..ops.shapes import int_tuple_argument
from ..tensor import Tensor

_DEFAULT_CHANGED = ("Default grid_sample and affine_grid behavior has changed to "
                    "align_corners=False since 1.3.0. Please specify align_corners=True if "
                    "the old behavior is desired. See the documentation of grid_sample for "
                    "details.")


def affine_grid(theta: Tensor, size, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of the affine maps ``theta`` over an output of ``size``, for
    ``grid_sample``: ``grid[n, h, w] = theta[n] @ (x_w, y_h, 1)``, with ``x_w``, ``y_h`` the
    pixels' normalised coordinates in [-1, 1] (``align_corners``: -1 and 1 are the outer
    pixels' centres, else their outer edges). ``align_corners=None`` warns and means False.

    Shape:
        theta ``(N, 2, 3)``, size ``(N, C, H, W)`` -> ``(N, H, W, 2)``; theta ``(N, 3, 4)``,
        size ``(N, C, D, H, W)`` -> ``(N, D, H, W, 3)``.

    Raises:
        ValueError for a theta of the wrong dtype or shape, or a size that is not positive;
        NotImplementedError for a size that is not 4-D or 5-D; TypeError for a size that is
        not a tuple of ints or an ``align_corners`` that is not a bool.
    """
    align_corners = _align_corners(align_corners, "affine_grid_generator", 3)
    size = int_tuple_argument("affine_grid_generator", "size", 2, size)
    grid = AffineGridGenerator.apply(theta, size=size, align_corners=align_corners)
    if align_corners and min(size[2:]) == 1:
        warn_at_caller("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                       "grids when align_corners=True. This is not an intended use case of "
                       "affine_grid. See the documentation of affine_grid for details.")
    return grid


@autocast_op("grid_sample")
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: bool | None = None) -> Tensor:
    """``input`` sampled at the points of ``grid`` (``(x, y[, z])`` in [-1, 1], -1 the
    left, top or front): ``mode`` ``'bilinear'`` (trilinear for 5-D inputs), ``'nearest'``
    or ``'bicubic'`` (4-D only); points outside read zeros (``padding_mode='zeros'``), the
    nearest edge (``'border'``) or the input mirrored at its edges (``'reflection'``).
    ``align_corners=None`` warns and means False. Differentiable in ``input`` and ``grid``
    (``nearest``: a zero grid gradient).

    Shape:
        input ``(N, C, H, W)``, grid ``(N, H_out, W_out, 2)`` -> ``(N, C, H_out, W_out)``;
        input ``(N, C, D, H, W)``, grid ``(N, D_out, H_out, W_out, 3)`` ->
        ``(N, C, D_out, H_out, W_out)``.

    Raises:
        ValueError for an unknown mode or padding mode; RuntimeError for shapes or dtypes
        that do not fit (bicubic with a 5-D input among them).
    """
    if mode not in MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in PADDING_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align_corners = _align_corners(align_corners, "grid_sampler", 5)
    return sampler_for(input).apply(input, grid, mode=mode, padding_mode=padding_mode,
                                    align_corners=align_corners)


def _align_corners(value, op: str, position: int) -> bool:
    """``align_corners`` as a bool: None warns (PyTorch's default changed) and is False."""
    if value is None:
        warn_at_caller(_DEFAULT_CHANGED)
        return False
    if not isinstance(value, bool):
        raise TypeError(f"{op}(): argument 'align_corners' (position {position}) must be "
                        f"bool, not {type(value).__name__}")
    return value
