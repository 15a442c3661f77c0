"""sin, cos, log1p, expm1, log2, log10, rsqrt, reciprocal, square; floor, ceil, round,
trunc, sign; isnan, isinf, isfinite: values, gradients, dtypes, meta, edge cases."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4)
P = "positive"
CASES = [
    Case("sin", lambda T, F, a: T.sin(a), [Arg(S)]),
    Case("sin_method_0d", lambda T, F, a: a.sin(), [Arg(())]),
    Case("cos", lambda T, F, a: a.cos(), [Arg(S)]),
    Case("cos_empty", lambda T, F, a: T.cos(a), [Arg((0, 3))]),
    Case("log1p", lambda T, F, a: T.log1p(a), [Arg(S, P)]),
    Case("expm1", lambda T, F, a: a.expm1(), [Arg(S)]),
    Case("log2", lambda T, F, a: T.log2(a), [Arg(S, P)]),
    Case("log10", lambda T, F, a: a.log10(), [Arg(S, P)]),
    Case("rsqrt", lambda T, F, a: T.rsqrt(a), [Arg(S, P)]),
    Case("reciprocal", lambda T, F, a: a.reciprocal(), [Arg(S, "away0")]),
    Case("square", lambda T, F, a: T.square(a), [Arg(S)]),
    Case("square_method", lambda T, F, a: a.square(), [Arg((2, 3, 2))]),
    Case("floor", lambda T, F, a: T.floor(a * 3), [Arg(S)]),
    Case("ceil", lambda T, F, a: a.ceil() * a, [Arg(S)]),
    Case("trunc", lambda T, F, a: T.trunc(a * 3) + a, [Arg(S)]),
    Case("round", lambda T, F, a: T.round(a * 3), [Arg(S)]),
    Case("round_decimals", lambda T, F, a: a.round(decimals=2) + a, [Arg(S)]),
    Case("round_negative_decimals", lambda T, F, a: T.round(a * 1000, decimals=-2), [Arg(S)]),
    Case("round_decimals_0", lambda T, F, a: T.round(a * 3, decimals=0), [Arg(S)]),
    Case("sign", lambda T, F, a: T.sign(a) * a, [Arg(S)]),
    Case("sign_method", lambda T, F, a: a.sign(), [Arg(S, "away0")]),
    # integer inputs: float32 results (or the integer dtype for rounding and sign)
    Case("sin_int", lambda T, F, a: a.sin(), [Arg(S, "int:5")]),
    Case("log1p_bool", lambda T, F, a: T.log1p(a), [Arg(S, "bool")]),
    Case("reciprocal_int", lambda T, F, a: T.reciprocal(a + 1), [Arg(S, "int:5")]),
    Case("rsqrt_int", lambda T, F, a: (a + 1).rsqrt(), [Arg(S, "int:5")]),
    Case("log2_int", lambda T, F, a: T.log2(a + 1), [Arg(S, "int:5")]),
    Case("square_int", lambda T, F, a: T.square(a), [Arg(S, "int:5")]),
    Case("square_bool", lambda T, F, a: T.square(a), [Arg(S, "bool")]),
    Case("floor_int", lambda T, F, a: T.floor(a), [Arg(S, "int:5")]),
    Case("round_int", lambda T, F, a: a.round(), [Arg(S, "int:5")]),
    Case("sign_int", lambda T, F, a: T.sign(a - 2), [Arg(S, "int:5")]),
    Case("sign_bool", lambda T, F, a: a.sign(), [Arg(S, "bool")]),
    Case("isnan", lambda T, F, a: T.isnan(a.log()), [Arg(S)]),
    Case("isinf", lambda T, F, a: (a * 1e38 * 1e38).isinf(), [Arg(S)]),
    Case("isfinite", lambda T, F, a: T.isfinite(a.log()), [Arg(S)]),
    Case("isnan_int", lambda T, F, a: a.isnan(), [Arg(S, "int:5")]),
    Case("isfinite_bool", lambda T, F, a: T.isfinite(a), [Arg(S, "bool")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


SPECIAL = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, -0.0, 1.25, 0.125, -7.45, 1234.5,
           float("nan"), float("inf"), float("-inf"), 1e-8, -3.7, 2.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, kwargs", [
    ("floor", {}), ("ceil", {}), ("trunc", {}), ("round", {}), ("round", {"decimals": 1}),
    ("round", {"decimals": 2}), ("round", {"decimals": -1}), ("sign", {}), ("isnan", {}),
    ("isinf", {}), ("isfinite", {}), ("sin", {}), ("cos", {}), ("log1p", {}), ("expm1", {}),
    ("log2", {}), ("log10", {}), ("rsqrt", {}), ("reciprocal", {}), ("square", {}),
])
def test_special_values_as_torch(name, kwargs, dtype, device):
    torch = _torch()
    data = np.array(SPECIAL, dtype=dtype)
    ours = getattr(mt, name)(mt.tensor(data, device=device), **kwargs)
    theirs = getattr(torch, name)(torch.tensor(data), **kwargs)
    assert str(ours.dtype) == str(theirs.dtype)
    # halves to even, signed zeros, NaN's sign 0: the same bits (up to 1 ulp for the math)
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=2e-7, atol=0)
    if name in ("floor", "ceil", "trunc", "round", "sign"):
        np.testing.assert_array_equal(np.signbit(ours.cpu().numpy()),
                                      np.signbit(theirs.numpy()))


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "sign"])
def test_piecewise_constant_ops_give_zero_gradients_even_at_jumps(name, device):
    torch = _torch()
    data = np.array([1.0, 0.5, 0.0, -2.5, float("nan")], np.float32)
    upstream = np.array([float("inf"), float("nan"), 1.0, 2.0, 3.0], np.float32)
    x, tx = mt.tensor(data, device=device, requires_grad=True), torch.tensor(data,
                                                                             requires_grad=True)
    out, ref = getattr(mt, name)(x), getattr(torch, name)(tx)
    assert out.grad_fn.name() == ref.grad_fn.name()
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch.tensor(upstream))
    np.testing.assert_array_equal(x.grad.cpu().numpy(), tx.grad.numpy())
    assert x.grad.tolist() == [0.0] * 5


@pytest.mark.parametrize("dtype", [mt.int64, mt.int32, mt.uint8, mt.bool])
def test_integer_and_bool_dtypes_as_torch(dtype, device):
    torch = _torch()
    data = [0, 1, 3, 2]
    x = mt.tensor(data, device=device).to(dtype)
    tx = torch.tensor(data).to(getattr(torch, str(dtype).split(".")[1]))
    for name in ("sin", "cos", "log1p", "expm1", "log2", "log10", "rsqrt", "reciprocal",
                 "square", "sign", "isnan", "isinf", "isfinite"):
        ours, theirs = getattr(mt, name)(x), getattr(torch, name)(tx)
        assert str(ours.dtype) == str(theirs.dtype), name
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-6, err_msg=name)
    if dtype is not mt.bool:
        for name in ("floor", "ceil", "round", "trunc"):
            ours, theirs = getattr(mt, name)(x), getattr(torch, name)(tx)
            assert ours.dtype is dtype and ours.tolist() == theirs.tolist(), name


def test_predicates_have_no_gradient_and_no_node():
    x = mt.tensor([1.0, float("nan"), float("inf")], requires_grad=True)
    for name in ("isnan", "isinf", "isfinite"):
        out = getattr(x, name)()
        assert out.dtype is mt.bool and not out.requires_grad and out.grad_fn is None
    assert x.isnan().tolist() == [False, True, False]
    assert x.isinf().tolist() == [False, False, True]
    assert x.isfinite().tolist() == [True, False, False]


def test_a_huge_meta_tensor_goes_through_every_op():
    x = mt.empty(2**20, 2**20, device="meta", requires_grad=True)
    out = (x.sin() + x.cos().log1p() + x.expm1().rsqrt() + x.floor() + x.round(decimals=3)
           + x.sign() + x.reciprocal().square() + x.log2() + x.log10() + x.trunc() + x.ceil())
    out.sum().backward()
    assert x.grad.shape == x.shape and x.grad.is_meta
    assert x.isnan().dtype is mt.bool and x.isnan().shape == x.shape


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.bool().floor(), NotImplementedError,
     "floor: not implemented for bool tensors; convert first, e.g. with .int() or .float()"),
    (lambda x: mt.round(x.bool()), NotImplementedError,
     "round: not implemented for bool tensors; convert first, e.g. with .int() or .float()"),
    (lambda x: x.long().round(decimals=1), NotImplementedError,
     "round: decimals=1 is not implemented for torch.int64 tensors (PyTorch has no such "
     "kernel either); round a floating-point tensor, or drop decimals"),
    (lambda x: x.round(decimals=1.5), TypeError,
     "round(): argument 'decimals' must be int, not float"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
