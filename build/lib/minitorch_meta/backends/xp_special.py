"""Special functions over an array module ``xp`` (NumPy or CuPy): erfc, erfinv, lgamma,
digamma and trigamma, elementwise, to float64 round-off (NumPy has none of them).

Written once for both devices: whole-array arithmetic only, each piece computed
everywhere and picked with ``xp.where`` (no boolean-mask indexing, which makes CuPy wait
for the GPU), and no Python loop over elements (the few loops below run a fixed number of
whole-array steps). A float32 array is computed in float32 throughout (the constants are
Python floats), so nothing is promoted; the caller widens float16 to float32.

- ``erfc``: ``1 - erf(x)`` for ``|x| < 1`` (no cancellation: ``|erf(x)| < 0.85`` there);
  beyond, ``exp(-x²) erfcx(|x|)``, with ``x erfcx(x)`` (``erfcx(x) = exp(x²) erfc(x)``,
  about ``1 / (x sqrt(pi))``) a Chebyshev series in ``s = (x - 3) / (x + 3)`` over all of
  ``[1, inf]`` (``s`` in ``[-1/2, 1]``, analytic at ``s = 1``), and
  ``erfc(-x) = 2 - erfc(x)``.
  ``exp(-x²)`` is taken as ``exp(-h²) exp(-(x - h)(x + h))`` with ``h`` ``x`` cut to a
  few bits, so that ``h²`` is exact (the rounding of ``x²`` would cost up to 700 ulps at
  ``x = 26``; the same split as Cephes' ``erfc``).
- ``erfinv``: Winitzki's closed-form approximation (S. Winitzki, "A handy approximation
  for the error function and its inverse", 2008; relative error below 4e-3), then three
  Halley steps on ``erf(x) = y`` (cubic convergence), whose residual is ``erf(x) - |y|``
  below ``|y| = 1/2`` and ``(1 - |y|) - erfc(x)`` above (``1 - |y|`` is exact there, and
  ``erfc`` keeps the tail's relative precision).
- ``lgamma``: the Taylor series of ``lgamma(2 + z)`` in ``z`` (coefficients
  ``(-1)^k (zeta(k) - 1) / k``, Abramowitz & Stegun 6.1.33) for ``z`` in ``[-1/2, 1/2]``,
  reached from ``[-1/2, 1/2)`` and ``[1/2, 3/2)`` by ``lgamma(x + 1) = lgamma(x) + log x``
  and from ``[5/2, 13)`` by stepping down with the same recurrence (so the zeros at 1 and 2
  keep their relative precision); Stirling's series (A&S 6.1.41) from 13 up; the
  reflection formula ``lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)`` below -1/2.
- ``digamma`` and ``trigamma``: the recurrences ``psi(x) = psi(x + 1) - 1/x`` and
  ``psi'(x) = psi'(x + 1) + 1/x²`` up to ``x >= 10``, then their asymptotic series
  (A&S 6.3.18 and 6.4.12, Bernoulli numbers up to ``B_16``), and reflection below 0
  (``psi(x) = psi(1 - x) - pi / tan(pi x)``, ``psi'(x) = pi² / sin²(pi x) - psi'(1 - x)``),
  as PyTorch's CPU kernel does. ``digamma(0)`` is ``-inf`` and ``digamma(-0.0)`` ``inf``,
  as in PyTorch; the negative integers are poles (``nan`` for digamma).

The series coefficients were computed with 50-digit arithmetic (mpmath);
``tests/backends/test_xp_special.py`` recomputes them and checks the functions against
mpmath on dense grids.
"""

from __future__ import annotations

import math

