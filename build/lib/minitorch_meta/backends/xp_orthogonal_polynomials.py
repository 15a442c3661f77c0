"""The classical orthogonal polynomials of ``torch.special`` over an array module ``xp``
(NumPy or CuPy): ``orthogonal_polynomial(kind, x, n)``, elementwise over ``x`` and the
degree ``n`` (broadcast together).

Written once for both devices: each kind's three-term recurrence runs as whole-array steps
``k = 2, 3, ..., max(n)``, and each element keeps the value of step ``k == n`` (a Python
loop over the degree, never over elements). The arithmetic is in the arrays' dtype, in
PyTorch's order of operations, so that float32 results round as PyTorch's do. Its special
cases are PyTorch's (2.13 CPU kernel), checked before the recurrence:

- the degree is ``n`` cut toward zero; ``n < 0`` (and ``nan``, ``±inf``, ``|n| >= 2**63``,
  which PyTorch's conversion to int64 makes negative) gives 0;
- the Chebyshev and Legendre kinds take their closed values at ``x = ±1`` (shifted kinds:
  ``x = 1`` and ``x = 0``), and the Chebyshev kinds their trigonometric forms
  (``T_n(cos t) = cos(n t)``, ...) inside ``(-1, 1)`` above a degree (``TRIG_FROM``);
- the Laguerre polynomials are 1 at ``x = 0``; the Hermite ones ``nan`` above degree 128
  (float32) or 512 (float64), where PyTorch stops;
- an element whose recurrence reached ``nan`` stays ``nan``.

The recurrence of a large degree costs ``max(n)`` whole-array steps (PyTorch: ``n`` steps
per element); the loop stops early once every element is done (checked every
``CHECK_EVERY`` steps, one device synchronisation each).
"""

from __future__ import annotations

import math

#: kinds with the recurrence ``r = 2y q - p`` and their degree-1 values ``q(y)``
CHEBYSHEV = {"t": lambda y: y, "u": lambda y: y + y, "v": lambda y: y + y - 1.0,
             "w": lambda y: y + y + 1.0}
#: the Chebyshev kinds: (letter, shifted)
CHEBYSHEV_KINDS = {f"{prefix}chebyshev_{letter}": (letter, prefix == "shifted_")
                   for prefix in ("", "shifted_") for letter in "tuvw"}
#: the degree above which PyTorch uses the trigonometric form inside (-1, 1)
TRIG_FROM = {("t", False): 6, ("u", False): 8, ("v", False): 8, ("w", False): 8,
             ("t", True): 6, ("u", True): 6, ("v", True): 6, ("w", True): 4}
#: the Hermite polynomials are nan above this degree (PyTorch's limit), by itemsize
HERMITE_LIMIT = {4: 128, 8: 512}
#: steps between the checks whether every element is done
CHECK_EVERY = 32
_INT64_END = 2.0 ** 63

KINDS = ("chebyshev_t", "chebyshev_u", "chebyshev_v", "chebyshev_w",
         "shifted_chebyshev_t", "shifted_chebyshev_u", "shifted_chebyshev_v",
         "shifted_chebyshev_w", "hermite_h", "hermite_he", "laguerre_l", "legendre_p")


def degree(xp, n):
    """``n`` cut toward zero as PyTorch's conversion to int64 does, as a float array: -1
    where that conversion overflows (``nan``, ``±inf``, ``|n| >= 2**63``)."""
    valid = xp.abs(n) < _INT64_END  # False for nan too
    return xp.where(valid, xp.trunc(xp.where(valid, n, 0.0)), -1.0)


def orthogonal_polynomial(xp, kind: str, x, n):
    """The polynomial ``kind`` (one of ``KINDS``) of degree ``n`` at ``x``; ``x`` and ``n``
    floating arrays of one dtype, broadcast together."""
    x, n = xp.broadcast_arrays(x, n)
    m = degree(xp, n)
    if kind in CHEBYSHEV_KINDS:
        letter, shifted = CHEBYSHEV_KINDS[kind]
        y = x + x - 1.0 if shifted else x
        step = _chebyshev_step(y)
        out, todo = _chebyshev_special(xp, letter, shifted, x, y, m)
        first = CHEBYSHEV[letter](y)
    elif kind == "hermite_h":
        first, step = x + x, _hermite_step(x)
        limit = HERMITE_LIMIT[x.dtype.itemsize]
        out, todo = xp.full_like(x, math.nan), m <= limit
    elif kind == "hermite_he":
        first, step = x, _hermite_e_step(x)
        limit = HERMITE_LIMIT[x.dtype.itemsize]
        out, todo = xp.full_like(x, math.nan), m <= limit
    elif kind == "laguerre_l":
        first, step = 1.0 - x, _laguerre_step(x)
        out, todo = xp.ones_like(x), x != 0
    else:  # legendre_p
        first, step = x, _legendre_step(x)
        one = xp.ones_like(x)
        out, todo = _plus_minus_one(xp, x, m, one, one), xp.abs(x) != 1.0
    out = xp.where(todo, _recurrence(xp, step, first, m, todo), out)
    return xp.where(m < 0, 0.0, out).astype(x.dtype, copy=False)


