"""xp_bessel_jy's J0, J1, Y0, Y1 and spherical j0, xp_bessel_k's K0, K1 and their scaled
forms, and xp_airy's Ai: float64 precision against mpmath on grids (both sides of every
switch between series), float32 staying float32 (rounded once from float64), and the
float32 phase formed as PyTorch's kernel forms it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minitorch_meta.backends import xp_airy, xp_bessel_jy, xp_bessel_k

mp = pytest.importorskip("mpmath", reason="mpmath is the reference of the special functions")

FUNCTIONS = {
    "bessel_j0": (xp_bessel_jy, lambda v: mp.besselj(0, v)),
    "bessel_j1": (xp_bessel_jy, lambda v: mp.besselj(1, v)),
    "bessel_y0": (xp_bessel_jy, lambda v: mp.bessely(0, v)),
    "bessel_y1": (xp_bessel_jy, lambda v: mp.bessely(1, v)),
    "spherical_bessel_j0": (xp_bessel_jy, lambda v: mp.sin(v) / v if v else mp.mpf(1)),
    "modified_bessel_k0": (xp_bessel_k, lambda v: mp.besselk(0, v)),
    "modified_bessel_k1": (xp_bessel_k, lambda v: mp.besselk(1, v)),
    "scaled_modified_bessel_k0": (xp_bessel_k, lambda v: mp.besselk(0, v) * mp.exp(v)),
    "scaled_modified_bessel_k1": (xp_bessel_k, lambda v: mp.besselk(1, v) * mp.exp(v)),
    "airy_ai": (xp_airy, lambda v: mp.airyai(v)),
}
#: only x > 0 is in these functions' domain
POSITIVE = {"bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
            "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"}
GRID = np.concatenate([np.linspace(-40, 40, 321), np.linspace(4.9, 5.1, 11),
                       np.linspace(1.9, 2.2, 13), -np.linspace(1.9, 2.2, 13),
                       np.geomspace(1e-12, 1e4, 120), -np.geomspace(1e-12, 1e4, 40)])


def _grid(name):
    grid = GRID[GRID > 0] if name in POSITIVE else GRID
    if name == "airy_ai":  # Ai underflows float64 beyond 104
        grid = grid[grid < 100]
    return grid


def _exact(function, x) -> np.ndarray:
    with mp.workdps(40):
        return np.array([float(function(mp.mpf(float(v)))) for v in x])


def _envelope(name, x, exact):
    """The scale of the error bound: the oscillating functions' amplitude (their zeros
    have no relative precision), else the value itself."""
    x = np.where(x == 0, 1e-300, x)  # the amplitudes' 1/x at 0 (never the bound there)
    if name.startswith("bessel_"):
        return np.maximum(np.abs(exact), np.minimum(1.0, np.sqrt(2 / (np.pi * np.abs(x)))))
    if name == "spherical_bessel_j0":
        return np.maximum(np.abs(exact), 1 / np.maximum(np.abs(x), 1.0))
    if name == "airy_ai":
        return np.where(x < 0, np.maximum(np.abs(exact), 0.5 / np.abs(x) ** 0.25), exact)
    return np.abs(exact)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float64_agrees_with_mpmath(name):
    module, reference = FUNCTIONS[name]
    x = _grid(name)
    ours = getattr(module, name)(np, x)
    exact = _exact(reference, x)
    underflow = (exact == 0) & (ours == 0)  # K0(1e4)
    errors = np.abs(ours - exact) / np.where(underflow, 1.0, _envelope(name, x, exact))
    # the rounding of the phase x - pi/4 (of zeta = 2/3 |x|^(3/2) for Ai) to float64 moves
    # the value by up to eps * phase (in units of the amplitude)
    phase = np.abs(x) ** 1.5 if name == "airy_ai" else np.abs(x)
    bound = 8e-15 + 4.4e-16 * phase
    worst = np.argmax(errors / bound)
    assert (errors <= bound).all(), (x[worst], ours[worst], exact[worst])


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float32_is_the_float64_value_rounded(name):
    module, _ = FUNCTIONS[name]
    x = _grid(name)
    # where no phase is formed in float32 (Ai's is beyond x = -2.09)
    x = x[(np.abs(x) <= 5) & (x > -2)].astype(np.float32)
    ours = getattr(module, name)(np, x)
    assert ours.dtype == np.float32
    wide = getattr(module, name)(np, x.astype(np.float64))
    np.testing.assert_array_equal(ours, wide.astype(np.float32))


@pytest.mark.parametrize("name, shift", [("bessel_j0", math.pi / 4),
                                         ("bessel_y1", 3 * math.pi / 4)])
def test_float32_phase_is_formed_in_float32(name, shift):
    # PyTorch's float32 kernel rounds x - pi/4 to float32; so does ours, so that the two
    # agree where the rounding moves the value (J0(12345.678) by 6 %)
    x = np.array([12345.678, 1e6, 3.3e7], dtype=np.float32)
    ours = getattr(xp_bessel_jy, name)(np, x)
    chi = (x - np.float32(shift)).astype(np.float64)
    reference = _exact(FUNCTIONS[name][1], x.astype(np.float64))
    exact_phase = x.astype(np.float64) - shift
    # the float64 value moved by the float32 phase's error, to first order
    moved = np.sqrt(2 / (np.pi * x)) * (np.cos(chi) if name == "bessel_j0" else np.sin(chi))
    unmoved = np.sqrt(2 / (np.pi * x)) * (np.cos(exact_phase) if name == "bessel_j0"
                                          else np.sin(exact_phase))
    np.testing.assert_allclose(ours, moved + (reference - unmoved), atol=1e-9)


def test_edges_as_pytorch():
    inf, nan = math.inf, math.nan
    x = np.array([0.0, -0.0, -1.0, inf, -inf, nan])
    expect = np.testing.assert_array_equal
    expect(xp_bessel_jy.bessel_y0(np, x), [-inf, -inf, nan, nan, nan, nan])
    expect(xp_bessel_k.modified_bessel_k1(np, x), [inf, inf, nan, 0, nan, nan])
    expect(xp_bessel_k.scaled_modified_bessel_k0(np, x), [inf, inf, nan, 0, nan, nan])
    expect(xp_bessel_jy.spherical_bessel_j0(np, x), [1, 1, math.sin(1.0), 0, 0, nan])
    expect(xp_airy.airy_ai(np, np.array([inf, -inf, 104.0, nan])), [nan, nan, 0, nan])
    assert np.signbit(xp_bessel_jy.bessel_j1(np, np.array([-0.0])))[0]


def test_chebyshev_tables_are_cut_where_their_terms_are_negligible():
    tables = [xp_bessel_jy.J0_SMALL, xp_bessel_jy.P0, xp_bessel_jy.Q1, xp_bessel_k.K0_FAR,
              xp_airy.AI_POS, xp_airy.AI_NEG_Q]
    for table in tables:
        scale = max(abs(c) for c in table)
        assert abs(table[-1]) < 1e-16 * scale
