"""The taps of ``F.interpolate(..., antialias=True)`` along one axis: PyTorch's
anti-aliased ``bilinear`` and ``bicubic`` resizing (the Pillow-style filters).

Output ``o`` reads the inputs whose centres lie within the filter's support around its
source centre ``scale * (o + 0.5)``. Downsampling (``scale > 1``) widens the support by
``scale`` and squeezes the filter by ``1 / scale``, so every input under the output
contributes (what removes aliasing); upsampling keeps the plain filter. The weights are
the filter's values, divided by their sum. The filters: the triangle ``max(0, 1 - |x|)``
for bilinear, and cubic convolution with ``a = -0.5`` (not the ``-0.75`` of the plain
bicubic mode) for bicubic.

Every output gets the same number of taps, ``2 * ceil(support) + 1``: the ones past an
output's window have weight 0 and a position clamped into the axis, so the taps fit the
matrices and gathers of ``upsampling.py`` unchanged.
"""

from __future__ import annotations

import math

from .. import dtypes

#: PyTorch's anti-aliased bicubic filter takes Keys' ``a = -0.5`` (as Pillow does)
CUBIC_A = -0.5


def antialias_taps(backend, n_in: int, n_out: int, scale, align_corners: bool, cubic: bool,
                   math_dtype) -> tuple:
    """``(positions, weights)``: one int64 position array and one weight array (in
    ``math_dtype``) per tap, each of the output's length."""
    real = math_dtype.numpy.type
    ratio = _scale(n_in, n_out, scale, align_corners, real)
    half_width = 2.0 if cubic else 1.0
    support = half_width * ratio if ratio >= 1 else half_width
    inverse = real(1) / ratio if ratio >= 1 else real(1)
    centre = backend.binary("mul", backend.binary("add", backend.arange(0, n_out, 1,
                                                                        math_dtype),
                                                  real(0.5)), ratio)
    # C++'s static_cast<int64_t> truncates toward zero, as astype does
    first = backend.binary("maximum", backend.astype(
        backend.binary("add", centre, real(0.5 - support)), dtypes.int64), 0)
    end = backend.binary("minimum", backend.astype(
        backend.binary("add", centre, real(support + 0.5)), dtypes.int64), n_in)
    values, positions = [], []
    for j in range(int(math.ceil(support)) * 2 + 1):
        position = backend.binary("add", first, j)
        offset = backend.binary("add", backend.binary("sub", backend.astype(
            position, math_dtype), centre), real(0.5))
        value = _filter(backend, backend.binary("mul", offset, inverse), cubic, real)
        inside = backend.astype(backend.binary("lt", position, end), math_dtype)
        values.append(backend.binary("mul", value, inside))
        positions.append(backend.binary("minimum", position, n_in - 1))
    total = values[0]
    for value in values[1:]:
        total = backend.binary("add", total, value)
    # PyTorch leaves an output whose weights sum to 0 unnormalised (its weights are all 0)
    total = backend.where(backend.binary("eq", total, real(0)), real(1), total)
    return tuple(positions), tuple(backend.binary("div", v, total) for v in values)


def _scale(n_in: int, n_out: int, scale, align_corners: bool, real):
    """PyTorch's ``area_pixel_compute_scale``: the input step per output step."""
    if align_corners:
        return real(n_in - 1) / real(n_out - 1) if n_out > 1 else real(0)
    if scale is not None and scale > 0:
        return real(1.0 / scale)
    return real(n_in) / real(n_out)


def _filter(backend, x, cubic: bool, real):
    """The triangle filter, or cubic convolution with ``a = -0.5``, at ``x``."""
    x = backend.unary("abs", x)
    if not cubic:
        return backend.binary("maximum", backend.binary("sub", real(1), x), real(0))
    a = real(CUBIC_A)
    near = backend.binary("add", backend.binary("mul", backend.binary("mul", backend.binary(
        "sub", backend.binary("mul", x, a + 2), a + 3), x), x), real(1))
    far = backend.binary("add", backend.binary("mul", backend.binary("sub", x, real(5)), x),
                         real(8))
    far = backend.binary("mul", backend.binary("sub", backend.binary("mul", far, x),
                                               real(4)), a)
    zero = backend.binary("mul", x, real(0))
    return backend.where(backend.binary("lt", x, real(1)), near,
                         backend.where(backend.binary("lt", x, real(2)), far, zero))
