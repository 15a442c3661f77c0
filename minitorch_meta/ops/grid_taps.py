"""Where ``grid_sample`` reads, along one axis: PyTorch's source coordinates, padding modes
and interpolation taps, with the taps' derivatives for the grid's gradient.

A grid value ``g`` in [-1, 1] spans the input's axis of ``size`` pixels: with
``align_corners`` -1 and 1 are the outer pixels' centres (``(g + 1) / 2 * (size - 1)``),
without it their outer edges (``(g + 1) * size / 2 - 0.5``). The padding mode then maps
the coordinate (``border`` clamps it into ``[0, size - 1]``, ``reflection`` mirrors it at
the edges and clamps, ``zeros`` leaves it: what falls outside reads 0), and each mode reads
``k`` taps around it: ``nearest`` 1 (the rounded coordinate, half to even), ``bilinear`` 2,
``bicubic`` 4 (cubic convolution with ``A = -0.75``, the padding applied to each tap's
position rather than to the coordinate, as PyTorch does).

Positions come out shifted by one into an input padded with a ring of zeros, clamped into
``[0, size + 1]``: a tap outside the input reads a zero there, so no mask is needed (and a
grid of inf or NaN gives no integer overflow). All arrays are ``(N, k, P)`` for a grid
component of ``(N, P)``.

Coordinates that are not finite follow PyTorch's CPU kernels, which differ: the 2-D one
(vectorised) clamps NaN to 0 and multiplies out-of-range taps by 0 (so a NaN weight gives
NaN with ``zeros`` padding); the 3-D one (``volumetric``, scalar code) clamps NaN to
``size - 1`` and skips the taps outside, so such a coordinate reads 0 with ``zeros``.
"""

from __future__ import annotations

from .. import dtypes

A = -0.75  # PyTorch's cubic convolution constant


def axis_taps(backend, coord, size: int, mode: str, padding_mode: str, align_corners: bool,
              volumetric: bool = False):
    """``(positions, weights, slopes)`` of the taps that grid component ``coord`` (N, P)
    reads along an axis of ``size``: int64 positions in the zero-ringed axis, the weights
    (None for ``nearest``, one tap of weight 1) and the weights' derivatives with respect
    to ``coord`` (None for ``nearest``: PyTorch's grid gradient is 0 there).
    ``volumetric``: PyTorch's 3-D kernel's handling of coordinates that are not finite."""
    source, scale = unnormalize(backend, coord, size, align_corners)
    if mode == "bicubic":
        return _bicubic(backend, source, scale, size, padding_mode, align_corners)
    source, slope = pad(backend, source, size, padding_mode, align_corners, volumetric)
    if mode == "nearest":
        nearest = _with_taps(backend, backend.unary("rint", source), 1)
        return _ring_positions(backend, nearest, size), None, None
    if slope is not None:
        slope = backend.binary("mul", slope, scale)
    taps = _bilinear(backend, source, scale if slope is None else slope, size)
    if volumetric and padding_mode == "zeros":
        taps = _skip_non_finite(backend, source, taps)
    return taps


def _skip_non_finite(backend, source, taps):
    """``taps`` with weights and slopes 0 where ``source`` is not finite: its taps all lie
    outside the input, and PyTorch's 3-D kernel skips them (rather than adding NaN * 0)."""
    positions, weights, slopes = taps
    n, p = source.shape
    # not finite: NaN minus itself
    unusable = backend.reshape(backend.binary("ne", backend.binary("sub", source, source),
                                              source.dtype.type(0)), (n, 1, p))
    zero = source.dtype.type(0)
    return (positions, backend.where(unusable, zero, weights),
            backend.where(unusable, zero, slopes))


def unnormalize(backend, coord, size: int, align_corners: bool):
    """The pixel coordinate of grid values ``coord``, and its derivative (a scalar)."""
    real = coord.dtype.type
    shifted = backend.binary("add", coord, real(1))
    if align_corners:
        scale = real(size - 1) / real(2)
        return backend.binary("mul", shifted, scale), scale
    scale = real(size) / real(2)
    return backend.binary("sub", backend.binary("mul", shifted, scale), real(0.5)), scale


def pad(backend, source, size: int, padding_mode: str, align_corners: bool,
        volumetric: bool = False):
    """``source`` mapped by the padding mode, and the map's derivative (an array of 0, 1
    and -1; None for ``zeros``, whose map is the identity). NaN is clamped to 0, or to
    ``size - 1`` if ``volumetric`` (PyTorch's 3-D kernel)."""
    if padding_mode == "zeros":
        return source, None
    sign = None
    if padding_mode == "reflection":
        if align_corners:
            source, sign = _reflect(backend, source, 0, 2 * (size - 1))
        else:
            source, sign = _reflect(backend, source, -1, 2 * size - 1)
    real = source.dtype.type
    # the bound applied first takes NaN (from an inf mirrored): fmax first sends it to 0,
    # as in PyTorch's 2-D clamp, fmin first to size - 1, as in its 3-D one
    if volumetric:
        clipped = backend.binary("fmax", backend.binary("fmin", source, real(size - 1)),
                                 real(0))
    else:
        clipped = backend.binary("fmin", backend.binary("fmax", source, real(0)),
                                 real(size - 1))
    # the edges count as outside: a coordinate there has no gradient, as in PyTorch
    inside = backend.binary("logical_and", backend.binary("gt", source, real(0)),
                            backend.binary("lt", source, real(size - 1)))
    slope = backend.astype(inside, _dtype(source))
    return clipped, slope if sign is None else backend.binary("mul", slope, sign)


