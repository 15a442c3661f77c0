"""The Bessel functions of the first and second kinds of orders 0 and 1 (``bessel_j0``,
``bessel_j1``, ``bessel_y0``, ``bessel_y1``) and the spherical ``j0(x) = sin(x) / x`` over an
array module ``xp`` (NumPy or CuPy), elementwise.

Written once for both devices, in the manner of ``xp_special.py``: whole-array arithmetic,
each branch computed everywhere on a clamped argument and picked with ``xp.where``. The
series are summed in float64 whatever the input (a float32 result is the float64 one
rounded once), with one exception that keeps PyTorch's values: PyTorch's float32 kernel
forms the phase ``x - pi/4`` (``x - 3 pi/4`` for order 1) in float32, which moves
``cos``/``sin`` of it by up to half an ulp of ``x`` (6 % of ``J0(12345.678)``); the phase is
formed here in the input's dtype too, so that both libraries agree there.

- ``|x| <= 5``: Chebyshev series in ``t = 2 (x/5)² - 1`` of the entire functions ``J0(x)``,
  ``J1(x) / x``, ``Y0(x) - (2/pi) log(x/2) J0(x)`` and
  ``(Y1(x) - (2/pi) (log(x/2) J1(x) - 1/x)) / x`` (A&S 9.1.10, 9.1.13, 9.1.11).
- ``|x| > 5``: Hankel's form (A&S 9.2.5, 9.2.6)
  ``J_nu = sqrt(2 / (pi x)) (P cos(chi) - Q sin(chi))``,
  ``Y_nu = sqrt(2 / (pi x)) (P sin(chi) + Q cos(chi))``, ``chi = x - (2 nu + 1) pi / 4``,
  with ``P`` and ``Q / (5/x)`` Chebyshev series in ``s = 2 (5/x)² - 1`` (smooth on
  ``[-1, 1]``: their asymptotic expansions are in powers of ``1/x²``).
- ``J0`` is even and ``J1`` odd; ``Y0`` and ``Y1`` are ``nan`` below 0 and ``-inf`` at 0;
  all four are ``nan`` at ``±inf`` (``cos(inf)``), as in PyTorch.

The coefficients were computed with 40-digit arithmetic (mpmath), as Chebyshev
interpolants on 90 nodes cut below 1e-18 of the largest; ``tests/backends/test_xp_bessel_jy.py``
checks the functions against mpmath on dense grids.
"""

from __future__ import annotations

import math

from .xp_special import chebyshev, polynomial

