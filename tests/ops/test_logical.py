"""logical_not/and/or/xor, bitwise_not/and/or/xor and the operators ~ & | ^: values,
dtypes, broadcasting, scalars, meta, and the refusal of floating-point tensors."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4)
B, I = "bool", "int:7"
CASES = [
    Case("logical_and", lambda T, F, a, b: T.logical_and(a, b), [Arg(S), Arg(S, I)]),
    Case("logical_or_broadcast", lambda T, F, a, b: a.logical_or(b), [Arg(S, B), Arg((4,), I)]),
    Case("logical_xor", lambda T, F, a, b: T.logical_xor(a, b), [Arg(S, I), Arg((3, 1), B)]),
    Case("logical_not", lambda T, F, a: T.logical_not(a), [Arg(S, I)]),
    Case("logical_not_float", lambda T, F, a: (a.relu()).logical_not(), [Arg(S)]),
    Case("and_bool", lambda T, F, a, b: a & b, [Arg(S, B), Arg(S, B)]),
    Case("or_int", lambda T, F, a, b: a | b, [Arg(S, I), Arg((4,), I)]),
    Case("xor_bool_int", lambda T, F, a, b: a ^ b, [Arg(S, B), Arg(S, I)]),
    Case("invert_bool", lambda T, F, a: ~a, [Arg(S, B)]),
    Case("invert_int", lambda T, F, a: ~a, [Arg(S, I)]),
    Case("bitwise_not", lambda T, F, a: T.bitwise_not(a), [Arg(S, I)]),
    Case("bitwise_and_scalar", lambda T, F, a: T.bitwise_and(a, 3), [Arg(S, I)]),
    Case("rand_scalar", lambda T, F, a: 5 & a, [Arg(S, I)]),
    Case("ror_bool_scalar", lambda T, F, a: True | a, [Arg(S, B)]),
    Case("xor_bool_int_scalar", lambda T, F, a: a ^ 1, [Arg(S, B)]),
    Case("bitwise_xor_method", lambda T, F, a, b: a.bitwise_xor(b), [Arg(S, I), Arg(S, I)]),
    Case("mask_from_comparisons", lambda T, F, a, b: ((a > 0) & ~(b < 0)) | (a > 1),
         [Arg(S), Arg(S)]),
    Case("mask_0d", lambda T, F, a, b: a & b, [Arg((), B), Arg(S, B)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("left", ["bool", "uint8", "int32", "int64"])
@pytest.mark.parametrize("right", ["bool", "uint8", "int32", "int64", 1, True])
@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor])
def test_dtypes_and_values_as_torch(op, left, right, device):
    torch = _torch()
    a = np.array([0, 1, 5, 200], dtype=left)
    ours = mt.tensor(a, device=device)
    theirs = torch.tensor(a)
    if isinstance(right, str):
        b = np.array([3, 0, 6, 100], dtype=right)
        out, ref = op(ours, mt.tensor(b, device=device)), op(theirs, torch.tensor(b))
    else:
        out, ref = op(ours, right), op(theirs, right)
    assert str(out.dtype) == str(ref.dtype)
    assert out.tolist() == ref.tolist()
    assert (~ours).tolist() == (~theirs).tolist()


def test_logical_ops_take_any_dtype_and_give_bool(device):
    torch = _torch()
    a, b = [0.0, -2.5, float("nan"), 3.0], [1, 0, 0, 7]
    for name in ("logical_and", "logical_or", "logical_xor"):
        out = getattr(mt, name)(mt.tensor(a, device=device), mt.tensor(b, device=device))
        ref = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
        assert out.dtype is mt.bool and out.tolist() == ref.tolist(), name
    assert mt.tensor(a).logical_not().tolist() == torch.tensor(a).logical_not().tolist()


def test_no_gradient_flows_through_logic():
    x = mt.tensor([1.0, 0.0], requires_grad=True)
    for out in (x.logical_not(), mt.logical_and(x, x), (x > 0) & (x < 2)):
        assert out.dtype is mt.bool and not out.requires_grad and out.grad_fn is None


def test_a_huge_meta_mask():
    a = mt.empty(2**30, 1, dtype=mt.bool, device="meta")
    b = mt.empty(2**30, dtype=mt.int64, device="meta")
    assert (a & b).shape == (2**30, 2**30) and (a & b).dtype is mt.int64
    assert mt.logical_xor(a, b).dtype is mt.bool and (~a).dtype is mt.bool


NOT_FOR_FLOAT = ("expected bool or integer tensors, got torch.float32; bitwise operations "
                 "have no meaning for floating-point values (compare first, e.g. (x > 0) & "
                 "(y > 0), or use logical_and/logical_or/logical_xor)")


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x & x, NotImplementedError, "bitwise_and: " + NOT_FOR_FLOAT),
    (lambda x: x.long() | 1.5, NotImplementedError, "bitwise_or: " + NOT_FOR_FLOAT),
    (lambda x: x.bool() ^ x, NotImplementedError, "bitwise_xor: " + NOT_FOR_FLOAT),
    (lambda x: mt.bitwise_not(x), NotImplementedError, "bitwise_not: " + NOT_FOR_FLOAT),
    (lambda x: ~x, TypeError, "~ (operator.invert) is only implemented on integer and "
     "Boolean-type tensors, got torch.float32; for a mask, compare first (~(x > 0))"),
    (lambda x: mt.logical_and(x, 1), TypeError,
     "logical_and(): argument 'other' (position 2) must be Tensor, not int"),
    (lambda x: mt.logical_or(True, x), TypeError,
     "logical_or(): argument 'input' (position 1) must be Tensor, not bool"),
    (lambda x: mt.bitwise_and(x.long(), "a"), TypeError,
     "bitwise_and(): argument 'other' (position 2) must be Tensor or Number, not str"),
    (lambda x: mt.logical_xor(x, x[:2, :2]), mt.ShapeError,
     "logical_xor: shapes (2, 3, 4) and (2, 2, 4) cannot be broadcast together: trailing "
     "dimensions must be equal or 1"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


def test_operators_with_an_unsupported_type_raise_pythons_type_error():
    with pytest.raises(TypeError, match="unsupported operand"):
        mt.tensor([True]) & "a"