#: Chebyshev coefficients of ``x erfcx(x) = x exp(x²) erfc(x)`` in ``s = (x - K) / (x + K)``,
#: mapped from ``[S_LOW, 1]`` onto ``[-1, 1]``, for ``1 <= x <= inf`` (cut below 1e-18).
#: ``x erfcx(x)`` tends to ``1 / sqrt(pi)``: a sum that does not cancel towards 0 as
#: ``erfcx`` itself would (7 ulps lost at x = 25).
X_ERFCX = (
    0.52703276996453453, 0.058438373634075015, -0.028760006767845146,
    0.0094233842971967389, -0.0023281563723139085, 0.00043730093384926331,
    -5.8303544643230864e-5, 4.0431145609308328e-6, 2.70898072771642e-7,
    -9.9654205471292344e-8, 5.8994192358259974e-9, 1.3859802863792784e-9,
    -2.3156333271134692e-10, -1.5604196875242843e-11, 6.2836389835256887e-12,
    1.2178727055545494e-13, -1.6752992531325615e-13, 3.1333387323219783e-16,
    4.7544231451104169e-15, -2.4579810618655913e-17, -1.4571109178923862e-16,
    -1.1939383999583007e-18, 4.7419255980580298e-18, 1.7736754227671547e-19,
)
K = 3.0
S_LOW = (1.0 - K) / (1.0 + K)
#: erfc(x) is below the smallest float64 (a subnormal) for x beyond 27.3
ERFC_CLAMP = 30.0

#: ``lgamma(2 + z) = sum(LGAMMA_NEAR_TWO[k - 1] * z**k)``: ``1 - euler_gamma``, then
#: ``(-1)^k (zeta(k) - 1) / k`` for k = 2 ... 28 (|z| <= 1/2: the last term is below 1e-18)
LGAMMA_NEAR_TWO = (
    0.42278433509846713939, 0.32246703342411321824, -0.067352301053198095133,
    0.020580808427784547879, -0.0073855510286739852663, 0.0028905103307415232858,
    -0.0011927539117032609771, 0.00050966952474304242234, -0.00022315475845357937976,
    0.000099457512781808533715, -0.0000449262367381331417, 0.000020507212775670691553,
    -9.439488275268395904e-6, 4.3748667899074878042e-6, -2.0392157538013662368e-6,
    9.5514121304074198329e-7, -4.4924691987645660433e-7, 2.1207184805554665869e-7,
    -1.0043224823968099609e-7, 4.7698101693639805658e-8, -2.271109460894316491e-8,
    1.0838659214896954091e-8, -5.1834750419700466551e-9, 2.4836745438024783172e-9,
    -1.1921401405860912074e-9, 5.7313672416788620133e-10, -2.7595228851242331452e-10,
    1.3304764374244489481e-10,
)
#: Stirling's series: ``B_2k / (2k (2k - 1))`` for k = 1 ... 8, in powers of ``1 / x²``
STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156,
            -3617 / 122400)
#: from here up lgamma uses Stirling's series (the last term is below 1e-19 of the sum)
STIRLING_FROM = 13.0
#: ``B_2k / 2k`` for k = 1 ... 8 (digamma's asymptotic series, in powers of ``1 / x²``)
DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12,
                  -3617 / 8160)
#: ``B_2k`` for k = 1 ... 8 (trigamma's asymptotic series, in powers of ``1 / x²``)
TRIGAMMA_SERIES = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6,
                   -3617 / 510)
#: digamma and trigamma step up to here before their asymptotic series
PSI_FROM = 10.0

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_WINITZKI_A = 0.147


def polynomial(coefficients, z):
    """``sum(c[k] * z**k)`` by Horner's rule (Python-float coefficients keep z's dtype)."""
    out = z * 0.0 + coefficients[-1]
    for c in coefficients[-2::-1]:
        out = out * z + c
    return out


def chebyshev(xp, coefficients, t):
    """``sum(c[k] * T_k(t))`` by Clenshaw's recurrence (stable for ``-1 <= t <= 1``)."""
    t2 = t + t
    b1 = xp.full_like(t, coefficients[-1])
    b2 = xp.zeros_like(t)
    for c in coefficients[-2:0:-1]:
        b1, b2 = t2 * b1 - b2 + c, b1
    return t * b1 - b2 + coefficients[0]


