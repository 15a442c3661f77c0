"""The error function ``erf`` for NumPy arrays, to float64 precision (NumPy has none).

Two pieces, each a short Chebyshev series summed by Clenshaw's recurrence over whole
arrays (no Python loop over elements):

- ``|x| < 1``: ``erf(x) = x * P(x²)``, where ``P`` approximates the even, entire function
  ``erf(x) / x`` in the variable ``t = 2x² - 1`` (13 terms);
- ``|x| >= 1``: ``erf(x) = 1 - exp(-x²) * R(x)``, where ``R`` approximates the scaled
  complement ``erfcx(x) = exp(x²) erfc(x)``, slowly varying (about ``1 / (x sqrt(pi))``),
  in the variable ``s = (x - 3) / (x + 3)`` mapped onto ``[-1, 1]`` (17 terms). The
  rational map spreads the nodes where ``erfcx`` bends most (near 1) and needs fewer terms
  than a series in ``x`` itself. Beyond ``|x| = 6`` the argument is clamped: there
  ``erfc(x) < 2.2e-17`` is below half the spacing of float64 numbers below 1, so the
  result rounds to ±1 either way.

The coefficients are the Chebyshev interpolants at 60 nodes, computed with 50-digit
arithmetic (mpmath's ``erf``/``erfc``) and cut where the terms fall below 1e-17 of the
first; ``tests/backends/test_numpy_erf.py`` recomputes them and checks the result against
``math.erf`` on a dense grid (at most 2 units in the last place in float64). A float32
array is computed in float32 throughout (the same coefficients), so nothing is promoted.
NaN stays NaN, ``erf(±inf) = ±1`` and ``erf(-0.0) = -0.0``.
"""

from __future__ import annotations

import numpy as np

#: below this |x| the series in x² is used, above it the scaled complement
SPLIT = 1.0
#: the centre of the rational map ``s = (x - K) / (x + K)`` of the second piece
K = 3.0
#: |x| is clamped here in the second piece (erfc is below float64's resolution beyond)
CLAMP = 6.0

#: Chebyshev coefficients of ``erf(x) / x`` in ``t = 2x² - 1``, for ``0 <= x <= 1``
NEAR_ZERO = (
    0.9754769393826541,
    -0.14226120510371365,
    0.010035582187599796,
    -0.0005768764699767485,
    2.741993125219606e-05,
    -1.1043175507344507e-06,
    3.8488755420345036e-08,
    -1.1808582533875466e-09,
    3.2334215826050907e-11,
    -7.991015947004549e-13,
    1.7990725113961456e-14,
    -3.718635487818693e-16,
    7.103599003714253e-18,
)

#: Chebyshev coefficients of ``exp(x²) erfc(x)`` in ``s = (x - K) / (x + K)`` mapped from
#: ``[S_LOW, S_HIGH]`` onto ``[-1, 1]``, for ``1 <= x <= 6``
SCALED_COMPLEMENT = (
    0.23376822188092547,
    -0.16410196278423408,
    0.026097812602892758,
    -0.003281118531499783,
    0.0003134638906524851,
    -2.046056770846006e-05,
    5.776987700182602e-07,
    3.7726446174366106e-08,
    -4.115662017323819e-09,
    -2.040121545843181e-11,
    2.0708393696186037e-11,
    -2.3843849434040655e-13,
    -1.1516152507336692e-13,
    1.4762836958503498e-15,
    7.378013084044974e-16,
    2.750204107729445e-19,
    -5.093172880547986e-18,
)

S_LOW, S_HIGH = (SPLIT - K) / (SPLIT + K), (CLAMP - K) / (CLAMP + K)
# ``u = s * _SCALE + _SHIFT`` maps [S_LOW, S_HIGH] onto [-1, 1]
_SCALE = 2.0 / (S_HIGH - S_LOW)
_SHIFT = -(S_HIGH + S_LOW) / (S_HIGH - S_LOW)


def chebyshev(coefficients, t):
    """``sum(c[k] * T_k(t))`` by Clenshaw's recurrence (stable for ``-1 <= t <= 1``).

    The coefficients are Python floats, so the arithmetic stays in ``t``'s dtype.
    """
    t2 = t + t
    b1 = np.full_like(t, coefficients[-1])
    b2 = np.zeros_like(t)
    for c in coefficients[-2:0:-1]:
        b0 = t2 * b1
        b0 -= b2
        b0 += c
        b1, b2 = b0, b1
    out = t * b1
    out -= b2
    out += coefficients[0]
    return out


def _near_zero(x):
    """``erf(x)`` for ``0 <= x < SPLIT``."""
    t = x * x
    t *= 2.0
    t -= 1.0
    return x * chebyshev(NEAR_ZERO, t)


def _away_from_zero(x):
    """``erf(x)`` for ``x >= SPLIT`` (and NaN, which stays NaN)."""
    x = np.minimum(x, CLAMP)
    u = (x - K) / (x + K)
    u *= _SCALE
    u += _SHIFT
    return 1.0 - np.exp(-(x * x)) * chebyshev(SCALED_COMPLEMENT, u)


def erf(a):
    """``erf`` of a float32 or float64 NumPy array, elementwise, in its dtype."""
    x = np.atleast_1d(np.abs(a))  # arrays, also for a 0-d input (masks index them)
    small = x < SPLIT
    if small.all():
        out = _near_zero(x)
    elif not small.any():
        out = _away_from_zero(x)
    else:
        out = np.empty_like(x)
        out[small] = _near_zero(x[small])
        large = ~small
        out[large] = _away_from_zero(x[large])
    return np.copysign(out, a, out=out).reshape(np.shape(a))
