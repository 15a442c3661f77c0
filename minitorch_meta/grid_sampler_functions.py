"""``torch.grid_sampler``, ``torch.grid_sampler_2d``, ``torch.grid_sampler_3d`` and
``torch.affine_grid_generator``:
PyTorch's native entry points of ``F.grid_sample`` and ``F.affine_grid``, with their
positional arguments: the modes as int codes (interpolation 0 bilinear, 1 nearest,
2 bicubic; padding 0 zeros, 1 border, 2 reflection) and ``align_corners`` a bool that must
be given (no warning, no default). They run the same ops (``ops/grid_sample.py``,
``ops/affine_grid.py``), so values, gradients and ``grad_fn`` names are those."""

from __future__ import annotations

from .native_arguments import bool_argument, int_argument
from .ops.affine_grid import AffineGridGenerator
from .ops.grid_sample import MODES, PADDING_MODES, GridSampler2D, GridSampler3D, sampler_for
from .ops.shapes import ShapeError, int_tuple_argument
from .tensor import Tensor


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """``input`` sampled at the points of ``grid`` (see ``F.grid_sample``), the modes given
    as int codes.

    Shape:
        input ``(N, C, H, W)``, grid ``(N, H_out, W_out, 2)`` -> ``(N, C, H_out, W_out)``;
        input ``(N, C, D, H, W)``, grid ``(N, D_out, H_out, W_out, 3)`` ->
        ``(N, C, D_out, H_out, W_out)`` (``grid_sampler_3d``).

    Raises:
        TypeError for arguments of the wrong type; RuntimeError for a mode code out of
        range (PyTorch reads past its table) and the op's errors.
    """
    return _sample("grid_sampler", sampler_for(input), input, grid, interpolation_mode,
                   padding_mode, align_corners)


def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """``grid_sampler`` for 4-D inputs only (PyTorch's 2-D kernel).

    Shape:
        input ``(N, C, H, W)``, grid ``(N, H_out, W_out, 2)`` -> ``(N, C, H_out, W_out)``.

    Raises:
        RuntimeError for an input or grid that is not 4-D; otherwise as ``grid_sampler``.
    """
    return _sample("grid_sampler_2d", GridSampler2D, input, grid, interpolation_mode,
                   padding_mode, align_corners)


def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """``grid_sampler`` for 5-D inputs only (PyTorch's 3-D kernel: trilinear or nearest;
    bicubic is refused).

    Shape:
        input ``(N, C, D, H, W)``, grid ``(N, D_out, H_out, W_out, 3)`` ->
        ``(N, C, D_out, H_out, W_out)``.

    Raises:
        RuntimeError for an input or grid that is not 5-D, or the bicubic code 2;
        otherwise as ``grid_sampler``.
    """
    return _sample("grid_sampler_3d", GridSampler3D, input, grid, interpolation_mode,
                   padding_mode, align_corners)


def _sample(op: str, sampler, input, grid, interpolation_mode, padding_mode,
            align_corners) -> Tensor:
    mode = _code(op, "interpolation_mode", 3, interpolation_mode, MODES)
    padding = _code(op, "padding_mode", 4, padding_mode, PADDING_MODES)
    align_corners = bool_argument(op, "align_corners", 5, align_corners)
    return sampler.apply(input, grid, mode=mode, padding_mode=padding,
                         align_corners=align_corners)


def _code(op: str, name: str, position: int, value, names: tuple) -> str:
    """The name of the mode an int code stands for."""
    code = int_argument(op, name, position, value)
    if not 0 <= code < len(names):
        choices = ", ".join(f"{k} ({mode})" for k, mode in enumerate(names))
        raise RuntimeError(f"{op}(): expected {name} to be one of {choices}, but got {code}")
    return names[code]


def affine_grid_generator(theta: Tensor, size, align_corners: bool) -> Tensor:
    """The sampling grid of the affine maps ``theta`` over an output of ``size`` (see
    ``F.affine_grid``), without its Python checks' warning.

    Shape:
        theta ``(N, 2, 3)``, size ``(N, C, H, W)`` -> ``(N, H, W, 2)``; theta ``(N, 3, 4)``,
        size ``(N, C, D, H, W)`` -> ``(N, D, H, W, 3)``.

    Raises:
        TypeError for a size that is not a sequence of ints or an ``align_corners`` that is
        not a bool; RuntimeError for a size that is not 4-D or 5-D, or a theta that does
        not fit it; the op's errors otherwise.
    """
    size = int_tuple_argument("affine_grid_generator", "size", 2, size)
    align_corners = bool_argument("affine_grid_generator", "align_corners", 3, align_corners)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    k = len(size) - 2
    if theta.dim() != 3 or tuple(theta.shape) != (size[0], k, k + 1):
        raise ShapeError("affine_grid_generator", f"expected theta of shape "
                                                  f"({size[0]}, {k}, {k + 1}) for size "
                                                  f"{list(size)}, but got "
                                                  f"{tuple(theta.shape)}")
    return AffineGridGenerator.apply(theta, size=size, align_corners=align_corners)


__all__ = ["affine_grid_generator", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d"]
