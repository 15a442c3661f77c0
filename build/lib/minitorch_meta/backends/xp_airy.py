"""The Airy function ``Ai`` (``airy_ai``) over an array module ``xp`` (NumPy or CuPy),
elementwise: the solution of ``y'' = x y`` that vanishes at ``+inf``.

Written once for both devices, in the manner of ``xp_special.py``, summed in float64
whatever the input (a float32 result is rounded once), except the phase of the oscillating
branch, formed in the input's dtype as in PyTorch's kernel (see ``xp_bessel_jy.py``).
With ``zeta = (2/3) |x|^(3/2)``:

- ``|x| < 2.09``: the Maclaurin series ``Ai(x) = Ai(0) f(x) + Ai'(0) g(x)`` with
  ``f = sum(3^k (1/3)_k x^(3k) / (3k)!)`` and ``g = sum(3^k (2/3)_k x^(3k+1) / (3k+1)!)``
  (A&S 10.4.2), nested in ``x³``;
- ``x >= 2.09``: ``Ai(x) = exp(-zeta) F / (2 sqrt(pi) x^(1/4))``, ``F`` (tending to 1) a
  Chebyshev series in ``2 zeta0 / zeta - 1`` (``zeta0``: ``zeta`` at 2.09), 0 beyond 103.892
  as in PyTorch;
- ``x <= -2.09``: ``Ai(x) = (sin(theta) P - cos(theta) Q) / (sqrt(pi) |x|^(1/4))``,
  ``theta = zeta + pi/4`` (A&S 10.4.60), ``P`` and ``Q zeta / zeta0`` Chebyshev series in the
  same variable;
- ``nan`` at ``±inf``, as in PyTorch.

The coefficients were computed with 40-digit arithmetic (mpmath), as Chebyshev
interpolants on 90 nodes cut below 1e-18 of the largest.
"""

from __future__ import annotations

import math

from .xp_special import chebyshev

#: ``2 sqrt(pi) x^(1/4) exp(zeta) Ai(x)`` in ``2 zeta0 / zeta - 1`` for ``x >= 2.09``
AI_POS = (
    0.985273793324794, -0.014006347771048734, 0.0006605310070622323,
    -5.280840625470318e-05, 5.652165861924648e-06, -7.346344805681573e-07,
    1.1006706813470164e-07, -1.841361279305993e-08, 3.367381554205339e-09,
    -6.631134483130922e-10, 1.3905740906735748e-10, -3.079018603117135e-11,
    7.150438057939931e-12, -1.7322679891618035e-12, 4.358557784212428e-13,
    -1.1348049138356957e-13, 3.047936812470736e-14, -8.42268715468561e-15,
    2.389284522002482e-15, -6.94383544461048e-16, 2.0639239529561746e-16,
    -6.264518513377105e-17, 1.9390675281854292e-17, -6.113416943520201e-18,
    1.9610536087605676e-18,
)
#: ``P`` of ``Ai(-|x|)`` in the same variable for ``x <= -2.09``
AI_NEG_P = (
    0.9971349074486389, -0.003696728315938163, -0.0007527516591261152,
    7.947749793257677e-05, -1.1602094142772904e-06, -1.3824485899641607e-06,
    3.3918938193940024e-07, -3.9160883593411253e-08, -3.1147536918453046e-09,
    3.029033006139422e-09, -9.135234111022984e-10, 1.5873275052847202e-10,
    -5.112198591226784e-13, -1.2132337219732845e-11, 5.638248287733662e-12,
    -1.6295958348516024e-12, 2.8015717989354747e-13, 1.8362829753469865e-14,
    -3.9526015585858274e-14, 1.9856918547682807e-14, -6.735069080920081e-15,
    1.5451078222975156e-15, -8.340502068760886e-17, -1.4875474342813374e-16,
    1.0410010259284541e-16, -4.585749593823398e-17, 1.501523626657511e-17,
    -3.2401924914609737e-18,
)
#: ``Q zeta / zeta0`` of ``Ai(-|x|)``
AI_NEG_Q = (
    0.03320578930602581, -0.001597244867270423, -0.00027021714113158646,
    5.5007550123049033e-05, -3.701069162838323e-06, -8.556200835597718e-07,
    3.6848908959365873e-07, -7.072312731296692e-08, 3.5894971402891118e-09,
    3.0633468082417265e-09, -1.456583484349402e-09, 3.816568214886071e-10,
    -5.051940403613593e-11, -9.998934303923342e-12, 9.641138426451606e-12,
    -3.910075972216448e-12, 1.049463371747251e-12, -1.4069989074580675e-13,
    -4.201615914537428e-14, 4.116209861274477e-14, -1.9127625114797044e-14,
    6.271409104393179e-15, -1.3284092713347919e-15, -2.5067157321172012e-17,
    2.0499634018842729e-16, -1.310038281954097e-16, 5.679202450691376e-17,
    -1.842348691574259e-17, 3.762721713368172e-18, 3.3423106007862503e-19,
    -8.56385684404791e-19, 5.596365924444339e-19, -2.608135852353801e-19,
    9.453930473758717e-20,
)