def exp_minus_square(xp, x):
    """``exp(-x²)`` for ``0 <= x <= ERFC_CLAMP`` without the rounding error of ``x²``:
    ``h``, ``x`` cut to multiples of 1/4096 (float64) or 1/16 (float32), has an exact
    square, and ``(x - h)(x + h)`` is small."""
    steps = 4096.0 if x.dtype.itemsize == 8 else 16.0
    h = xp.trunc(x * steps) / steps
    return xp.exp(-(h * h)) * xp.exp(-((x - h) * (x + h)))


def erfc(xp, x, erf):
    """``1 - erf(x)`` without cancellation; ``erf`` is the device's erf kernel."""
    t = xp.minimum(xp.abs(x), ERFC_CLAMP)  # NaN stays NaN
    u = (t - K) / (t + K)
    u = (u - S_LOW) * (2.0 / (1.0 - S_LOW)) - 1.0  # [S_LOW, 1] onto [-1, 1]
    tail = exp_minus_square(xp, t) * chebyshev(xp, X_ERFCX, u) / t
    tail = xp.where(x < 0, 2.0 - tail, tail)
    return xp.where(t < 1.0, 1.0 - erf(x), tail)


def erfinv(xp, y, erf):
    """The inverse of ``erf`` on ``[-1, 1]`` (``±inf`` at ``±1``, NaN outside)."""
    a = xp.abs(y)
    x = _winitzki(xp, a)
    q = 1.0 - a  # exact where it is used (a >= 1/2)
    small = a < 0.5
    for _ in range(3):
        residual = xp.where(small, erf(x) - a, q - erfc(xp, x, erf))
        step = residual / (_TWO_OVER_SQRT_PI * exp_minus_square(xp, xp.minimum(x, ERFC_CLAMP)))
        x = x - step / (1.0 + x * step)  # Halley: erf'' = -2x erf'
    x = xp.where(a == 1.0, math.inf, x)
    x = xp.where(a > 1.0, math.nan, x)
    return xp.copysign(x, y)


def _winitzki(xp, a):
    """Winitzki's approximation of ``erfinv(a)`` for ``0 <= a <= 1``."""
    return winitzki_of_log(xp, xp.log1p(-(a * a)))  # log(1 - a²): -inf at 1, NaN beyond


def winitzki_of_log(xp, log_rest):
    """Winitzki's approximation of ``erfinv(a)`` from ``log(1 - a²)`` (``<= 0``), which a
    caller may compute without forming ``a`` (``ndtri``'s tails, where ``a`` rounds to 1)."""
    b = 2.0 / (math.pi * _WINITZKI_A) + 0.5 * log_rest
    c = -log_rest / _WINITZKI_A
    root = xp.sqrt(b * b + c)
    # sqrt(b² + c) - b, without cancellation when b > 0 (small a)
    square = xp.where(b > 0, c / (root + xp.abs(b)), root - b)
    return xp.sqrt(square)


def lgamma(xp, x):
    """``log |Gamma(x)|`` (``inf`` at the poles 0, -1, -2, ... and at ``±inf``)."""
    reflect = x < -0.5
    w = xp.where(reflect, 1.0 - x, x)  # >= -1/2, or NaN
    out = xp.where(w < STIRLING_FROM, _lgamma_small(xp, w), _stirling(xp, w))
    # reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x); sin(pi r) with r = x - round(x)
    # (exact) keeps the phase exact for large |x|
    r = x - xp.rint(x)
    reflected = math.log(math.pi) - xp.log(xp.abs(xp.sin(math.pi * r))) - out
    out = xp.where(reflect, xp.where(r == 0, math.inf, reflected), out)
    return xp.where(xp.isinf(x), math.inf, out)


