"""xp_normal's erfcx, ndtr, log_ndtr and ndtri and xp_zeta's Hurwitz zeta: float64
precision against mpmath on grids that reach the far tails, and float32 computed in
float32 to its own precision."""

from __future__ import annotations

import numpy as np
import pytest

from minitorch_meta.backends import numpy_erf, xp_normal, xp_zeta

mp = pytest.importorskip("mpmath", reason="mpmath is the reference of the special functions")


def _ndtr(v):
    return mp.ncdf(v)


def _log_ndtr(v):  # log1p(-ndtr(-v)) keeps the right tail's digits
    return mp.log(mp.ncdf(v)) if v < 0 else mp.log1p(-mp.ncdf(-v))


def _ndtri(p):
    # 1 - 2p keeps p's digits with about -log10(p) more (330 for p = 5e-324)
    with mp.workdps(40 + max(0, int(-mp.log10(p)))):
        if p < 0.5:
            return -mp.sqrt(2) * mp.erfinv(1 - 2 * p)
        return mp.sqrt(2) * mp.erfinv(2 * p - 1)


def _erfcx(v):
    return mp.exp(v * v) * mp.erfc(v)


FUNCTIONS = {"erfcx": _erfcx, "ndtr": _ndtr, "log_ndtr": _log_ndtr, "ndtri": _ndtri}
GRIDS = {
    "erfcx": [np.linspace(-26, 30, 1501), -np.geomspace(1e-10, 26, 150),
              np.geomspace(1e-10, 1e10, 150)],
    "ndtr": [np.linspace(-38, 9, 1501), -np.geomspace(1e-10, 38, 150)],
    "log_ndtr": [np.linspace(-1e3, 30, 1501), -np.geomspace(1e-10, 1e5, 150),
                 np.geomspace(1e-10, 37, 150)],
    "ndtri": [np.linspace(1e-6, 1 - 1e-6, 1501), np.geomspace(5e-324, 0.5, 200),
              1 - np.geomspace(1.2e-16, 0.5, 150), 0.5 + np.geomspace(1e-16, 0.2, 50)],
}
#: at most this many units in the last place from the exact value
BOUND = {"erfcx": 4, "ndtr": 4, "log_ndtr": 6, "ndtri": 5}


def _exact(function, x):
    with mp.workdps(40):
        return np.array([float(function(mp.mpf(float(v)))) for v in x])


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float64_within_a_few_ulps_of_mpmath(name):
    x = np.concatenate(GRIDS[name])
    ours = getattr(xp_normal, name)(np, x, numpy_erf.erf)
    exact = _exact(FUNCTIONS[name], x)
    errors = np.abs(ours - exact) / np.spacing(np.abs(exact))
    assert errors.max() <= BOUND[name], (errors.max(), x[errors.argmax()])


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float32_is_computed_in_float32_to_its_precision(name):
    x = np.concatenate(GRIDS[name]).astype(np.float32)
    x = x[np.abs(x - 0.5) > 1e-6] if name == "ndtri" else x
    x = x[(x > 0) & (x < 1)] if name == "ndtri" else x
    ours = getattr(xp_normal, name)(np, x, numpy_erf.erf)
    assert ours.dtype == np.float32
    exact = _exact(FUNCTIONS[name], x)
    usable = (np.abs(exact) > 1e-36) & (np.abs(exact) < 3e38)
    relative = np.abs(ours[usable] - exact[usable]) / np.abs(exact[usable])
    assert relative.max() < 5e-7, (relative.max(), x[usable][relative.argmax()])


def test_zeta_against_mpmath():
    x = np.repeat(1 + np.geomspace(1e-6, 60, 15), 15)
    q = np.tile(np.geomspace(1e-4, 1e6, 15), 15)
    with mp.workdps(400):  # mpmath's zeta loses digits at large x and q below ~300
        exact = np.array([float(mp.zeta(mp.mpf(a), mp.mpf(b))) for a, b in zip(x, q)])
    ours = xp_zeta.zeta(np, x, q)
    usable = np.abs(exact) > 1e-290
    relative = np.abs(ours - exact)[usable] / exact[usable]
    assert relative.max() < 2e-14, (relative.max(), x[usable][relative.argmax()],
                                    q[usable][relative.argmax()])


def test_zeta_below_zero_is_the_sum_shifted_to_positive_points():
    x = np.array([2.0, 3.0, 4.0, 5.0])
    q = np.array([-0.3, -5.5, -12.75, -1.1])
    with mp.workdps(60):
        exact = np.array([float(mp.zeta(int(a), mp.mpf(b))) for a, b in zip(x, q)])
    np.testing.assert_allclose(xp_zeta.zeta(np, x, q), exact, rtol=1e-13)


def test_zeta_tail_coefficients_are_bernoulli_over_factorial():
    with mp.workdps(30):
        expected = [float(mp.bernoulli(2 * k) / mp.factorial(2 * k)) for k in range(1, 13)]
    np.testing.assert_allclose(xp_zeta.TAIL_COEFFICIENTS, expected, rtol=1e-15)