#: the Maclaurin series below this ``|x|`` (PyTorch's switch too)
SERIES_TO = 2.09
#: ``zeta = (2/3) x^(3/2)`` at ``SERIES_TO``
ZETA0 = 2.0 * SERIES_TO ** 1.5 / 3.0
#: terms of the Maclaurin series (the last is below 1e-30 of the sum at ``|x| = 2.09``)
SERIES_TERMS = 24
#: ``Ai`` is 0 beyond this (PyTorch's cut: it underflows float64 soon after)
ZERO_FROM = 103.892
#: ``Ai(0)`` and ``-Ai'(0)``
AI0 = 0.355028053887817239260
AI0_SLOPE = 0.258819403792806798405
_SQRT_PI = math.sqrt(math.pi)


def _maclaurin(xp, w):
    """``Ai(w)`` for ``|w| < 2.09`` (``w`` clamped into that range), nested in ``z = w³``:
    ``f = 1 + z/(2*3) (1 + z/(5*6) (...))``, ``g = w (1 + z/(3*4) (1 + z/(6*7) (...)))``."""
    z = w * w * w
    f = xp.ones_like(w)
    g = xp.ones_like(w)
    for k in range(SERIES_TERMS, 0, -1):
        f = f * (z / float((3 * k - 1) * (3 * k))) + 1.0
        g = g * (z / float((3 * k) * (3 * k + 1))) + 1.0
    return AI0 * f - AI0_SLOPE * (w * g)


def airy_ai(xp, x):
    """``Ai(x)``: oscillating below 0, decaying like ``exp(-(2/3) x^(3/2))`` above."""
    w = x.astype(xp.float64, copy=False)
    a = xp.maximum(xp.abs(w), SERIES_TO)  # the asymptotic branches' argument
    zeta = (2.0 / 3.0) * a * xp.sqrt(a)
    v = 2.0 * (ZETA0 / zeta) - 1.0
    quarter = xp.sqrt(xp.sqrt(a))
    right = chebyshev(xp, AI_POS, v) * xp.exp(-zeta) / ((2.0 * _SQRT_PI) * quarter)
    # the phase in x's dtype, in PyTorch's order of operations (see the module docstring)
    b = xp.minimum(x, x.dtype.type(-SERIES_TO))
    theta = _wide_phase(xp, b)
    p = chebyshev(xp, AI_NEG_P, v)
    q = (ZETA0 / zeta) * chebyshev(xp, AI_NEG_Q, v)
    left = (xp.sin(theta) * p - xp.cos(theta) * q) / (_SQRT_PI * quarter)
    near = _maclaurin(xp, xp.clip(w, -SERIES_TO, SERIES_TO))
    out = xp.where(w < -SERIES_TO, left, xp.where(w >= SERIES_TO, right, near))
    out = xp.where(w > ZERO_FROM, 0.0, out)
    return xp.where(xp.isinf(w), math.nan, out).astype(x.dtype, copy=False)


def _wide_phase(xp, b):
    """``theta = -2 b sqrt(-b) / 3 + pi/4`` for ``b <= -2.09``, formed in ``b``'s dtype, as
    float64."""
    theta = b.dtype.type(-2.0) * b * xp.sqrt(-b) / b.dtype.type(3.0) + b.dtype.type(math.pi / 4)
    return theta.astype(xp.float64, copy=False)