def _lgamma_small(xp, w):
    """lgamma for ``-1/2 <= w < STIRLING_FROM``: the series about 2 and the recurrence."""
    # from [5/2, 13) step down into [3/2, 5/2): lgamma(w) = lgamma(w - n) + log(prod)
    prod = xp.ones_like(w)
    for _ in range(int(STIRLING_FROM - 2)):
        down = w >= 2.5
        prod = xp.where(down, prod * (w - 1.0), prod)
        w = xp.where(down, w - 1.0, w)
    upper, middle = w >= 1.5, w >= 0.5
    z = xp.where(upper, w - 2.0, xp.where(middle, w - 1.0, w))  # exact; in [-1/2, 1/2]
    # [1/2, 3/2): lgamma(w) = lgamma(w + 1) - log(w); [-1/2, 1/2): minus log|w (w + 1)| too
    shift = xp.where(middle, xp.log1p(z), xp.log(xp.abs(w)) + xp.log1p(w))
    return z * polynomial(LGAMMA_NEAR_TWO, z) + xp.where(upper, xp.log(prod), -shift)


def _stirling(xp, w):
    """lgamma for ``w >= STIRLING_FROM`` (``inf`` at ``inf``)."""
    v = 1.0 / w
    series = v * polynomial(STIRLING, v * v)
    out = (w - 0.5) * xp.log(w) - w + _HALF_LOG_2PI + series
    return xp.where(w == math.inf, math.inf, out)


def digamma(xp, x):
    """``psi(x) = d/dx lgamma(x)`` (``nan`` at the negative integers, ``∓inf`` at ``±0``)."""
    reflect = x < 0
    w, steps = _step_up(xp, xp.where(reflect, 1.0 - x, x), xp.reciprocal)
    v = 1.0 / (w * w)
    out = xp.log(w) - 0.5 / w - v * polynomial(DIGAMMA_SERIES, v) - steps
    out = xp.where(w == math.inf, math.inf, out)
    r = x - xp.rint(x)  # cot(pi x) = cot(pi r), exactly reduced to [-1/2, 1/2]
    reflected = out - math.pi * _cot_pi(xp, r)
    return xp.where(reflect, xp.where(r == 0, math.nan, reflected), out)


def _cot_pi(xp, r):
    """``cot(pi r)`` for ``|r| <= 1/2``: ``1 / tan(pi r)`` near 0, and ``tan(pi (1/2 - |r|))``
    (with r's sign) near ±1/2, where ``pi r`` rounded would miss the zero of cot (in
    float32, ``cot(pi / 2)`` would come out as 4e-8)."""
    a = xp.abs(r)
    far = xp.copysign(xp.tan(math.pi * (0.5 - a)), r)  # 1/2 - |r| is exact
    return xp.where(a < 0.25, 1.0 / xp.tan(math.pi * r), far)


def trigamma(xp, x):
    """``psi'(x)``, digamma's derivative (``inf`` at 0 and the negative integers)."""
    reflect = x < 0
    w, steps = _step_up(xp, xp.where(reflect, 1.0 - x, x), lambda w: 1.0 / (w * w))
    v = 1.0 / (w * w)
    out = 1.0 / w + 0.5 * v + v / w * polynomial(TRIGAMMA_SERIES, v) + steps
    out = xp.where(w == math.inf, 0.0, out)
    r = x - xp.rint(x)
    reflected = (math.pi * math.pi) / xp.sin(math.pi * r) ** 2 - out
    return xp.where(reflect, xp.where(r == 0, math.inf, reflected), out)


def _step_up(xp, w, term):
    """``w`` raised by whole steps to ``>= PSI_FROM``, and the sum of ``term`` over the
    values it passed (w >= 0, so ten steps are enough)."""
    total = xp.zeros_like(w)
    for _ in range(int(PSI_FROM)):
        up = w < PSI_FROM
        total = xp.where(up, total + term(w), total)
        w = xp.where(up, w + 1.0, w)
    return w, total
