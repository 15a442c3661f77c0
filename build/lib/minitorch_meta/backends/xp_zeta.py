"""Hurwitz's zeta function ``zeta(x, q) = sum((q + k)^-x, k >= 0)`` over an array module
``xp`` (NumPy or CuPy), elementwise, to float64 round-off; written once for both devices
in the manner of ``xp_special.py`` (whole-array steps, branches picked with ``xp.where``).
The caller computes float32 in float64, as PyTorch's CPU kernel does.

- ``q > 0``: the first ``DIRECT_TERMS`` terms summed, then the Euler-Maclaurin tail from
  ``w = q + DIRECT_TERMS`` (A&S 23.2.3 summed from ``w``):
  ``w^(1-x) / (x-1) + w^-x / 2 + w^-x sum(B_2k / (2k)! (x)_(2k-1) w^(1-2k))``, the
  sum stopped at its smallest term (for ``x`` large against ``w`` the series diverges,
  but then the tail is below round-off of the first term);
- ``q < 0`` and a whole ``x`` (``q = f - m``, ``0 < f < 1``, ``m`` whole): the terms
  before ``f`` are ``(-1)^x sum((j - f)^-x, j = 1 ... m)``, a difference of two sums
  from positive points, so
  ``zeta(x, q) = zeta(x, f) + (-1)^x (zeta(x, 1 - f) - zeta(x, m + 1 - f))``: three
  positive-``q`` evaluations, however far below 0 ``q`` is;
- PyTorch's domain rules: ``inf`` at ``x = 1`` and at ``q = 0, -1, -2, ...`` (and
  ``-inf``); NaN for ``x < 1``, for ``q < 0`` with ``x`` not whole, and at ``q = inf``;
  ``zeta(inf, q)`` is its limit (``inf`` below ``q = 1``, 1 at 1, 0 beyond).
"""

from __future__ import annotations

import math

from .xp_polygamma import _bernoulli_even

#: terms summed directly before the Euler-Maclaurin tail (``w >= 10``)
DIRECT_TERMS = 10
#: ``B_2k / (2k)!`` for k = 1 ... 12, the tail's coefficients
TAIL_COEFFICIENTS = tuple(float(b / math.factorial(2 * k))
                          for k, b in enumerate(_bernoulli_even(12), start=1))


def _positive(xp, x, w):
    """``zeta(x, w)`` for ``x > 1`` and ``w > 0`` (finite)."""
    total = xp.zeros_like(w)
    for k in range(DIRECT_TERMS):
        total = total + xp.power(w + float(k), -x)
    w = w + float(DIRECT_TERMS)
    power = xp.power(w, -x)
    tail = xp.power(w, 1.0 - x) / (x - 1.0) + 0.5 * power
    # rising = (x)_(2k-1) / w^(2k-1); the k-th term B_2k / (2k)! rising; kept while shrinking
    rising = x / w
    previous = xp.full_like(w, math.inf)
    series = xp.zeros_like(w)
    for k, coefficient in enumerate(TAIL_COEFFICIENTS, start=1):
        term = coefficient * rising
        shrinking = xp.abs(term) < previous
        series = xp.where(shrinking, series + term, series)
        previous = xp.where(shrinking, xp.abs(term), 0.0)  # once growing, stop for good
        rising = rising * ((x + (2 * k - 1)) * (x + 2 * k)) / (w * w)
    return total + (tail + power * series)


def zeta(xp, x, q):
    """Hurwitz's ``zeta(x, q)`` (Riemann's at ``q = 1``), with PyTorch's domain rules."""
    x, q = xp.broadcast_arrays(x, q)
    whole_x = x == xp.floor(x)
    s = xp.where(x > 1.0, x, 2.0)  # the sums' domain; the other cases are set below
    s = xp.where(s == math.inf, 2.0, s)
    floor_q = xp.floor(q)
    f = q - floor_q  # q's fraction (exact), in [0, 1)
    f = xp.where((f > 0.0) & (q > -math.inf), f, 0.5)
    first = xp.where(q > 0.0, q, f)
    first = xp.where(first < math.inf, first, 1.0)
    out = _positive(xp, s, first)
    # q < 0: zeta(s, f) + (-1)^s (zeta(s, 1 - f) - zeta(s, m + 1 - f)), m = -floor(q)
    m = xp.where(q < 0.0, -floor_q, 1.0)
    m = xp.where(m < math.inf, m, 1.0)
    odd = (s - 2.0 * xp.floor(0.5 * s)) == 1.0
    between = _positive(xp, s, 1.0 - f) - _positive(xp, s, m + 1.0 - f)
    out = xp.where(q > 0.0, out, out + xp.where(odd, -between, between))
    # the limits, then PyTorch's domain rules (each later one wins: the reverse of the order
    # its kernel tests them in, so that zeta(nan, 0) is inf and zeta(1, nan) inf as there)
    out = xp.where(x == math.inf, xp.where(q < 1.0, math.inf, xp.where(q == 1.0, 1.0, 0.0)),
                   out)
    out = xp.where((q == math.inf) | xp.isnan(x) | xp.isnan(q), math.nan, out)
    out = xp.where((q <= 0.0) & ~whole_x, math.nan, out)
    out = xp.where((q <= 0.0) & (q == floor_q), math.inf, out)
    out = xp.where(x < 1.0, math.nan, out)
    return xp.where(x == 1.0, math.inf, out)
