"""``polygamma(n, x)``, the ``n``-th derivative of digamma, over an array module ``xp``
(NumPy or CuPy), elementwise, to float64 round-off; written once for both devices in the
manner of ``xp_special.py`` (whole-array steps, branches picked with ``xp.where``, float32
computed in float32).

``n = 0`` and ``n = 1`` are ``xp_special``'s digamma and trigamma. For ``n >= 2``,
``psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x)`` (A&S 6.4.10) with Hurwitz's zeta
``zeta(s, x) = sum(1 / (x + k)^s)``:

- ``x > 0``: the first terms of the sum while ``x + k < start(n)`` (``start`` grows with
  ``n``, whose asymptotic series converges more slowly), then the Euler-Maclaurin tail
  ``zeta(s, w) ~ w^(1-s) / (s-1) + w^(-s) / 2 + sum(B_2k / (2k)! (s)_(2k-1) w^(-s-2k+1))``
  (A&S 23.2.3 summed from ``w``; ``(s)_m`` the rising factorial), with
  ``BERNOULLI_TERMS`` terms;
- ``x < 0``: the reflection formula differentiated ``n`` times,
  ``psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) cot^(n)(pi x)``, where the ``n``-th
  derivative of ``cot`` is a polynomial in ``cot`` (``cot' = -(1 + cot²)``), with integer
  coefficients computed exactly here;
- the poles ``0, -1, -2, ...`` and ``-inf`` give ``(-1)^(n+1) inf``, as PyTorch.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

# plain names: the CUDA path's static check reads ``module.name`` as an array's attribute
from .xp_special import _cot_pi, digamma, polynomial, trigamma

#: Bernoulli numbers ``B_2k`` used by the Euler-Maclaurin tail (k = 1 ... this)
BERNOULLI_TERMS = 12


def _bernoulli_even(count: int) -> list:
    """``B_2, B_4, ..., B_2count`` exactly (the recurrence ``sum(C(m+1, j) B_j) = 0``)."""
    b = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        b = [*b, -sum(math.comb(m + 1, j) * b[j] for j in range(m)) / (m + 1)]
    return b[2::2]


_B_EVEN = _bernoulli_even(BERNOULLI_TERMS)


def start(n: int) -> float:
    """Where the tail takes over: its ``k``-th term shrinks by about
    ``((n + 2k)/(2 pi w))²``, so ``w`` grows with ``n``."""
    return 10.0 + n


@cache
def tail_coefficients(n: int) -> tuple:
    """``B_2k (n+1)_(2k-1) / (2k)!`` for k = 1 ... BERNOULLI_TERMS (the tail in ``1/w²``)."""
    s = n + 1
    return tuple(float(b * math.prod(range(s, s + 2 * k - 1)) / math.factorial(2 * k))
                 for k, b in enumerate(_B_EVEN, start=1))


@cache
def cot_derivative(n: int) -> tuple:
    """The coefficients (lowest power first) of the polynomial ``P`` with
    ``d^n/du^n cot(u) = P(cot(u))``: ``P_0(c) = c``, ``P_(m+1) = -(1 + c²) P_m'``."""
    p = [0, 1]
    for _ in range(n):
        derivative = [k * p[k] for k in range(1, len(p))] + [0, 0]
        # -(1 + c²) * derivative
        p = [-(derivative[k] + (derivative[k - 2] if k >= 2 else 0))
             for k in range(len(derivative))]
        while len(p) > 1 and p[-1] == 0:
            p = p[:-1]
    return tuple(float(c) for c in p)


def polygamma(xp, n: int, x):
    """``psi^(n)(x)`` for a whole ``n >= 0``."""
    if n == 0:
        return digamma(xp, x)
    if n == 1:
        return trigamma(xp, x)
    sign = -1.0 if n % 2 == 0 else 1.0  # (-1)^(n+1)
    reflect = x < 0
    w = xp.where(reflect, 1.0 - x, x)
    out = sign * float(math.factorial(n)) * _hurwitz_zeta(xp, n, w)
    r = x - xp.rint(x)  # cot(pi x) = cot(pi r), exactly reduced to [-1/2, 1/2]
    cot = _cot_pi(xp, r)
    reflected = (-sign) * out - math.pi ** (n + 1) * polynomial(
        cot_derivative(n), cot)
    out = xp.where(reflect, reflected, out)
    pole = (x == 0) | (reflect & (r == 0)) | (x == -math.inf)
    return xp.where(pole, sign * math.inf, out)


def _hurwitz_zeta(xp, n: int, w):
    """``zeta(n + 1, w)`` for ``w >= 0`` (``inf`` at 0, 0 at ``inf``)."""
    s = n + 1
    total = xp.zeros_like(w)
    begin = start(n)
    for _ in range(int(begin)):
        up = w < begin
        total = xp.where(up, total + xp.power(w, -float(s)), total)
        w = xp.where(up, w + 1.0, w)
    v = 1.0 / (w * w)
    tail = (1.0 / n + 0.5 / w + v * polynomial(tail_coefficients(n), v))
    return total + tail * xp.power(w, -float(n))