#: ``J0(x)`` in ``t = 2 (x/5)² - 1`` for ``|x| <= 5``
J0_SMALL = (
    0.0023409898253245504, -0.49420509340952434, 0.39793736723207573, -0.09383145879659378,
    0.010887531648681012, -0.0007606267657733754, 3.569483646356939e-05,
    -1.2060697061368316e-06, 3.079038572034392e-08, -6.154405541206829e-10,
    9.89883306235983e-12, -1.3093862877228934e-13, 1.449925455546083e-15,
    -1.3640331632027614e-17,
)
#: ``J1(x) / x`` in ``t``
J1_SMALL = (
    0.12472176826504336, -0.2686845684799195, 0.09129790663903893, -0.014004653451391028,
    0.001219706194308904, -6.861294107933131e-05, 2.7033690715030914e-06,
    -7.885506927808829e-08, 1.7729297565883533e-09, -3.168183400785992e-11,
    4.609607207864301e-13, -5.568208308467139e-15, 5.674750797163287e-17,
    -4.945591701810024e-19,
)
#: ``Y0(x) - (2/pi) log(x/2) J0(x)`` in ``t``
Y0_SMALL = (
    0.20708558773104574, -0.3482536985767724, -0.1162964211804867, 0.0612777592111658,
    -0.009474805742806541, 0.0007808203004993907, -4.102414780282299e-05,
    1.5084665388838522e-06, -4.11773998328759e-08, 8.696444600569773e-10,
    -1.4653619542964564e-11, 2.0177025994638334e-13, -2.314260428897327e-15,
    2.2462456311285304e-17,
)
#: ``(Y1(x) - (2/pi) (log(x/2) J1(x) - 1/x)) / x`` in ``t``
Y1_SMALL = (
    0.10814356944253686, 0.023331746910030052, -0.04805615183492803, 0.010931259695855651,
    -0.001167564040130863, 7.498061541188042e-05, -3.2521563506031377e-06,
    1.0219630562978181e-07, -2.4405409262765277e-09, 4.586506000171005e-11,
    -6.966878761583555e-13, 8.73709659647942e-15, -9.203817494483837e-17,
    8.261763168130851e-19,
)
#: Hankel's ``P`` of order 0 in ``s = 2 (5/x)² - 1`` for ``x >= 5``
P0 = (
    0.9986523398776954, -0.00132937162125028, 1.761305551290559e-05,
    -6.319367118733069e-07, 3.948825587093808e-08, -3.5409678948019087e-09,
    4.103246366872386e-10, -5.765747662655223e-11, 9.423105578391987e-12,
    -1.7401405706283885e-12, 3.5557750052411783e-13, -7.914641501338115e-14,
    1.8959456362961828e-14, -4.841483019175697e-15, 1.3078555195901338e-15,
    -3.714050821413154e-16, 1.103023177871277e-16, -3.410936210498114e-17,
    1.0942187869810236e-17, -3.629905673795297e-18, 1.2418028891673288e-18,
)
#: Hankel's ``Q`` of order 0, divided by ``5/x``, in ``s``
Q0 = (
    -0.024729405164334986, 0.00026380388099845215, -6.43759824253235e-06,
    3.247418641128558e-07, -2.548657948406561e-08, 2.7026065526268818e-09,
    -3.5701518102394104e-10, 5.5817142695807205e-11, -9.977816055305666e-12,
    1.990142733561329e-12, -4.3502412086017667e-13, 1.0280254324855211e-13,
    -2.5986485312118355e-14, 6.967527155377957e-15, -1.9680115145087463e-15,
    5.8230549837184e-16, -1.7964302342606689e-16, 5.755537813115849e-17,
    -1.9085810023462685e-17, 6.5316323887296735e-18, -2.301036357065232e-18,
    8.32640853075718e-19, -3.0887382878007324e-19, 1.1725918471038356e-19,
    -4.548728447650107e-20,
)
#: Hankel's ``P`` of order 1 in ``s``
P1 = (
    1.00226762068534, 0.0022437352958079985, -2.3071018862548286e-05,
    7.639181732533905e-07, -4.589685232343401e-08, 4.020515478419001e-09,
    -4.586773977170972e-10, 6.373158962859246e-11, -1.0327344567640412e-11,
    1.8943274995111034e-12, -3.849703387824105e-13, 8.529914525779044e-14,
    -2.03544697865723e-14, 5.180421738900549e-15, -1.3953502148258493e-15,
    3.9523601713314257e-16, -1.171117080126803e-16, 3.614078564738109e-17,
    -1.1572356053251518e-17, 3.832473906744907e-18, -1.3090769675043101e-18,
)
#: Hankel's ``Q`` of order 1, divided by ``5/x``, in ``s``
Q1 = (
    0.07461746924293727, -0.00037410379362102955, 8.01139890409206e-06,
    -3.828805678171264e-07, 2.917633021484398e-08, -3.036679728934633e-09,
    3.9598445211790335e-10, -6.131962898875392e-11, 1.0880467184119506e-11,
    -2.1573304385076937e-12, 4.692705663517787e-13, -1.1044093713083652e-13,
    2.781945696278766e-14, -7.436303350432923e-15, 2.0948126235658333e-15,
    -6.183568405835825e-16, 1.9036103662163e-16, -6.087290133410104e-17,
    2.0150975159994986e-17, -6.885261323962649e-18, 2.4221007940443373e-18,
    -8.752777804856654e-19, 3.2428888011494625e-19, -1.2296988297217244e-19,
)

#: below this ``|x|`` the Chebyshev series in ``x²``, from it on Hankel's form (PyTorch's
#: switch too, which matters for the float32 phase)
SMALL_TO = 5.0
#: ``1/x²`` terms of ``sin(x) / x`` about 0: ``(-1)^k / (2k + 1)!`` (below |x| = 1/2)
SINC_SERIES = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(8))
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_TWO_OVER_PI = 2.0 / math.pi


def _wide(xp, x):
    """``x`` as float64 (the dtype every series here is summed in)."""
    return x.astype(xp.float64, copy=False)


def _small_variable(xp, a):
    """``t = 2 (a/5)² - 1`` on ``[-1, 1]`` for the series (``a`` clamped to ``[0, 5]``)."""
    s = xp.minimum(a, SMALL_TO) * (1.0 / SMALL_TO)
    return 2.0 * s * s - 1.0


