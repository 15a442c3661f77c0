"""floor_divide (//), remainder (%), fmod and div(rounding_mode=...): values with Python's
and C's sign conventions, dtypes, reflected forms, gradients (and their absence), errors."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4)
D, A = "normal", "away0"  # a dividend on a multiple of the divisor is a jump
NO = {"grad": False}  # floor_divide has no derivative in PyTorch (backward raises)
CASES = [
    Case("floordiv", lambda T, F, a, b: a // b, [Arg(S, **NO), Arg((4,), A, **NO)]),
    Case("floordiv_scalar", lambda T, F, a: a // 0.3, [Arg(S, **NO)]),
    Case("rfloordiv", lambda T, F, a: 2 // a, [Arg(S, A, **NO)]),
    Case("floor_divide_int", lambda T, F, a, b: T.floor_divide(a - 3, b + 1),
         [Arg(S, "int:7"), Arg(S, "int:3")]),
    Case("floordiv_int_by_negative", lambda T, F, a: (a - 3) // -2, [Arg(S, "int:7")]),
    Case("rfloordiv_int", lambda T, F, a: 7 // (a + 1), [Arg(S, "int:5")]),
    Case("floordiv_int_float_scalar", lambda T, F, a: a // 2.5, [Arg(S, "int:9")]),
    Case("mod", lambda T, F, a, b: a % b, [Arg(S, D), Arg((4,), A)]),
    Case("mod_scalar", lambda T, F, a: a % 0.7, [Arg(S, D)]),
    Case("mod_negative_scalar", lambda T, F, a: T.remainder(a, -0.7), [Arg(S, D)]),
    Case("rmod", lambda T, F, a: 2.5 % a, [Arg(S, A, **NO)]),
    Case("remainder_method", lambda T, F, a, b: a.remainder(b), [Arg((2, 3, 4), D), Arg(S, A)]),
    Case("remainder_scalar_first", lambda T, F, a: T.remainder(3, a + 1), [Arg(S, "int:5")]),
    Case("mod_int", lambda T, F, a, b: (a - 3) % (b - 5), [Arg(S, "int:7"), Arg(S, "int:3")]),
    Case("fmod", lambda T, F, a, b: T.fmod(a, b), [Arg(S, D), Arg((3, 1), A)]),
    Case("fmod_scalar", lambda T, F, a: a.fmod(-0.7), [Arg(S, D)]),
    Case("fmod_int", lambda T, F, a, b: T.fmod(a - 3, b - 5), [Arg(S, "int:7"), Arg(S, "int:3")]),
    Case("div_floor", lambda T, F, a, b: T.div(a, b, rounding_mode="floor"), [Arg(S), Arg(S, A)]),
    Case("div_trunc", lambda T, F, a, b: a.div(b, rounding_mode="trunc") * a,
         [Arg(S), Arg((4,), A)]),
    Case("div_trunc_scalar", lambda T, F, a: T.div(a, 0.3, rounding_mode="trunc"), [Arg(S)]),
    Case("div_floor_scalar_first", lambda T, F, a: T.div(2, a, rounding_mode="floor"),
         [Arg(S, A)]),
    Case("div_trunc_int", lambda T, F, a, b: T.div(a - 3, b - 5, rounding_mode="trunc"),
         [Arg(S, "int:7"), Arg(S, "int:3")]),
    Case("div_floor_int", lambda T, F, a, b: T.div(a - 3, b - 5, rounding_mode="floor"),
         [Arg(S, "int:7"), Arg(S, "int:3")]),
    Case("div_none", lambda T, F, a, b: T.div(a - 3, b - 5, rounding_mode=None),
         [Arg(S, "int:7"), Arg(S, "int:3")]),
    Case("mod_0d", lambda T, F, a, b: a % b, [Arg((), D), Arg(S, A)]),
    Case("mod_empty", lambda T, F, a, b: a % b, [Arg((0, 4), D), Arg((4,), A)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


EDGES = [7.0, -7.0, 7.5, -7.5, 0.0, -0.0, 6.0, -6.0, float("inf"), float("nan"), 1e-30, 3.0]
DIVISORS = [2.0, 2.0, -2.0, -2.0, 3.0, -3.0, 3.0, 0.0, 2.0, 1.0, -1.0, float("inf")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod", "trunc", "floor"])
def test_edge_values_as_torch(name, dtype, device):
    torch = _torch()
    a, b = np.array(EDGES, dtype), np.array(DIVISORS, dtype)
    if name in ("trunc", "floor"):
        out = mt.div(mt.tensor(a, device=device), mt.tensor(b, device=device), rounding_mode=name)
        ref = torch.div(torch.tensor(a), torch.tensor(b), rounding_mode=name)
    else:
        out = getattr(mt, name)(mt.tensor(a, device=device), mt.tensor(b, device=device))
        ref = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
    assert str(out.dtype) == str(ref.dtype)
    np.testing.assert_array_equal(out.cpu().numpy(), ref.numpy())  # NaN == NaN here


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
@pytest.mark.parametrize("op", [operator.floordiv, operator.mod, mt.fmod, "trunc", "floor"])
def test_integer_values_and_dtypes_as_torch(op, dtype, device):
    torch = _torch()
    a = np.array([7, 5, 0, 9, 100, 3], dtype)
    b = np.array([2, 3, 4, 9, 7, 5], dtype)
    if dtype != "uint8":
        a, b = a * np.array([1, -1, 1, -1, 1, -1], dtype), b * np.array([1, 1, -1, -1, 1, 1],
                                                                        dtype)
    ours, theirs = mt.tensor(a, device=device), torch.tensor(a)
    if isinstance(op, str):
        out = mt.div(ours, mt.tensor(b, device=device), rounding_mode=op)
        ref = torch.div(theirs, torch.tensor(b), rounding_mode=op)
    elif op is mt.fmod:
        out, ref = mt.fmod(ours, mt.tensor(b, device=device)), torch.fmod(theirs, torch.tensor(b))
    else:
        out, ref = op(ours, mt.tensor(b, device=device)), op(theirs, torch.tensor(b))
    assert str(out.dtype) == str(ref.dtype) and out.tolist() == ref.tolist()


def test_python_sign_conventions():
    x = mt.tensor([-7, 7, -7, 7])
    y = mt.tensor([2, -2, -2, 2])
    assert (x // y).tolist() == [-7 // 2, 7 // -2, -7 // -2, 7 // 2]
    assert (x % y).tolist() == [-7 % 2, 7 % -2, -7 % -2, 7 % 2]
    assert mt.fmod(x, y).tolist() == [-1, 1, -1, 1]
    assert mt.div(x, y, rounding_mode="trunc").tolist() == [-3, -3, 3, 3]
    assert (10 // x).tolist() == [10 // -7, 10 // 7, 10 // -7, 10 // 7]
    assert (10 % x).tolist() == [10 % -7, 10 % 7, 10 % -7, 10 % 7]


@pytest.mark.parametrize("make", [lambda x: x // 2, lambda x: x // x, lambda x: 3 // x,
                                  lambda x: 3 % x, lambda x: mt.floor_divide(x, x.detach())])
@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_no_derivative_nodes_raise_in_backward_as_torch(make, device):
    x = mt.ones(3, device=device, requires_grad=True)
    out = make(x)
    assert out.requires_grad and out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match=r"derivative for aten::(floor_divide|remainder) is "
                                           r"not implemented"):
        out.sum().backward()


def test_node_names_as_torch():
    torch = _torch()
    for make in (lambda T, x: x % x, lambda T, x: x % 2, lambda T, x: T.fmod(x, x),
                 lambda T, x: T.fmod(x, 2), lambda T, x: T.div(x, x, rounding_mode="trunc"),
                 lambda T, x: T.div(x, 2, rounding_mode="floor")):
        ours = make(mt, mt.ones(2, requires_grad=True))
        theirs = make(torch, torch.ones(2, requires_grad=True))
        assert ours.grad_fn.name() == theirs.grad_fn.name()


def test_integer_division_by_a_zero_element_raises_as_torch():
    torch = _torch()
    x, y = mt.tensor([4, 5]), mt.tensor([2, 0])
    for call in (lambda a, b: a // b, lambda a, b: a % b, lambda a, b: a.fmod(b),
                 lambda a, b: a.div(b, rounding_mode="trunc"), lambda a, b: 3 // b,
                 lambda a, b: a // b[1]):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            call(torch.tensor([4, 5]), torch.tensor([2, 0]))
        with pytest.raises(RuntimeError, match=r"ZeroDivisionError: \w+: integer division by "
                                               r"zero \(the divisor has 1 zero element\(s\)\)"):
            call(x, y)
    # floating-point division by zero gives inf and nan, without a word
    assert (mt.tensor([1.0, 0.0]) // 0).tolist()[0] == float("inf")


DIV_MODE = ("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            "'round'")
ZERO = ("ZeroDivisionError: {}: integer division by zero (the divisor is 0); divide "
        "floating-point tensors to get inf/nan instead")


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.bool() // x.bool(), NotImplementedError,
     "floor_divide: not implemented for bool tensors; convert first, e.g. with .int()"),
    (lambda x: x.bool() % True, NotImplementedError,
     "remainder: not implemented for bool tensors; convert first, e.g. with .int()"),
    (lambda x: mt.fmod(x.bool(), x.bool()), NotImplementedError,
     "fmod: not implemented for bool tensors; convert first, e.g. with .int()"),
    (lambda x: mt.div(x, 2, rounding_mode="round"), RuntimeError, DIV_MODE),
    (lambda x: x.long() // 0, RuntimeError, ZERO.format("floor_divide")),
    (lambda x: x.long() % 0, RuntimeError, ZERO.format("remainder")),
    (lambda x: x.long().div(0, rounding_mode="floor"), RuntimeError, ZERO.format("div")),
    (lambda x: mt.fmod(2, x), TypeError,
     "fmod(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda x: mt.remainder(x, "a"), TypeError,
     "remainder(): argument 'other' (position 2) must be Tensor or Number, not str"),
    (lambda x: x % x[0, :2], mt.ShapeError,
     "remainder: shapes (2, 3, 4) and (2, 4) cannot be broadcast together: trailing "
     "dimensions must be equal or 1"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


def test_a_huge_meta_tensor_is_divided_without_data():
    x = mt.empty(2**30, 2**20, device="meta", requires_grad=True)
    y = mt.empty(2**20, device="meta", requires_grad=True)
    out = (x % y) + x.fmod(y) + mt.div(x, y, rounding_mode="floor")
    out.sum().backward()
    assert x.grad.shape == x.shape and y.grad.shape == y.shape and y.grad.is_meta
    assert (mt.empty(5, dtype=mt.int32, device="meta") // 2).dtype is mt.int32


EMPTY_BY_ZERO = {
    "remainder_number": lambda T, x: T.remainder(x, 0),
    "fmod_number": lambda T, x: T.fmod(x, 0),
    "floor_divide_number": lambda T, x: T.floor_divide(x, 0),
    "mod_operator": lambda T, x: x % 0,
    "div_trunc": lambda T, x: T.div(x, 0, rounding_mode="trunc"),
    "remainder_0d_tensor": lambda T, x: T.remainder(x, T.tensor(0, device=x.device)),
    "fmod_broadcast_zeros": lambda T, x: T.fmod(x, T.zeros(1, 3, dtype=T.int64,
                                                           device=x.device)),
    "floor_divide_empty_divisor": lambda T, x: T.floor_divide(T.tensor([3], device=x.device), x),
}


@pytest.mark.parametrize("label", list(EMPTY_BY_ZERO))
def test_an_empty_integer_result_is_no_division_by_zero(label, any_device):
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    theirs = EMPTY_BY_ZERO[label](torch, torch.empty(0, 1, dtype=torch.int64))
    ours = EMPTY_BY_ZERO[label](mt, mt.empty(0, 1, dtype=mt.int64, device=any_device))
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    assert ours.device.type == any_device


@pytest.mark.parametrize("op", ["remainder", "fmod", "floor_divide"])
def test_integer_division_by_zero_raises_like_torch(op, device):
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    for divisor in (0, "tensor"):
        def call(T, dev=None, divisor=divisor):
            x = T.tensor([[5, 7]], device=dev) if dev else T.tensor([[5, 7]])
            other = T.tensor([1, 0], device=x.device) if divisor == "tensor" else divisor
            return getattr(T, op)(x, other)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            call(torch)
        with pytest.raises(RuntimeError, match=f"ZeroDivisionError: {op}: integer division by "
                                               "zero"):
            call(mt, device)
