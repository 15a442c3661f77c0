"""torch.special's Bessel family (bessel_j0 ... airy_ai): values three ways (meta shapes,
float32 against PyTorch), wide grids in float32 and float64 against PyTorch, special values,
dtypes, no gradient (as PyTorch), out=, and the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests

NAMES = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
         "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
         "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
         "airy_ai")


def _case(name, scale, shape=(3, 4), kind="normal"):
    return Case(f"{name}_{'x'.join(map(str, shape)) or '0d'}",
                lambda T, F, a: getattr(T.special, name)(a * scale), [Arg(shape, kind, False)])


CASES = [_case(name, 6.0) for name in NAMES] + [
    _case("bessel_y0", 20.0, (5,), "positive"), _case("airy_ai", 3.0, ()),
    _case("modified_bessel_k1", 1.0, (0, 3), "positive"),
    _case("scaled_modified_bessel_k0", 9.0, (2, 3, 2), "positive"),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, rtol=1e-5,
                                                                       atol=2e-6)

GRID = np.concatenate([np.linspace(-60, 60, 2401), np.linspace(4.99, 5.01, 21),
                       np.linspace(-2.2, 2.2, 89), np.geomspace(1e-9, 1e6, 300),
                       -np.geomspace(1e-9, 1e4, 60), [0.0, -0.0, 710.0, -710.0]])


def _envelope(name, x, values):
    """The scale of the comparison: the amplitude of the oscillating functions (their zeros
    have no relative precision in either library), else the value."""
    x = np.maximum(np.abs(x).astype(np.float64), 1e-300)
    if name.startswith("bessel_"):
        return np.maximum(np.abs(values), np.minimum(1.0, np.sqrt(2 / (np.pi * x))))
    if name == "spherical_bessel_j0":
        return np.maximum(np.abs(values), 1 / np.maximum(x, 1.0))
    if name == "airy_ai":
        return np.maximum(np.abs(values), 0.5 / np.maximum(x, 1.0) ** 0.25)
    return np.maximum(np.abs(values), 1e-300)  # K0 underflows to 0 beyond 745


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_agree_with_pytorchs_over_the_real_line(name, dtype, device):
    x = GRID.astype(dtype)
    ours = getattr(mt.special, name)(mt.tensor(x, device=device))
    theirs = getattr(torch.special, name)(torch.tensor(x)).numpy()
    assert ours.dtype is getattr(mt, dtype) and ours.device == tensor_device(device)
    ours = ours.cpu().numpy()
    # infinities and nan where PyTorch's (float32 Ai underflows a little sooner there)
    finite = np.isfinite(theirs) & (np.abs(theirs) > 1e-35)
    np.testing.assert_array_equal(ours[~finite & (np.abs(theirs) > 1)],
                                  theirs[~finite & (np.abs(theirs) > 1)])
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    # PyTorch's float64 series are good to about 2e-6 of the amplitude between 5 and 10
    # (7e-6 for Ai near -2.1), ours to float64's rounding (tests/backends)
    errors = np.abs(ours[finite] - theirs[finite]) / _envelope(name, x, theirs)[finite]
    assert errors.max() < 1e-5, x[finite][np.argmax(errors)]


@pytest.mark.parametrize("name", NAMES)
def test_float64_equals_pytorchs_where_both_are_exact(name, device):
    # far from the switches between series, both libraries are exact to float64's rounding
    # (of the phase x - pi/4, for the oscillating ones)
    x = np.concatenate([np.linspace(0.01, 2.0, 100), np.geomspace(20, 1e6, 200)])
    if name == "airy_ai":
        x = np.concatenate([np.linspace(-1.5, 1.5, 100), -np.geomspace(20, 1e3, 200)])
    ours = getattr(mt.special, name)(mt.tensor(x, device=device)).cpu().numpy()
    theirs = getattr(torch.special, name)(torch.tensor(x)).numpy()
    finite = np.isfinite(theirs)  # I0 and I1 overflow beyond 713
    np.testing.assert_array_equal(ours[~finite], theirs[~finite])
    errors = np.abs(ours[finite] - theirs[finite]) / _envelope(name, x, theirs)[finite]
    assert errors.max() < 1e-12, x[finite][np.argmax(errors)]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_special_values_as_pytorch(name, dtype, device):
    values = [0.0, -0.0, -1.0, -100.0, math.inf, -math.inf, math.nan, 1e-30, 1e30, -1e30]
    ours = getattr(mt.special, name)(mt.tensor(values, dtype=getattr(mt, dtype),
                                               device=device)).cpu().numpy()
    theirs = getattr(torch.special, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
    theirs = theirs.numpy()
    if name == "airy_ai" and dtype == "float64":  # Ai(-1e30): both phases are noise
        ours, theirs = ours[:-1], theirs[:-1]
    np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=0)  # nan and inf as PyTorch
    numbers = ~np.isnan(theirs) & (theirs != 0)
    np.testing.assert_array_equal(np.signbit(ours[numbers]), np.signbit(theirs[numbers]))


@pytest.mark.parametrize("name", NAMES)
def test_integer_and_bool_inputs_give_the_default_float_dtype(name, device):
    for values in ([1, 2, 3], [True, False]):
        ours = getattr(mt.special, name)(mt.tensor(values, device=device))
        theirs = getattr(torch.special, name)(torch.tensor(values))
        assert str(ours.dtype) == str(theirs.dtype) == "torch.float32"
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-6)
    previous = mt.get_default_dtype()
    mt.set_default_dtype(mt.float64)
    try:
        assert getattr(mt.special, name)(mt.tensor([1, 2], device=device)).dtype is mt.float64
    finally:
        mt.set_default_dtype(previous)


@pytest.mark.parametrize("name", NAMES)
def test_no_gradient_as_pytorch(name, device):
    x = mt.tensor([0.5, 1.5], device=device, requires_grad=True)
    y = getattr(mt.special, name)(x)
    reference = getattr(torch.special, name)(torch.tensor([0.5, 1.5], requires_grad=True))
    assert y.requires_grad is reference.requires_grad is False
    assert y.grad_fn is None and reference.grad_fn is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.sum().backward()


@pytest.mark.parametrize("name", ["bessel_j0", "modified_bessel_i0", "airy_ai"])
def test_float16_is_refused_as_pytorch(name):
    with pytest.raises(NotImplementedError) as reference:
        getattr(torch.special, name)(torch.ones(2, dtype=torch.float16))
    for device in ("cpu", "meta"):
        with pytest.raises(NotImplementedError) as info:
            getattr(mt.special, name)(mt.ones(2, dtype=mt.float16, device=device))
        assert str(info.value).startswith(str(reference.value).replace("_cpu", f"_{device}"))


def test_a_number_is_refused_as_pytorch():
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        torch.special.bessel_j0(2.0)
    with pytest.raises(TypeError) as info:
        mt.special.bessel_j0(2.0)
    assert str(info.value) == ("special_bessel_j0(): argument 'input' (position 1) must be "
                               "Tensor, not float")


def test_out_argument(device):
    out = mt.empty(3, dtype=mt.float64, device=device)
    result = mt.special.bessel_y1(mt.tensor([1.0, 2.0, 3.0], device=device), out=out)
    assert result is out
    expected = torch.special.bessel_y1(torch.tensor([1.0, 2.0, 3.0])).double()
    np.testing.assert_allclose(out.cpu().numpy(), expected.numpy(), rtol=1e-6)


def test_meta_keeps_shape_and_dtype():
    y = mt.special.scaled_modified_bessel_k1(mt.ones(2, 0, 3, dtype=mt.float64, device="meta"))
    assert y.is_meta and y.shape == (2, 0, 3) and y.dtype is mt.float64
    assert mt.special.airy_ai(mt.ones((), dtype=mt.int32, device="meta")).dtype is mt.float32
