"""``F.pad`` and ``F.interpolate``: PyTorch's argument handling around the padding and
upsampling ops (``ops/padding.py``, ``ops/upsampling.py``).

What PyTorch checks in Python (argument types, ``size`` against ``scale_factor``, which
mode takes which rank) is checked here, from shapes only, so meta raises the same errors;
the ops' shape rules check the rest.
"""

from __future__ import annotations

from numbers import Integral, Real

from ..autocasting import autocast_op
from ..caller_warnings import warn_at_caller
from ..ops import padding as padding_ops
from ..ops import upsampling
from ..ops.shapes import int_tuple_argument
from ..tensor import Tensor


@autocast_op("pad")
def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad (or, with negative numbers, crop) the last ``len(pad) // 2`` dims of ``input``:
    ``pad = (left, right, top, bottom, ...)``, the last dim first.

    ``mode``: ``constant`` (``value``, default 0; any number of dims), ``reflect``,
    ``replicate`` or ``circular`` (the last 1 to 3 dims of a batched or unbatched input).

    Shape:
        each padded dim grows by its two pads: ``(N, C, H, W)`` with ``(1, 1, 2, 0)`` ->
        ``(N, C, H + 2, W + 2)``.

    Raises:
        TypeError for a ``pad`` that is not a sequence of ints; NotImplementedError for an
        unknown mode or a length the mode cannot pad; RuntimeError for PyTorch's size rules
        (see ``ops/padding.py``).
    """
    pads = int_tuple_argument("pad", "pad", 2, pad)
    if mode not in padding_ops.MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode} (expected one of "
                                  f"{', '.join(padding_ops.MODES)})")
    if mode == "constant":
        return padding_ops.ConstantPadNd(pad=pads, value=value)(input)
    return padding_ops.IndexPad(pad=pads, mode=mode, value=value)(input)


_INTERPOLATING = "linear | bilinear | bicubic | trilinear"
_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
#: the input rank each of our modes needs
_RANK = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "area": (3, 4, 5), "linear": (3,),
         "bilinear": (4,), "bicubic": (4,), "trilinear": (5,)}
_LINEAR = ("linear", "bilinear", "trilinear")


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dims of ``input`` to ``size``, or by ``scale_factor`` (one
    number or one per dim), with ``mode`` ``nearest``, ``nearest-exact``, ``area``
    (``adaptive_avg_pool`` to the new size), ``linear`` (3-D input), ``bilinear`` or
    ``bicubic`` (4-D input; ``antialias=True`` filters them over every input under an
    output when shrinking, as Pillow does) or ``trilinear`` (5-D input).

    With ``scale_factor``, each size is ``floor(in * scale_factor)`` and the interpolation
    uses ``1 / scale_factor`` as its step, unless ``recompute_scale_factor=True``, which
    uses ``in / out`` (what ``size`` gives). ``align_corners`` (the interpolating modes
    only) maps the corner pixels' centres onto each other.

    Shape:
        ``(N, C, W)`` -> ``(N, C, W_out)``, ``(N, C, H, W)`` -> ``(N, C, H_out, W_out)``
        or ``(N, C, D, H, W)`` -> ``(N, C, D_out, H_out, W_out)``.

    Raises:
        ValueError and TypeError for arguments that do not fit (PyTorch's);
        NotImplementedError for other modes or ranks.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(f"align_corners option can only be set with the interpolating "
                             f"modes: {_INTERPOLATING}")
    elif align_corners is None:
        align_corners = False
    shape = tuple(input.shape)
    sizes, scales = _size_or_scales(shape, size, scale_factor)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if antialias and not (mode in ("bilinear", "bicubic") and len(shape) == 4):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and "
                         "requires a 4-D tensor as input")
    _check_mode(mode, len(shape))
    if mode == "area":  # PyTorch's definition: the mean over each output's adaptive window
        return _area(input, upsampling.output_sizes(shape[2:], sizes, scales))
    op_mode = "linear" if mode in _LINEAR else "cubic" if mode == "bicubic" else mode
    return upsampling.Upsample(mode=op_mode, size=sizes,
                               scale_factor=scales, align_corners=bool(align_corners),
                               recompute_scale_factor=recompute_scale_factor,
                               antialias=bool(antialias))(input)


def _area(input: Tensor, sizes: tuple) -> Tensor:
    """``mode='area'``: ``adaptive_avg_pool1d/2d/3d`` to ``sizes``, as PyTorch defines it."""
    from . import functional  # imported here: functional imports this module

    pool = {1: functional.adaptive_avg_pool1d, 2: functional.adaptive_avg_pool2d,
            3: functional.adaptive_avg_pool3d}[len(sizes)]
    return pool(input, sizes)


def _size_or_scales(shape, size, scale_factor) -> tuple:
    """``(sizes, None)`` or ``(None, scales)``, one per spatial dim, PyTorch's checks."""
    dim, spatial = len(shape) - 2, list(shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if not isinstance(size, (tuple, list)):
            return (size,) * dim, None
        if len(size) != dim:
            raise ValueError(f"Input and output must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of {spatial} "
                             f"and output size of {size}. Please provide input tensor in "
                             f"(N, C, d1, d2, ...,dK) format "
                             f"and output size in (o1, o2, ...,oK) format.")
        if not all(isinstance(s, Integral) for s in size):
            raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] "
                            f"or Tuple[int, int, int], but got size with types "
                            f"{[type(s) for s in size]}")
        return tuple(int(s) for s in size), None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if not isinstance(scale_factor, (tuple, list)):
        scale_factor = (scale_factor,) * max(dim, 0)
    elif len(scale_factor) != dim:
        raise ValueError(f"Input and scale_factor must have the same number of spatial "
                         f"dimensions, but got input with spatial dimensions of {spatial} and "
                         f"scale_factor of shape {scale_factor}. Please provide input tensor "
                         f"in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,"
                         f"sK) format.")
    for s in scale_factor:
        if isinstance(s, bool) or not isinstance(s, Real):
            raise TypeError(f"interpolate(): scale_factor must be a number or a tuple of "
                            f"numbers, but got {type(s).__name__} ({s!r})")
    return None, tuple(float(s) for s in scale_factor)


def _check_mode(mode: str, ndim: int) -> None:
    if mode in _RANK:
        if ndim in _RANK[mode]:
            return
        if mode in _LINEAR and ndim in (3, 4, 5):
            raise NotImplementedError(f"Got {ndim}D input, but {mode} mode needs "
                                      f"{_RANK[mode][0]}D input")
    elif mode == "lanczos" and ndim in (3, 4, 5):
        raise NotImplementedError(f"interpolate: mode '{mode}' is not supported by "
                                  f"minitorch_meta (supported: nearest, nearest-exact, area, "
                                  f"linear, bilinear, bicubic, trilinear)")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              f"{ndim}D) for the modes: {_ALL_MODES} (got {mode})")


def _deprecated(name: str) -> None:
    warn_at_caller(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                   "instead.")


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """``interpolate`` under its deprecated name (warns, as PyTorch does).

    Shape:
        as ``interpolate``.
    """
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """``interpolate(mode='nearest')`` under its deprecated name (warns).

    Shape:
        as ``interpolate``.
    """
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """``interpolate(mode='bilinear', align_corners=True)`` under its deprecated name
    (warns).

    Shape:
        ``(N, C, H, W)`` -> ``(N, C, H_out, W_out)``.
    """
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
