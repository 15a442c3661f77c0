"""The modified Bessel functions of the first kind of orders 0 and 1 over an array module
``xp`` (NumPy or CuPy): ``i0``, ``i1`` and their exponentially scaled forms ``i0e``
(``exp(-|x|) i0(x)``) and ``i1e``, elementwise, to float64 round-off.

Written once for both devices, in the manner of ``xp_special.py``: whole-array arithmetic,
each branch computed everywhere on a clamped argument (so nothing overflows where it is not
used) and picked with ``xp.where``, a fixed number of steps, and a float32 array computed
in float32 throughout.

- ``|x| < SERIES_TO``: the power series ``i0(x) = sum(t^k / (k!)²)`` and
  ``i1(x) = x/2 sum(t^k / (k! (k + 1)!))`` with ``t = x²/4`` (A&S 9.6.10). Every term is
  positive, so the sum does not cancel; it is evaluated nested,
  ``1 + t/1² (1 + t/2² (1 + ...))``, whose factors ``t / (k (k + nu))`` neither underflow
  nor overflow in float32 (the coefficients ``1 / (k!)²`` themselves would underflow).
  ``SERIES_TERMS`` terms reach round-off at ``|x| = SERIES_TO`` (the last is below 1e-17
  of the sum).
- beyond: the asymptotic expansion (A&S 9.7.1)
  ``i_nu(x) exp(-x) sqrt(2 pi x) = sum((-1)^k a_k(nu) / x^k)``, with
  ``a_k / a_(k-1) = (4 nu² - (2k - 1)²) / (8k)``, nested the same way. Its terms shrink
  until ``k`` is about ``2x``: at ``x = 20`` the smallest is near 1e-17.
- symmetry: ``i0`` is even and ``i1`` odd (``i1(-0.0)`` is ``+0``, as in PyTorch).

The unscaled functions are ``exp(|x|)`` times the scaled ones beyond ``SERIES_TO`` (``inf``
from ``|x|`` = 709.8 on in float64, as PyTorch's kernel, although ``i0`` itself overflows
only at 713.99).
"""

from __future__ import annotations

import math

#: the power series is used below this ``|x|``, the asymptotic expansion from it on
SERIES_TO = 20.0
#: terms of the power series (the 40th is below 1e-17 of the sum at ``|x| = SERIES_TO``)
SERIES_TERMS = 40
#: terms of the asymptotic expansion (the 40th is near its smallest at ``x = SERIES_TO``)
ASYMPTOTIC_TERMS = 40


def _series(xp, t, nu: int):
    """``sum(t^k / (k! (k + nu)!))`` for ``t >= 0``, nested from the last term."""
    out = xp.ones_like(t)
    for k in range(SERIES_TERMS, 0, -1):
        out = out * (t / float(k * (k + nu))) + 1.0
    return out / float(math.factorial(nu))


def _asymptotic(xp, a, nu: int):
    """``i_nu(a) exp(-a)`` for ``a >= SERIES_TO`` (``0`` at ``inf``)."""
    mu = 4.0 * nu * nu
    inverse = 1.0 / a
    out = xp.ones_like(a)
    for k in range(ASYMPTOTIC_TERMS, 0, -1):
        out = out * (inverse * (((2 * k - 1) ** 2 - mu) / (8.0 * k))) + 1.0
    return out / xp.sqrt((2.0 * math.pi) * a)


def _scaled(xp, x, nu: int):
    """``(i_nu(|x|) exp(-|x|), |x|, the series' branch)`` (nu = 0 or 1)."""
    a = xp.abs(x)
    small = a < SERIES_TO
    s = xp.minimum(a, SERIES_TO)  # each branch on an argument it can take
    series = _series(xp, 0.25 * s * s, nu)
    if nu:
        series = series * (0.5 * s)
    near = series * xp.exp(-s)
    far = _asymptotic(xp, xp.maximum(a, SERIES_TO), nu)
    return xp.where(small, near, far), a, small, series


def i0e(xp, x):
    """``exp(-|x|) i0(x)``: even, 1 at 0, about ``1 / sqrt(2 pi |x|)`` for large ``|x|``."""
    scaled, _, _, _ = _scaled(xp, x, 0)
    return scaled


def i0(xp, x):
    """``i0(x)``, the modified Bessel function of the first kind of order 0 (even)."""
    scaled, a, small, series = _scaled(xp, x, 0)
    # the series itself below SERIES_TO: no rounding of exp(s) exp(-s)
    return xp.where(small, series, scaled * xp.exp(a))


def i1e(xp, x):
    """``exp(-|x|) i1(x)``: odd, 0 at 0 and at ``±inf``."""
    scaled, _, _, _ = _scaled(xp, x, 1)
    return _odd(xp, x, scaled)


def i1(xp, x):
    """``i1(x)``, the modified Bessel function of the first kind of order 1 (odd)."""
    scaled, a, small, series = _scaled(xp, x, 1)
    return _odd(xp, x, xp.where(small, series, scaled * xp.exp(a)))


def _odd(xp, x, value):
    """``value`` (computed at ``|x|``) with the sign of ``x``; ``+0`` at ``-0.0``, as
    PyTorch's kernel."""
    return xp.where(x < 0, -value, value)
