"""The standard normal distribution's functions over an array module ``xp`` (NumPy or
CuPy): ``ndtr`` (its CDF), ``log_ndtr``, ``ndtri`` (the CDF's inverse) and ``erfcx``
(``exp(x²) erfc(x)``), elementwise, to float64 round-off in the tails too.

Written once for both devices in the manner of ``xp_special.py`` (whole-array steps, each
branch computed everywhere on an argument clamped to its domain and picked with
``xp.where``, a fixed number of steps, float32 computed in float32). ``erf`` is the
device's erf kernel.

- ``erfcx``: ``exp(x²) (1 - erf(x))`` for ``|x| < 1``; from 1 on, ``xp_special``'s
  Chebyshev series of ``x erfcx(x)`` divided by ``x`` (0 at ``inf``, no overflow); below
  -1, ``2 exp(x²) - erfcx(-x)`` (``inf`` once ``exp(x²)`` overflows, as in PyTorch).
  (``x / sqrt(2)`` rounded would cost ``2 x²`` ulps in ``erfc(x / sqrt(2))``: hence the
  forms below.)
- ``ndtr(x) = erfc(-x / sqrt(2)) / 2``; below -1 it is ``erfcx(-x / sqrt(2)) exp(-x²/2) / 2``
  with ``exp(-x²/2)`` split so that the square is exact: the relative error stays at a few
  ulps down to the underflow (PyTorch's ``(1 + erf(x / sqrt(2))) / 2`` is 0 from -8.3).
- ``log_ndtr``: ``log(erfcx(-x / sqrt(2)) / 2) - x²/2`` below -1 (finite down to the
  largest negative floats, where ``ndtr`` itself underflows), ``log1p(-ndtr(-x))`` above.
- ``ndtri``: ``sqrt(2) erfinv(2 (p - 1/2))`` for ``1/4 <= p <= 3/4`` (``p - 1/2`` is exact
  there, so the result keeps its relative precision near 1/2); in the tails the root
  ``z <= 0`` of ``log ndtr(z) = log q``, ``q = min(p, 1 - p)`` (``1 - p`` is exact), by
  three Halley steps from Winitzki's approximation: in logs, the residual keeps its
  precision down to the smallest subnormal ``p``.
"""

from __future__ import annotations

import math

from .xp_special import ERFC_CLAMP, S_LOW, X_ERFCX, K, chebyshev, erfc, erfinv, winitzki_of_log

_SQRT_HALF = math.sqrt(0.5)
_SQRT2 = math.sqrt(2.0)
_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
#: ``exp(-x²/2)`` is 0 in float64 beyond this ``|x|``
HALF_SQUARE_CLAMP = 40.0
#: Halley steps of ``ndtri``'s tails (Winitzki's guess is within 4e-3: cubic convergence)
NDTRI_STEPS = 3


def _scaled_tail(xp, a):
    """``erfcx(a)`` for ``a >= 1`` (``0`` at ``inf``): the series of ``a erfcx(a)``."""
    s = 1.0 - (2.0 * K) / (a + K)  # (a - K) / (a + K), exactly 1 at inf
    u = (s - S_LOW) * (2.0 / (1.0 - S_LOW)) - 1.0
    return chebyshev(xp, X_ERFCX, u) / a


def _exp_square(xp, a, half: bool):
    """``exp(-a²)`` (or ``exp(-a²/2)`` with ``half``) for ``a >= 0`` with an exact square:
    ``h``, ``a`` cut to multiples of 1/4096 (float64) or 1/16 (float32), squares exactly."""
    steps = 4096.0 if a.dtype.itemsize == 8 else 16.0
    h = xp.trunc(a * steps) / steps
    scale = 0.5 if half else 1.0
    return xp.exp(-scale * (h * h)) * xp.exp(-scale * ((a - h) * (a + h)))


def erfcx(xp, x, erf):
    """``exp(x²) erfc(x)``: 1 at 0, about ``1 / (x sqrt(pi))`` for large ``x``, ``inf``
    where ``2 exp(x²)`` overflows (``x`` below about -26.6 in float64)."""
    a = xp.abs(x)
    tail = _scaled_tail(xp, xp.maximum(a, 1.0))  # NaN stays NaN
    c = xp.clip(x, -1.0, 1.0)
    near = xp.exp(c * c) * (1.0 - erf(c))
    # exp(a²) = 1 / exp(-a²), inf (not NaN) once the latter underflows
    far_left = 2.0 / _exp_square(xp, xp.minimum(a, ERFC_CLAMP), half=False) - tail
    return xp.where(a < 1.0, near, xp.where(x < 0, far_left, tail))


def ndtr(xp, x, erf):
    """The standard normal CDF ``P(Z <= x)``."""
    left = xp.minimum(x, -1.0)
    far = 0.5 * erfcx(xp, left * -_SQRT_HALF, erf) * _exp_square(
        xp, xp.minimum(-left, HALF_SQUARE_CLAMP), half=True)
    near = 0.5 * erfc(xp, xp.maximum(x, -1.0) * -_SQRT_HALF, erf)
    return xp.where(x < -1.0, far, near)


def log_ndtr(xp, x, erf):
    """``log(ndtr(x))``, finite wherever ``x`` is (``-x²/2`` and less for large negative
    ``x``; ``-ndtr(-x)`` for large positive ``x``)."""
    left = xp.minimum(x, -1.0)
    far = xp.log(0.5 * erfcx(xp, left * -_SQRT_HALF, erf)) - 0.5 * (left * left)
    near = xp.log1p(-ndtr(xp, -xp.maximum(x, -1.0), erf))  # ndtr(-x): its accurate tail
    return xp.where(x < -1.0, far, near)


def ndtri(xp, p, erf):
    """The inverse of ``ndtr`` on ``[0, 1]`` (``-inf`` at 0, ``inf`` at 1, NaN outside)."""
    central = _SQRT2 * erfinv(xp, 2.0 * (p - 0.5), erf)
    q = xp.minimum(p, 1.0 - p)
    q = xp.where(q > 0.0, xp.minimum(q, 0.25), 0.25)  # the tails' domain; NaN out
    log_q = xp.log(q)
    # Winitzki: ndtri(q) = -sqrt(2) erfinv(1 - 2q), and 1 - (1 - 2q)² = 4q (1 - q)
    z = -_SQRT2 * winitzki_of_log(xp, xp.log(4.0 * q) + xp.log1p(-q))
    for _ in range(NDTRI_STEPS):
        # Halley on L(z) = log ndtr(z) - log q: L' = m = pdf / cdf, L'' = -m (z + m)
        residual = log_ndtr(xp, z, erf) - log_q
        m = 1.0 / (_SQRT_HALF_PI * erfcx(xp, z * -_SQRT_HALF, erf))
        z = z - residual / (m + 0.5 * residual * (z + m))
    tail = xp.where(p < 0.5, z, -z)
    out = xp.where(xp.abs(p - 0.5) <= 0.25, central, tail)
    out = xp.where(p == 0.0, -math.inf, xp.where(p == 1.0, math.inf, out))
    return xp.where((p < 0.0) | (p > 1.0) | xp.isnan(p), math.nan, out)
