"""``maximum``/``minimum`` against a scalar on the CPU: the blocked path (see
``numpy_minmax``) must give NumPy's own result bit for bit, in the input's layout."""

import numpy as np
import pytest

from minitorch_meta.backends import numpy_minmax
from minitorch_meta.backends.numpy_minmax import BLOCK, scalar_operand_minmax

SPECIALS = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, 1.5, -1.5], np.float32)


def _values(shape, dtype=np.float32, seed=0):
    """Random values with signed zeros, NaN and infinities sprinkled in."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    flat[rng.integers(0, flat.size, 200)] = rng.choice(SPECIALS, 200)
    return a


def _assert_same(ours, expected):
    assert ours.dtype == expected.dtype and ours.shape == expected.shape
    assert ours.strides == expected.strides  # the layout NumPy would have given
    np.testing.assert_array_equal(ours.view(np.uint32), expected.view(np.uint32))


@pytest.fixture
def blocked_calls(monkeypatch):
    """Records each call that ran as rows of BLOCK values, so a case checks its path."""
    calls = []
    original = numpy_minmax._apply

    def recording(ufunc, values, scalars, out, scalar_first):
        if values.ndim == 2 and values.shape[1] == BLOCK:
            calls.append(values.shape)
        return original(ufunc, values, scalars, out, scalar_first)

    monkeypatch.setattr(numpy_minmax, "_apply", recording)
    return calls


@pytest.mark.parametrize("ufunc", [np.maximum, np.minimum])
@pytest.mark.parametrize("scalar", [np.float32(0), np.float32(-0.0), np.float32(np.nan), 0.25])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "transposed"])
def test_blocked_path_equals_numpy(blocked_calls, ufunc, scalar, layout):
    # 2 * 3 * 53 * 59 elements: not a multiple of BLOCK, so the last partial row runs too.
    a = _values((2, 53, 59, 3))
    a = {"contiguous": a, "channels_last": a.transpose(0, 3, 1, 2),
         "transposed": a.T}[layout]
    assert a.size > BLOCK and a.size % BLOCK
    op = scalar_operand_minmax(ufunc)
    _assert_same(op(a, scalar), ufunc(a, scalar))
    _assert_same(op(scalar, a), ufunc(scalar, a))
    assert len(blocked_calls) == 2


@pytest.mark.parametrize("case", ["small", "sliced", "promotes", "two_arrays"])
def test_other_operands_take_numpy_as_is(blocked_calls, case):
    big = _values((2 * BLOCK + 7,))
    a, b = {"small": (big[:100], np.float32(0)),
            "sliced": (big[::2], np.float32(0)),        # not dense: no run through memory
            "promotes": (big, np.float64(0)),           # NumPy's result is float64
            "two_arrays": (big, _values((2 * BLOCK + 7,), seed=1))}[case]
    expected = np.maximum(a, b)
    ours = scalar_operand_minmax(np.maximum)(a, b)
    assert ours.dtype == expected.dtype
    np.testing.assert_array_equal(ours, expected)
    assert not blocked_calls


def test_integer_arrays():
    a = np.arange(-BLOCK, BLOCK, dtype=np.int32).reshape(2, -1)
    np.testing.assert_array_equal(scalar_operand_minmax(np.minimum)(a, 3), np.minimum(a, 3))


def test_cpu_relu_and_clamp_use_it(blocked_calls):
    import minitorch_meta as mt

    x_np = _values((4, 8, 32, 32))
    x = mt.tensor(x_np)
    np.testing.assert_array_equal(mt.relu(x).numpy(), np.maximum(x_np, np.float32(0)))
    np.testing.assert_array_equal(x.clamp(-0.5, 0.5).numpy(),
                                  np.minimum(np.maximum(x_np, -0.5), 0.5).astype(np.float32))
    assert len(blocked_calls) == 3
