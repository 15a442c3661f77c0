"""The NumPy backend's erf: float64 precision against math.erf on a dense grid (tails and
tiny arguments included), float32 against PyTorch, special values, and the coefficients
recomputed from scratch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minitorch_meta.backends import numpy_erf
from minitorch_meta.backends.numpy_erf import erf


def _reference(x) -> np.ndarray:
    return np.array([math.erf(float(v)) for v in np.ravel(x)]).reshape(np.shape(x))


def _ulps(ours, reference) -> np.ndarray:
    """|ours - reference| in units of the reference's last place (in its dtype)."""
    reference = np.asarray(reference)
    spacing = np.spacing(np.abs(reference).astype(reference.dtype))
    return np.abs(ours.astype(np.float64) - reference.astype(np.float64)) / spacing


def test_float64_within_two_ulps_of_math_erf_on_a_dense_grid():
    x = np.concatenate([np.linspace(-7.0, 7.0, 1_400_001),
                        np.geomspace(1e-300, 7.0, 20_000), -np.geomspace(1e-300, 7.0, 20_000),
                        # both sides of the pieces' seams and of the clamp
                        np.nextafter(1.0, [0.0, 2.0]), np.nextafter(6.0, [0.0, 7.0])])
    errors = _ulps(erf(x), _reference(x))
    assert errors.max() <= 2.0, (errors.max(), x[errors.argmax()])
    assert (errors <= 1.0).mean() > 0.999  # almost always correctly rounded or next to it


def test_tails_are_exactly_plus_or_minus_one():
    x = np.array([5.93, 6.0, 6.5, 27.0, 1e10, 1e300, np.inf])
    assert (erf(x) == _reference(x)).all() and (erf(x) == 1.0).all()
    assert (erf(-x) == -1.0).all()


def test_special_values():
    out = erf(np.array([0.0, -0.0, np.nan, -np.nan, 5e-324, -1e-310]))
    assert out[0] == 0 and not np.signbit(out[0])
    assert out[1] == 0 and np.signbit(out[1])  # erf(-0.0) = -0.0, as in C and PyTorch
    assert np.isnan(out[2:4]).all()
    np.testing.assert_array_equal(out[4:], _reference([5e-324, -1e-310]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4, 2)])
def test_dtype_and_shape_are_kept(dtype, shape):
    x = np.random.default_rng(0).normal(0, 2, shape).astype(dtype)
    out = erf(x)
    assert out.dtype == dtype and out.shape == shape
    assert (_ulps(out, _reference(x).astype(dtype)) <= 2).all()


def test_the_input_is_not_modified():
    x = np.array([-3.0, -0.5, 0.25, 2.0])
    before = x.copy()
    erf(x)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_torch_erf(dtype):
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    x = np.concatenate([np.linspace(-8, 8, 200_001), np.geomspace(1e-30, 8, 10_001)]).astype(
        dtype)
    ref = torch.erf(torch.from_numpy(x)).numpy()
    assert _ulps(erf(x), ref).max() <= (2 if dtype == "float64" else 3)


def _chebyshev_interpolant(mp, f, low, high, nodes=60):
    """Chebyshev coefficients of ``f`` on ``[low, high]`` (interpolation at ``nodes`` nodes)."""
    half = mp.mpf(1) / 2
    angles = [mp.pi * (k + half) / nodes for k in range(nodes)]
    values = [f((high - low) / 2 * mp.cos(a) + (low + high) / 2) for a in angles]
    return [(1 if j else half) * 2 * mp.fsum(v * mp.cos(j * a) for v, a in zip(values, angles))
            / nodes for j in range(nodes)]


def test_the_coefficients_are_the_chebyshev_interpolants_described():
    mp = pytest.importorskip("mpmath", reason="mpmath recomputes the coefficients")
    mp.mp.dps = 50
    near = _chebyshev_interpolant(mp, lambda t: mp.erf(mp.sqrt(t)) / mp.sqrt(t), 0, 1)
    k = numpy_erf.K
    complement = _chebyshev_interpolant(
        mp, lambda s: mp.erfc(k * (1 + s) / (1 - s)) * mp.exp((k * (1 + s) / (1 - s)) ** 2),
        mp.mpf(numpy_erf.SPLIT - k) / (numpy_erf.SPLIT + k),
        mp.mpf(numpy_erf.CLAMP - k) / (numpy_erf.CLAMP + k))
    for table, exact in ((numpy_erf.NEAR_ZERO, near), (numpy_erf.SCALED_COMPLEMENT, complement)):
        assert list(table) == [float(c) for c in exact[:len(table)]]
        # the terms left out are below 1e-17 of the first
        assert max(abs(float(c)) for c in exact[len(table):]) < 1e-17 * abs(table[0])