def _reflect(backend, source, twice_low: int, twice_high: int):
    """``source`` mirrored at ``twice_low / 2`` and ``twice_high / 2`` until it lies between
    them, and the sign of the map's derivative (-1 after an odd number of mirrors)."""
    dtype = _dtype(source)
    if twice_low == twice_high:  # one pixel with align_corners: everything maps to it
        zeros = backend.full(source.shape, 0, dtype)
        return zeros, zeros
    real = source.dtype.type
    low, span = real(twice_low) / real(2), real(twice_high - twice_low) / real(2)
    shifted = backend.binary("sub", source, low)
    extra = backend.binary("fmod", backend.unary("abs", shifted), real(2) * span)
    flipped = backend.binary("gt", extra, span)
    mirrored = backend.where(flipped, _minus(backend, real(2) * span, extra), extra)
    negative = backend.binary("logical_xor", flipped, backend.binary("lt", shifted, real(0)))
    # 1 - 2 * negative: arrays of the dtype throughout (a select of two scalars might not be)
    sign = backend.binary("add", backend.binary("mul", backend.astype(negative, dtype),
                                                real(-2)), real(1))
    return backend.binary("add", mirrored, low), sign


def _bilinear(backend, source, slope, size: int):
    """The two taps around ``source``: weights ``1 - t`` and ``t``, ``t`` its distance past
    the pixel below; their derivatives are ``-slope`` and ``slope``."""
    below = backend.unary("floor", source)
    t = backend.binary("sub", source, below)
    dtype = _dtype(source)
    weights = _stack(backend, (_minus(backend, t.dtype.type(1), t), t), dtype)
    up = _full(backend, slope, source, dtype)
    slopes = _stack(backend, (backend.unary("neg", up), up), dtype)
    return _ring_positions(backend, _with_taps(backend, below, 2), size), weights, slopes


def _bicubic(backend, source, scale, size: int, padding_mode: str, align_corners: bool):
    """The four taps ``floor(source) - 1 .. + 2``, each padded, with PyTorch's cubic
    convolution weights of ``t = source - floor(source)`` and their derivatives."""
    below = backend.unary("floor", source)
    t = backend.binary("sub", source, below)
    taps = _with_taps(backend, backend.binary("sub", below, below.dtype.type(1)), 4)
    taps, _ = pad(backend, taps, size, padding_mode, align_corners)  # integers stay integers
    real = t.dtype.type
    u = _minus(backend, real(1), t)  # the distance to the pixel above
    t1, u1 = backend.binary("add", t, real(1)), backend.binary("add", u, real(1))
    near, far = (A + 2, -(A + 3), 0, 1), (A, -5 * A, 8 * A, -4 * A)
    near_slope, far_slope = (3 * (A + 2), -2 * (A + 3), 0), (3 * A, -10 * A, 8 * A)
    weights = [_poly(backend, x, c) for x, c in ((t1, far), (t, near), (u, near), (u1, far))]
    # d/dt: the kernels' derivatives, negated for the taps above (their distance is 1 - t)
    slopes = [_poly(backend, t1, far_slope), _poly(backend, t, near_slope),
              backend.unary("neg", _poly(backend, u, near_slope)),
              backend.unary("neg", _poly(backend, u1, far_slope))]
    dtype = _dtype(source)
    slopes = [backend.binary("mul", s, scale) for s in slopes]
    return (_ring_positions(backend, taps, size), _stack(backend, weights, dtype),
            _stack(backend, slopes, dtype))


def _poly(backend, x, coefficients):
    """The polynomial with ``coefficients`` (highest power first) at ``x``, by Horner's rule
    (the cubic convolution kernels in PyTorch's order of operations)."""
    real = x.dtype.type
    value = backend.binary("mul", x, real(coefficients[0]))
    for c in coefficients[1:-1]:
        value = backend.binary("mul", backend.binary("add", value, real(c)), x)
    return backend.binary("add", value, real(coefficients[-1]))


def _minus(backend, number, a):
    """``number - a`` for a scalar ``number`` (the kernels take scalars second)."""
    return backend.binary("add", backend.unary("neg", a), number)


def _with_taps(backend, first, k: int):
    """``first`` (N, P) and the ``k - 1`` positions after it, as (N, k, P)."""
    n, p = first.shape
    offsets = backend.reshape(backend.arange(0, k, 1, _dtype(first)), (1, k, 1))
    return backend.binary("add", backend.reshape(first, (n, 1, p)), offsets)


def _ring_positions(backend, taps, size: int):
    """Float tap positions as int64 positions in the axis ringed by one zero each side:
    every position outside the input lands on a zero of the ring. ``fmin``/``fmax`` clamp
    before the cast (they also send NaN to a ring position)."""
    real = taps.dtype.type
    clamped = backend.binary("fmax", backend.binary("fmin", taps, real(size)), real(-1))
    return backend.binary("add", backend.astype(clamped, dtypes.int64), 1)


def _stack(backend, rows, dtype):
    """The (N, P) arrays ``rows`` as one (N, k, P) array."""
    n, p = rows[0].shape
    out = backend.empty((n, len(rows), p), dtype)
    for i, row in enumerate(rows):
        backend.setitem(out, (slice(None), i), row)
    return out


def _full(backend, slope, like, dtype):
    """``slope`` (a scalar or an array of ``like``'s shape) as an array of that shape."""
    if getattr(slope, "shape", ()) == like.shape:
        return slope
    return backend.full(like.shape, slope, dtype)


def _dtype(array):
    return dtypes.from_numpy(array.dtype)
