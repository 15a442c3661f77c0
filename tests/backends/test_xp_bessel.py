"""xp_bessel's i0, i0e, i1, i1e and xp_polygamma's polygamma: float64 precision against
mpmath on grids (both sides of the switch from series to asymptotic expansion, negative
arguments and reflections), float32 staying float32, and the exact tables."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from minitorch_meta.backends import xp_bessel, xp_polygamma

mp = pytest.importorskip("mpmath", reason="mpmath is the reference of the special functions")


def _ulps(ours, exact) -> np.ndarray:
    exact = np.asarray(exact)
    return np.abs(ours - exact) / np.spacing(np.abs(exact))


def _exact(function, x) -> np.ndarray:
    with mp.workdps(40):
        return np.array([float(function(mp.mpf(float(v)))) for v in x])


BESSEL = {
    "i0": lambda v: mp.besseli(0, v),
    "i1": lambda v: mp.besseli(1, v),
    "i0e": lambda v: mp.besseli(0, v) * mp.exp(-abs(v)),
    "i1e": lambda v: mp.besseli(1, v) * mp.exp(-abs(v)),
}
BESSEL_GRID = np.concatenate([np.linspace(-45, 45, 1801), np.linspace(19.9, 20.1, 41),
                              np.geomspace(1e-10, 700, 300), -np.geomspace(1e-10, 700, 50)])


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_float64_within_a_few_ulps_of_mpmath(name):
    ours = getattr(xp_bessel, name)(np, BESSEL_GRID)
    errors = _ulps(ours, _exact(BESSEL[name], BESSEL_GRID))
    assert errors.max() <= 10, (errors.max(), BESSEL_GRID[errors.argmax()])


@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel_float32_stays_float32_and_is_accurate(name):
    x = np.linspace(-80, 80, 1601).astype(np.float32)
    ours = getattr(xp_bessel, name)(np, x)
    assert ours.dtype == np.float32
    exact = _exact(BESSEL[name], x)
    np.testing.assert_allclose(ours, exact, rtol=2e-6, atol=1e-30)


@pytest.mark.parametrize("n", [2, 3, 4, 6, 10, 20])
def test_polygamma_float64_against_mpmath(n):
    positive = np.concatenate([np.linspace(0.01, 70, 1401), np.geomspace(1e-6, 1e5, 200)])
    errors = _ulps(xp_polygamma.polygamma(np, n, positive),
                   _exact(lambda v: mp.psi(n, v), positive))
    assert errors.max() <= 4 * n, (errors.max(), positive[errors.argmax()])
    # below 0 the reflection's two terms may cancel: relative precision near round-off
    negative = np.concatenate([-np.linspace(0.05, 0.95, 19) - k for k in (0, 1, 4, 13)])
    np.testing.assert_allclose(xp_polygamma.polygamma(np, n, negative),
                               _exact(lambda v: mp.psi(n, v), negative), rtol=1e-13)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_polygamma_float32_stays_float32(n):
    x = np.array([0.5, 3.0, -1.5], np.float32)
    ours = xp_polygamma.polygamma(np, n, x)
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours, _exact(lambda v: mp.psi(n, v), x), rtol=1e-5)


def test_polygamma_poles_and_limits():
    x = np.array([0.0, -0.0, -3.0, -np.inf, np.inf, np.nan])
    np.testing.assert_array_equal(xp_polygamma.polygamma(np, 2, x),
                                  [-np.inf, -np.inf, -np.inf, -np.inf, 0.0, np.nan])
    np.testing.assert_array_equal(xp_polygamma.polygamma(np, 3, x),
                                  [np.inf, np.inf, np.inf, np.inf, 0.0, np.nan])


def test_cot_derivative_polynomials():
    """``cot'' = 2 cot (1 + cot²)`` and ``cot''' = -2 (1 + cot²)(1 + 3 cot²)``, and the table
    against mpmath's derivative of cot at a point."""
    assert xp_polygamma.cot_derivative(2) == (0.0, 2.0, 0.0, 2.0)
    assert xp_polygamma.cot_derivative(3) == (-2.0, 0.0, -8.0, 0.0, -6.0)
    u = 0.7
    c = 1 / np.tan(u)
    for n in (4, 7):
        value = sum(k * c ** i for i, k in enumerate(xp_polygamma.cot_derivative(n)))
        np.testing.assert_allclose(value, float(mp.diff(mp.cot, u, n)), rtol=1e-10)


def test_bernoulli_numbers():
    assert xp_polygamma._B_EVEN[:4] == [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42),
                                        Fraction(-1, 30)]
    assert xp_polygamma._B_EVEN[5] == Fraction(-691, 2730)