def _recurrence(xp, step, first, m, todo):
    """The value at degree ``m`` of the recurrence ``q_k = step(k, q_(k-1), q_(k-2))`` from
    ``q_0 = 1`` and ``q_1 = first``, where ``todo``."""
    one = xp.ones_like(first)
    out = xp.where(m == 0, one, first)
    wanted = xp.where(todo, m, 0.0)
    top = int(xp.max(wanted)) if wanted.size else 0
    p, q = one, first
    for k in range(2, top + 1):
        p, q = q, step(k, p, q)
        out = xp.where(m == k, q, out)
        if k % CHECK_EVERY == 0 and not bool(xp.any((wanted > k) & ~xp.isnan(q))):
            # every element still climbing is nan, and stays nan
            out = xp.where(wanted > k, q, out)
            break
    return out


def _chebyshev_step(y):
    return lambda k, p, q: (y + y) * q - p


def _hermite_step(x):
    # PyTorch's H_(j+1) = 2x H_j - 2j H_(j-1), written with k = j + 1
    return lambda k, p, q: (x + x) * q - float(2 * (k - 1)) * p


def _hermite_e_step(x):
    return lambda k, p, q: x * q - float(k - 1) * p


def _laguerre_step(x):
    def step(k, p, q):
        j = k - 1
        return ((float(j + j) + (1.0 - x)) * q - float(j) * p) / float(j + 1)
    return step


def _legendre_step(x):
    def step(k, p, q):
        j = k - 1
        return (float(j + j + 1) * x * q - float(j) * p) / float(j + 1)
    return step


def _plus_minus_one(xp, at, m, plus, minus):
    """An end-point value: ``plus`` where ``at > 0``, else ``minus`` for an even degree
    ``m`` and ``-minus`` for an odd one."""
    even = xp.fmod(m, 2.0) == 0
    return xp.where(at > 0, plus, xp.where(even, minus, -minus))


def _chebyshev_special(xp, letter: str, shifted: bool, x, y, m):
    """``(value, todo)``: PyTorch's end-point values and trigonometric forms of a Chebyshev
    kind, and where the recurrence is still wanted."""
    one = xp.ones_like(x)
    count = m + 1.0  # n + 1 (U at the end points)
    odd_count = m + m + 1.0  # 2n + 1 (V and W at the end points)
    ends = {"t": (one, one), "u": (count, count), "v": (one, odd_count),
            "w": (odd_count, one)}[letter]
    plus, minus = ends
    if shifted:  # x == 1 is y == 1, x == 0 is y == -1
        at_end = (x == 1.0) | (x == 0.0)
        sign_at = xp.where(x == 1.0, 1.0, -1.0)
    else:
        at_end = xp.abs(x) == 1.0
        sign_at = x
    end_value = _plus_minus_one(xp, sign_at, m, plus, minus)
    inside = (xp.abs(y) < 1.0) & (m > TRIG_FROM[letter, shifted]) & ~at_end
    trig = _chebyshev_trig(xp, letter, shifted, y, m, plus, minus)
    value = xp.where(at_end, end_value, trig)
    return value, ~(at_end | inside)


def _chebyshev_trig(xp, letter: str, shifted: bool, y, m, plus, minus):
    """The trigonometric forms inside ``(-1, 1)``, with PyTorch's fallbacks where the
    denominator rounds to a degenerate value (``theta = acos(y)``; the shifted W's fallback
    looks at the degree's parity only, as PyTorch's)."""
    safe = xp.where(xp.abs(y) < 1.0, y, 0.0)
    theta = xp.arccos(safe)
    if letter == "t":
        return xp.cos(m * theta)
    if letter == "u":
        s = xp.sin(theta)
        fallback = (m + 1.0) * xp.cos((m + 1.0) * theta) / safe
        return xp.where(s != 0, xp.sin((m + 1.0) * theta) / xp.where(s != 0, s, 1.0), fallback)
    half = theta / 2.0
    at = safe if letter == "w" and not shifted else xp.full_like(y, -1.0)
    end = _plus_minus_one(xp, at, m, plus, minus)
    if letter == "v":
        degenerate = xp.sin(half) == 1.0
        value = xp.cos((m + 0.5) * theta) / xp.cos(half)
    else:
        degenerate = xp.cos(half) == 1.0
        value = xp.sin((m + 0.5) * theta) / xp.where(degenerate, 1.0, xp.sin(half))
    return xp.where(degenerate, end, value)
