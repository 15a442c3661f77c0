"""The modified Bessel functions of the second kind of orders 0 and 1 (``modified_bessel_k0``,
``modified_bessel_k1``) and their exponentially scaled forms ``exp(x) K0(x)`` and
``exp(x) K1(x)`` (``scaled_modified_bessel_k0``/``k1``) over an array module ``xp`` (NumPy
or CuPy), elementwise.

Written once for both devices, in the manner of ``xp_special.py`` (whole-array arithmetic,
branches on clamped arguments picked with ``xp.where``), summed in float64 whatever the
input (a float32 result is rounded once).

- ``0 < x <= 2``: ``K0(x) = -log(x/2) I0(x) + f0(x²)`` and
  ``K1(x) = log(x/2) I1(x) + 1/x + x f1(x²)`` (A&S 9.6.13, 9.6.11) with ``f0`` and ``f1``
  Chebyshev series in ``t = x²/2 - 1``, and ``I0``, ``I1`` from ``xp_bessel``.
- ``x > 2``: ``sqrt(x) exp(x) K_nu(x)`` (about ``sqrt(pi/2)``) as a Chebyshev series in
  ``s = 4/x - 1``.
- as in PyTorch: ``inf`` at 0, ``nan`` below 0, 0 at ``inf``.

The coefficients were computed with 40-digit arithmetic (mpmath), as Chebyshev
interpolants on 90 nodes cut below 1e-18 of the largest.
"""

from __future__ import annotations

import math

from .xp_bessel import i0, i1
from .xp_special import chebyshev

#: ``K0(x) + log(x/2) I0(x)`` in ``t = x²/2 - 1`` for ``0 < x <= 2``
K0_SMALL = (
    -0.2676636966169514, 0.3442898999246285, 0.0359799365153615, 0.001264615411446926,
    2.286212103119452e-05, 2.5347910790261494e-07, 1.904516377220209e-09,
    1.0349695257633625e-11, 4.2598161427910826e-14, 1.3744654358807508e-16,
    3.5708965285083736e-19,
)
#: ``(K1(x) - log(x/2) I1(x) - 1/x) / x`` in ``t``
K1_SMALL = (
    -0.06409034516866254, -0.10916919599320105, -0.006636878452817714,
    -0.00016822792382067343, -2.389559180803608e-06, -2.1853569024549695e-08,
    -1.3982271326113327e-10, -6.618562752976041e-13, -2.4134516242987822e-15,
    -6.990873731242567e-18,
)
#: ``sqrt(x) exp(x) K0(x)`` in ``s = 4/x - 1`` for ``x >= 2``
K0_FAR = (
    1.2201515410329777, -0.0314481013119645, 0.0015698838857300533,
    -0.00012849549581627802, 1.39498137188765e-05, -1.8317555227191195e-06,
    2.766813639445015e-07, -4.660489897687948e-08, 8.574034017414225e-09,
    -1.6975345093890614e-09, 3.5773972814003283e-10, -7.957489244477396e-11,
    1.8559491149549264e-11, -4.514597883374519e-12, 1.1403405882073441e-12,
    -2.9800969231481784e-13, 8.032890775068375e-14, -2.2275133267462965e-14,
    6.340076476276646e-15, -1.848593377920907e-15, 5.5120559994043335e-16,
    -1.6782311257549006e-16, 5.2103917776435543e-17, -1.6475805939842632e-17,
    5.3004337711773354e-18, -1.7331712005821001e-18,
)
#: ``sqrt(x) exp(x) K1(x)`` in ``s``
K1_FAR = (
    1.3603130952422213, 0.10392373657681724, -0.002857816859622779, 0.00019521551847135162,
    -1.936197974166083e-05, 2.406484947837217e-06, -3.5019606030878126e-07,
    5.7410841254500495e-08, -1.0345762465678097e-08, 2.0150497551970347e-09,
    -4.1903547593419254e-10, 9.218315187605315e-11, -2.129967838427791e-11,
    5.139639673482343e-12, -1.2891739609498229e-12, 3.348419666052243e-13,
    -8.976705182010146e-14, 2.4771544242195988e-14, -7.0198370892147685e-15,
    2.038703166239861e-15, -6.057047270643018e-16, 1.8380935752430455e-16,
    -5.689462849193648e-17, 1.7940510478863572e-17, -5.7567444820733025e-18,
    1.8778651901623268e-18,
)

#: below this the series with ``log(x/2)``, from it on the scaled Chebyshev series
SMALL_TO = 2.0


def _parts(xp, x):
    """``(w, small, near, t, s, root)``: ``w`` float64 ``x``, ``small`` where ``w <= 2``,
    ``near`` ``w`` clamped into ``(0, 2]``, the two series' variables (on clamped arguments)
    and ``1 / sqrt(w)`` for the scaled series."""
    w = x.astype(xp.float64, copy=False)
    small = w <= SMALL_TO
    near = xp.minimum(xp.where(w > 0, w, 1.0), SMALL_TO)  # in (0, 2]
    far = xp.maximum(w, SMALL_TO)
    return w, small, near, 0.5 * near * near - 1.0, 4.0 / far - 1.0, 1.0 / xp.sqrt(far)


def _edges(xp, w, out, x):
    """PyTorch's values off ``(0, inf)``: ``inf`` at ``±0``, ``nan`` below 0."""
    out = xp.where(w < 0, math.nan, out)
    return xp.where(w == 0, math.inf, out).astype(x.dtype, copy=False)


def _k0(xp, x, scaled: bool):
    w, small, near, t, s, root = _parts(xp, x)
    series = chebyshev(xp, K0_SMALL, t) - xp.log(0.5 * near) * i0(xp, near)
    far = chebyshev(xp, K0_FAR, s) * root
    return _scale(xp, w, small, near, series, far, scaled, x)


def _k1(xp, x, scaled: bool):
    w, small, near, t, s, root = _parts(xp, x)
    series = xp.log(0.5 * near) * i1(xp, near) + 1.0 / near + near * chebyshev(xp, K1_SMALL, t)
    far = chebyshev(xp, K1_FAR, s) * root
    return _scale(xp, w, small, near, series, far, scaled, x)


def _scale(xp, w, small, near, series, far, scaled: bool, x):
    """The unscaled ``series`` (``x <= 2``) or the scaled ``far`` one, as asked."""
    if scaled:
        out = xp.where(small, series * xp.exp(near), far)
    else:
        # exp(-w) for w > 2 only (clamped: exp(-0.0) of the other branch is harmless)
        out = xp.where(small, series, far * xp.exp(-xp.maximum(w, SMALL_TO)))
    return _edges(xp, w, out, x)


def modified_bessel_k0(xp, x):
    """``K0(x)``, the modified Bessel function of the second kind of order 0 (``x > 0``)."""
    return _k0(xp, x, False)


def scaled_modified_bessel_k0(xp, x):
    """``exp(x) K0(x)`` (``x > 0``), about ``sqrt(pi / (2 x))`` for large ``x``."""
    return _k0(xp, x, True)


def modified_bessel_k1(xp, x):
    """``K1(x)``, the modified Bessel function of the second kind of order 1 (``x > 0``)."""
    return _k1(xp, x, False)


def scaled_modified_bessel_k1(xp, x):
    """``exp(x) K1(x)`` (``x > 0``), about ``sqrt(pi / (2 x))`` for large ``x``."""
    return _k1(xp, x, True)