def _hankel(xp, x, a, order: int):
    """``(P, Q, cos(chi), sin(chi), sqrt(2 / (pi a)))`` of order 0 or 1 for ``a > 5``
    (``a`` float64 ``|x|``, ``x`` the input: the phase is formed in its dtype)."""
    big = xp.maximum(a, SMALL_TO)
    u = SMALL_TO / big
    s = 2.0 * u * u - 1.0
    p_table, q_table = (P0, Q0) if order == 0 else (P1, Q1)
    p = chebyshev(xp, p_table, s)
    q = u * chebyshev(xp, q_table, s)
    # x - pi/4 rounded to x's dtype, as PyTorch's kernel does (see the module docstring)
    shift = x.dtype.type((2 * order + 1) * math.pi / 4)
    chi = _wide(xp, xp.maximum(xp.abs(x), x.dtype.type(SMALL_TO)) - shift)
    return p, q, xp.cos(chi), xp.sin(chi), _SQRT_2_OVER_PI / xp.sqrt(big)


def _j0(xp, x, a):
    """``J0`` at float64 ``a = |x|`` (``x`` the input, for the phase)."""
    near = chebyshev(xp, J0_SMALL, _small_variable(xp, a))
    p, q, cos, sin, scale = _hankel(xp, x, a, 0)
    return xp.where(a <= SMALL_TO, near, scale * (p * cos - q * sin))


def _j1_over_x(xp, a):
    """``J1(a) / a`` for ``a <= 5`` (any ``a``: clamped)."""
    return chebyshev(xp, J1_SMALL, _small_variable(xp, a))


def bessel_j0(xp, x):
    """``J0(x)``, the Bessel function of the first kind of order 0 (even, 1 at 0)."""
    return _j0(xp, x, xp.abs(_wide(xp, x))).astype(x.dtype, copy=False)


def bessel_j1(xp, x):
    """``J1(x)``, the Bessel function of the first kind of order 1 (odd, 0 at 0)."""
    w = _wide(xp, x)
    a = xp.abs(w)
    p, q, cos, sin, scale = _hankel(xp, x, a, 1)
    far = scale * (p * cos - q * sin)
    out = xp.where(a <= SMALL_TO, w * _j1_over_x(xp, a), xp.where(w < 0, -far, far))
    return out.astype(x.dtype, copy=False)


def _log_half(xp, w):
    """``log(w / 2)`` for the series' branch (``w`` clamped into ``(0, 5]``: its other values
    are replaced afterwards)."""
    return xp.log(0.5 * xp.minimum(xp.where(w > 0, w, 1.0), SMALL_TO))


def bessel_y0(xp, x):
    """``Y0(x)``, the Bessel function of the second kind of order 0 (``x > 0``)."""
    w = _wide(xp, x)
    a = xp.abs(w)
    t = _small_variable(xp, a)
    near = _TWO_OVER_PI * _log_half(xp, w) * chebyshev(xp, J0_SMALL, t) \
        + chebyshev(xp, Y0_SMALL, t)
    p, q, cos, sin, scale = _hankel(xp, x, a, 0)
    out = xp.where(w <= SMALL_TO, near, scale * (p * sin + q * cos))
    return _second_kind_edges(xp, w, out).astype(x.dtype, copy=False)


def bessel_y1(xp, x):
    """``Y1(x)``, the Bessel function of the second kind of order 1 (``x > 0``)."""
    w = _wide(xp, x)
    a = xp.abs(w)
    small = xp.minimum(xp.where(w > 0, w, 1.0), SMALL_TO)
    near = _TWO_OVER_PI * (_log_half(xp, w) * small * _j1_over_x(xp, a) - 1.0 / small) \
        + small * chebyshev(xp, Y1_SMALL, _small_variable(xp, a))
    p, q, cos, sin, scale = _hankel(xp, x, a, 1)
    out = xp.where(w <= SMALL_TO, near, scale * (p * sin + q * cos))
    return _second_kind_edges(xp, w, out).astype(x.dtype, copy=False)


def _second_kind_edges(xp, w, out):
    """PyTorch's values of ``Y0``/``Y1`` off ``(0, inf)``: ``-inf`` at ``±0``, ``nan`` below."""
    out = xp.where(w < 0, math.nan, out)
    return xp.where(w == 0, -math.inf, out)


def spherical_bessel_j0(xp, x):
    """``sin(x) / x`` (1 at 0, 0 at ``±inf`` as in PyTorch), its Taylor series below
    ``|x| = 1/2``."""
    w = _wide(xp, x)
    near = polynomial(SINC_SERIES, w * w)
    safe = xp.where(xp.abs(w) < 0.5, 1.0, w)
    out = xp.where(xp.abs(w) < 0.5, near, xp.sin(safe) / safe)
    return xp.where(xp.isinf(w), 0.0, out).astype(x.dtype, copy=False)
