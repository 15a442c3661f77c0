"""Elementwise ops: arithmetic (tensor/scalar, reflected, broadcasting), unary math, where."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import (
    Arg,
    Case,
    three_way_tests,
)

S = (3, 4)
CASES = [
    Case("add", lambda T, F, a, b: a + b, [Arg(S), Arg(S)]),
    Case("add_broadcast", lambda T, F, a, b: T.add(a, b), [Arg((2, 1, 4)), Arg((3, 1))]),
    Case("add_alpha", lambda T, F, a, b: T.add(a, b, alpha=2.5), [Arg(S), Arg((4,))]),
    Case("add_scalar", lambda T, F, a: a + 2.5, [Arg(S)]),
    Case("radd_scalar", lambda T, F, a: 3 + a, [Arg(S)]),
    Case("sub", lambda T, F, a, b: a - b, [Arg(S), Arg((1, 4))]),
    Case("sub_alpha", lambda T, F, a, b: a.sub(b, alpha=0.5), [Arg(S), Arg(S)]),
    Case("rsub_scalar", lambda T, F, a: 1.5 - a, [Arg(S)]),
    Case("mul", lambda T, F, a, b: a * b, [Arg((2, 3, 4)), Arg(S)]),
    Case("mul_scalar", lambda T, F, a: a * -1.5, [Arg(S)]),
    Case("rmul_scalar", lambda T, F, a: 2 * a, [Arg(S)]),
    Case("mul_same_tensor", lambda T, F, a: a * a, [Arg(S)]),
    Case("div", lambda T, F, a, b: a / b, [Arg(S), Arg((3, 1), "positive")]),
    Case("div_scalar", lambda T, F, a: a / 4, [Arg(S)]),
    Case("rdiv_scalar", lambda T, F, a: 2.0 / a, [Arg(S, "positive")]),
    Case("pow_tensor", lambda T, F, a, b: a ** b, [Arg(S, "positive"), Arg((4,))]),
    Case("pow_scalar", lambda T, F, a: a ** 3, [Arg(S)]),
    Case("pow_half", lambda T, F, a: T.pow(a, 0.5), [Arg(S, "positive")]),
    Case("rpow_scalar", lambda T, F, a: 2 ** a, [Arg(S)]),
    Case("neg", lambda T, F, a: -a, [Arg(S)]),
    Case("abs", lambda T, F, a: T.abs(a), [Arg(S, "away0")]),
    Case("exp", lambda T, F, a: a.exp(), [Arg(S)]),
    Case("log", lambda T, F, a: T.log(a), [Arg(S, "positive")]),
    Case("sqrt", lambda T, F, a: a.sqrt(), [Arg(S, "positive")]),
    Case("relu", lambda T, F, a: T.relu(a), [Arg(S, "away0")]),
    Case("relu_functional", lambda T, F, a: F.relu(a), [Arg((2, 3, 2, 2), "away0")]),
    Case("where", lambda T, F, c, a, b: T.where(c, a, b), [Arg(S, "bool"), Arg(S), Arg((4,))]),
    Case("chain", lambda T, F, a, b: ((a * b + a) / (b.abs() + 1)).exp().sum(),
         [Arg(S), Arg(S, "away0")]),
]


test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_comparisons_against_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    a = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], np.float32)
    b = np.array([2.0, 2.0, 2.0], np.float32)
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        ours = getattr(mt.tensor(a), name)(mt.tensor(b))
        theirs = getattr(torch.tensor(a), name)(torch.tensor(b))
        assert ours.dtype is mt.bool
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    x = mt.tensor(a)
    np.testing.assert_array_equal((x == 2).numpy(), a == 2)
    np.testing.assert_array_equal((x > 1.5).numpy(), a > 1.5)
    np.testing.assert_array_equal((2 < x).numpy(), 2 < a)
    assert (mt.tensor(a, requires_grad=True) > 0).grad_fn is None


@pytest.mark.parametrize("left, right, expected", [
    (mt.float32, mt.float64, mt.float64), (mt.int64, mt.float32, mt.float32),
    (mt.bool, mt.int64, mt.int64), (mt.int32, mt.int64, mt.int64),
])
def test_type_promotion_between_tensors(left, right, expected):
    assert (mt.ones(2, dtype=left) + mt.ones(2, dtype=right)).dtype is expected


@pytest.mark.parametrize("dtype, scalar, expected", [
    (mt.float32, 2.5, mt.float32), (mt.float32, 2, mt.float32), (mt.int64, 2, mt.int64),
    (mt.int64, 2.5, mt.float32), (mt.bool, 1, mt.int64), (mt.float64, 1.0, mt.float64),
])
def test_type_promotion_with_scalars(dtype, scalar, expected):
    t = mt.ones(2, dtype=dtype)
    results = [t + scalar, scalar + t, t * scalar, scalar * t]
    if dtype is not mt.bool:  # PyTorch refuses to subtract bools (test_bool_subtraction.py)
        results.append(t - scalar)
    for result in results:
        assert result.dtype is expected


def test_integer_division_gives_float32():
    out = mt.tensor([3, 4]) / mt.tensor([2, 2])
    assert out.dtype is mt.float32
    np.testing.assert_allclose(out.numpy(), [1.5, 2.0])
    assert (mt.tensor([1, 2]) / 2).dtype is mt.float32


def test_float32_stays_float32_with_numpy_scalars():
    x = mt.ones(3)
    assert (x * np.float64(2.0)).dtype is mt.float32
    assert (x + np.float32(1.0)).dtype is mt.float32


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "sigmoid"])
def test_unary_float_ops_compute_integers_in_float32_as_torch(name, any_device):
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    for values in ([1, 2, 4], [True, False, True]):
        ours = getattr(mt.tensor(values, device=any_device), name)()
        assert ours.dtype is mt.float32 and tuple(ours.shape) == (3,)
        if any_device != "meta":
            reference = getattr(torch.tensor(values), name)()
            np.testing.assert_allclose(ours.cpu().numpy(), reference.numpy(), rtol=1e-6)


def test_broadcast_error_message_same_on_cpu_and_meta():
    messages = []
    for device in ("cpu", "meta"):
        with pytest.raises(mt.ShapeError) as info:
            mt.ones(2, 3, device=device) + mt.ones(4, device=device)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert messages[0] == ("add: shapes (2, 3) and (4,) cannot be broadcast together: trailing "
                           "dimensions must be equal or 1")
    assert isinstance(info.value, ValueError)


def test_binary_with_unsupported_operand_is_type_error():
    with pytest.raises(TypeError):
        mt.ones(2) + "a"
    with pytest.raises(TypeError):
        mt.ones(2) * [1, 2]


def test_where_needs_a_bool_condition():
    # RuntimeError, as PyTorch's (and masked_fill's for a non-bool mask)
    with pytest.raises(RuntimeError, match="where: expected condition to be a bool tensor, got "
                                        "dtype torch.float32"):
        mt.where(mt.ones(2), mt.ones(2), mt.zeros(2))


def test_relu_gradient_at_nan_zero_and_signed_zero_equals_torch():
    """PyTorch's ReLU gradient is 0 where the output is <= 0 and passes elsewhere, NaN
    included (NaN <= 0 is false); the kinks are where finite differences cannot check it."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for this check")
    values = [float("nan"), -1.0, -0.0, 0.0, 2.0, float("inf"), float("-inf")]
    ours = mt.tensor(values, requires_grad=True)
    theirs = torch.tensor(values, requires_grad=True)
    mt.relu(ours).backward(mt.arange(1.0, 8.0))
    torch.relu(theirs).backward(torch.arange(1.0, 8.0))
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())
