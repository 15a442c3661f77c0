"""xp_special's erfc, erfinv, lgamma, digamma and trigamma: float64 precision against
mpmath on grids (tails, poles' neighbourhoods and reflections included), special values,
dtypes, and the series coefficients recomputed from scratch."""

from __future__ import annotations

import numpy as np
import pytest

from minitorch_meta.backends import numpy_erf, xp_special
from tests.backends.test_numpy_erf import _chebyshev_interpolant

mp = pytest.importorskip("mpmath", reason="mpmath is the reference of the special functions")
INF, NAN = np.inf, np.nan


def _ulps(ours, exact) -> np.ndarray:
    exact = np.asarray(exact)
    return np.abs(ours - exact) / np.spacing(np.abs(exact))


def _exact(function, x) -> np.ndarray:
    with mp.workdps(30):
        return np.array([float(function(mp.mpf(float(v)))) for v in x])


FUNCTIONS = {
    "erfc": (lambda x: xp_special.erfc(np, x, numpy_erf.erf), mp.erfc),
    "erfinv": (lambda x: xp_special.erfinv(np, x, numpy_erf.erf), mp.erfinv),
    "lgamma": (lambda x: xp_special.lgamma(np, x), lambda v: mp.log(abs(mp.gamma(v)))),
    "digamma": (lambda x: xp_special.digamma(np, x), mp.digamma),
    "trigamma": (lambda x: xp_special.trigamma(np, x), lambda v: mp.psi(1, v)),
}
GRIDS = {
    "erfc": [np.linspace(-6, 27, 4001), np.geomspace(1e-12, 27, 400)],
    "erfinv": [np.linspace(-0.9999, 0.9999, 4001), 1 - np.geomspace(1.2e-16, 0.5, 400),
               np.geomspace(1e-300, 0.5, 100)],
    # positive only: below 0 the reflection loses relative precision next to the zeros
    "lgamma": [np.linspace(0.01, 40, 4001), np.geomspace(1e-8, 1e6, 400),
               1 + np.linspace(-1e-3, 1e-3, 101), 2 + np.linspace(-1e-3, 1e-3, 101)],
    # away from the zero at 1.4616, where psi(x + 10) - sum(1 / (x + k)) cancels (as in
    # PyTorch's kernel: 10 ulps at 1.5), and from the negative zeros
    "digamma": [np.linspace(2, 60, 4001), np.geomspace(1e-8, 1.2, 400),
                -np.linspace(0.05, 0.45, 41) - 7, [-0.999999, -2.000001, -0.25, -2.75]],
    "trigamma": [np.linspace(-20.3, 40, 4001), np.geomspace(1e-8, 1e6, 400)],
}
#: at most this many units in the last place from the exact value
BOUND = {"erfc": 4, "erfinv": 4, "lgamma": 6, "digamma": 12, "trigamma": 6}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float64_within_a_few_ulps_of_mpmath(name):
    ours, exact = FUNCTIONS[name]
    x = np.concatenate([np.asarray(g, float) for g in GRIDS[name]])
    errors = _ulps(ours(x), _exact(exact, x))
    assert errors.max() <= BOUND[name], (errors.max(), x[errors.argmax()])


def test_negative_lgamma_is_accurate_in_absolute_terms():
    x = np.linspace(-20.3, -0.51, 2001)
    np.testing.assert_allclose(xp_special.lgamma(np, x), _exact(FUNCTIONS["lgamma"][1], x),
                               rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name, data, expected", [
    ("erfc", [0.0, -0.0, INF, -INF, NAN, 27.5, -40.0], [1.0, 1.0, 0.0, 2.0, NAN, 0.0, 2.0]),
    ("erfinv", [0.0, -0.0, 1.0, -1.0, 1.5, -INF, NAN], [0.0, -0.0, INF, -INF, NAN, NAN, NAN]),
    ("lgamma", [0.0, -0.0, -1.0, -2.0, -1e300, INF, -INF, 1.0, 2.0, NAN],
     [INF, INF, INF, INF, INF, INF, INF, 0.0, 0.0, NAN]),
    ("digamma", [0.0, -0.0, -1.0, -3.0, INF, -INF, NAN], [-INF, INF, NAN, NAN, INF, NAN, NAN]),
    ("trigamma", [0.0, -0.0, -1.0, INF, NAN], [INF, INF, INF, 0.0, NAN]),
])
def test_special_values(name, data, expected):
    out = FUNCTIONS[name][0](np.array(data))
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(np.signbit(out[~np.isnan(out)]),
                                  np.signbit(np.array(expected)[~np.isnan(expected)]))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("shape", [(), (0,), (3, 4, 2)])
def test_float32_stays_float32_and_is_accurate(name, shape):
    rng = np.random.default_rng(0)
    x = rng.uniform(-0.95, 0.95, shape) if name == "erfinv" else rng.uniform(0.1, 8, shape)
    x = x.astype(np.float32)
    before = x.copy()
    out = FUNCTIONS[name][0](x)
    assert out.dtype == np.float32 and out.shape == shape
    np.testing.assert_array_equal(x, before)  # the input is not modified
    exact = _exact(FUNCTIONS[name][1], x.ravel()).reshape(shape)
    np.testing.assert_allclose(out, exact, rtol=3e-6, atol=1e-6)


def test_the_coefficients_are_the_series_described():
    with mp.workdps(50):
        k = xp_special.K
        scaled = _chebyshev_interpolant(
            mp, lambda s: _x_erfcx(mp, k * (1 + s) / (1 - s)), mp.mpf(xp_special.S_LOW), 1,
            nodes=80)
        near_two = [1 - mp.euler] + [(-1) ** j * (mp.zeta(j) - 1) / j for j in range(2, 29)]
        bernoulli = [mp.bernoulli(2 * j) for j in range(1, 9)]
    for table, exact in ((xp_special.X_ERFCX, scaled), (xp_special.LGAMMA_NEAR_TWO, near_two)):
        np.testing.assert_allclose(table, [float(c) for c in exact[:len(table)]], rtol=2e-16,
                                   atol=0)
    # the Chebyshev terms left out are below 1e-18 of the first
    assert max(abs(float(c)) for c in scaled[len(xp_special.X_ERFCX):]) < 1e-18
    for j, b in enumerate(bernoulli, 1):
        assert xp_special.STIRLING[j - 1] == pytest.approx(float(b / (2 * j * (2 * j - 1))))
        assert xp_special.DIGAMMA_SERIES[j - 1] == pytest.approx(float(b / (2 * j)))
        assert xp_special.TRIGAMMA_SERIES[j - 1] == pytest.approx(float(b))


def _x_erfcx(mp, x):
    if mp.isinf(x):
        return 1 / mp.sqrt(mp.pi)
    return x * mp.erfc(x) * mp.exp(x * x)
