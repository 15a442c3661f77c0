"""The NumPy backend's branchless ``where``: bit for bit ``np.where``'s result and dtype, on
every dtype it takes, with broadcasting, Python numbers, NaN, infinities and signed zeros."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.backends.numpy_select import MIN_ELEMENTS, branchless_where

DTYPES = [np.float16, np.float32, np.float64, np.int64, np.int32, np.uint8, np.int8]
SHAPES = [  # condition, a, b: each large enough for the bit path after broadcasting
    ((64, 128), (64, 128), (64, 128)),
    ((64, 128), (1, 128), (64, 1)),
    ((8, 1, 128), (8, 16, 128), (16, 1)),
    ((64, 128), (64, 128), ()),
    ((64, 128), (), (64, 128)),
]


def _values(rng, shape, dtype):
    if shape == ():
        return 7  # a Python number, typed by NumPy's rules against the array
    values = (rng.standard_normal(shape) * 50).astype(dtype)
    if np.dtype(dtype).kind == "f":
        values.flat[:5] = [np.nan, np.inf, -np.inf, -0.0, 0.0]
    return values


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_equals_np_where_bit_for_bit(dtype, shapes):
    rng = np.random.default_rng(0)
    condition = rng.random(shapes[0]) < 0.5
    a, b = _values(rng, shapes[1], dtype), _values(rng, shapes[2], dtype)
    expected, got = np.where(condition, a, b), branchless_where(condition, a, b)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("zero", [0, 0.0, -0.0])
def test_a_zero_branch_keeps_its_sign(zero):
    """+0 needs no pass over ``b``; -0.0 has a bit set and must come through as -0.0."""
    rng = np.random.default_rng(1)
    condition = rng.random(MIN_ELEMENTS * 2) < 0.5
    a = rng.standard_normal(condition.shape).astype(np.float32)
    got = branchless_where(condition, a, zero)
    assert got.tobytes() == np.where(condition, a, zero).tobytes()
    assert np.signbit(got[~condition]).all() == bool(np.signbit(zero))


def test_what_the_bit_path_cannot_take_goes_to_np_where():
    rng = np.random.default_rng(2)
    condition = rng.random(MIN_ELEMENTS * 2) < 0.5
    flags = rng.random(condition.shape) < 0.5
    for a, b in ((flags, ~flags), (flags.astype(np.float32), flags.astype(np.int64)),
                 (np.ones(3), np.zeros(3))):
        c = condition if np.shape(a) == condition.shape else condition[:3]
        expected = np.where(c, a, b)
        got = branchless_where(c, a, b)
        assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


def test_relu_backward_passes_no_nan_from_an_infinite_gradient():
    """An infinite gradient into a zero output gives 0 (PyTorch's select), not inf * 0."""
    x = mt.tensor(np.r_[-np.ones(MIN_ELEMENTS), np.ones(MIN_ELEMENTS)].astype(np.float32),
                  requires_grad=True)
    x.relu().backward(mt.full((2 * MIN_ELEMENTS,), float("inf")))
    grad = x.grad.numpy()
    assert (grad[:MIN_ELEMENTS] == 0).all() and np.isposinf(grad[MIN_ELEMENTS:]).all()
