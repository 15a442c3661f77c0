"""diag and trace: values, gradients, diagonals off the matrix, dtypes, errors."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

CASES = [
    Case("diag_of_vector", lambda T, F, a: a.diag(), [Arg((4,))]),
    Case("diag_of_vector_above", lambda T, F, a: T.diag(a, 2), [Arg((3,))]),
    Case("diag_of_vector_below", lambda T, F, a: a.diag(diagonal=-1) * 2, [Arg((3,))]),
    Case("diag_of_empty_vector", lambda T, F, a: a.diag(1), [Arg((0,))]),
    Case("diag_of_matrix", lambda T, F, a: a.diag(), [Arg((3, 5))]),
    Case("diag_of_matrix_above", lambda T, F, a: T.diag(a, 2), [Arg((4, 3))]),
    Case("diag_of_matrix_below", lambda T, F, a: a.diag(-2), [Arg((4, 3))]),
    Case("diag_of_matrix_outside", lambda T, F, a: a.diag(5), [Arg((4, 3))]),
    Case("diag_of_transposed", lambda T, F, a: a.t().diag(1), [Arg((3, 5))]),
    Case("diag_there_and_back", lambda T, F, a: a.diag().diag(), [Arg((3,))]),
    Case("diag_int", lambda T, F, a: a.diag(-1), [Arg((3, 4), "int:9")]),
    Case("diag_bool", lambda T, F, a: a.diag(), [Arg((3,), "bool")]),
    Case("trace", lambda T, F, a: a.trace(), [Arg((4, 4))]),
    Case("trace_wide", lambda T, F, a: T.trace(a) * 3, [Arg((2, 5))]),
    Case("trace_tall", lambda T, F, a: a.trace(), [Arg((5, 2))]),
    Case("trace_empty", lambda T, F, a: a.trace(), [Arg((0, 3))]),
    Case("trace_int", lambda T, F, a: a.trace(), [Arg((3, 4), "int:9")]),
    Case("trace_uint8", lambda T, F, a: a.to(T.uint8).trace(), [Arg((3, 3), "int:200")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_values_as_documented(device):
    x = mt.arange(12, device=device).view(3, 4)
    assert x.diag().tolist() == [0, 5, 10] and x.diag(1).tolist() == [1, 6, 11]
    assert x.diag(-2).tolist() == [8] and x.diag(4).tolist() == []
    assert mt.diag(mt.tensor([1, 2], device=device), -1).tolist() == [[0, 0, 0], [1, 0, 0],
                                                                     [0, 2, 0]]
    assert x.trace().item() == 15 and x.trace().dtype is mt.int64
    assert x.int().trace().dtype is mt.int64 and x.double().trace().dtype is mt.float64


def test_gradients_land_on_the_diagonal(device):
    x = mt.ones(3, 4, device=device, requires_grad=True)
    (x.trace() * 2).backward()
    assert x.grad.tolist() == [[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0]]
    x.grad = None
    x.diag(1).backward(mt.tensor([1.0, 2.0, 3.0], device=device))
    assert x.grad.tolist() == [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 3]]


def test_meta_shapes_and_names():
    vector = mt.empty(2**20, device="meta", requires_grad=True)
    matrix = mt.empty(2**40, 2**20, device="meta", requires_grad=True)
    square = vector.diag(-3)
    assert square.shape == (2**20 + 3, 2**20 + 3) and square.grad_fn.name() == "DiagEmbedBackward0"
    line = matrix.diag(5)
    assert line.shape == (2**20 - 5,) and line.grad_fn.name() == "DiagonalBackward0_copy"
    total = matrix.trace()
    assert total.shape == () and total.grad_fn.name() == "TraceBackward0"
    (square.sum() + line.sum() + total).backward()
    assert vector.grad.shape == vector.shape and matrix.grad.shape == matrix.shape


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.diag(), RuntimeError,
     "diag(): Supports 1D or 2D tensors. Got 3D (shape (2, 3, 4)); index or flatten it to a "
     "vector or a matrix first"),
    (lambda x: mt.diag(x.sum()), RuntimeError,
     "diag(): Supports 1D or 2D tensors. Got 0D (shape ()); index or flatten it to a vector or "
     "a matrix first"),
    (lambda x: x[0].diag(1.0), TypeError, "diag(): argument 'diagonal' must be int, not float"),
    (lambda x: x.trace(), RuntimeError,
     "trace: expected a matrix, but got tensor with dim 3 (shape (2, 3, 4))"),
    (lambda x: mt.trace(x[0, 0]), RuntimeError,
     "trace: expected a matrix, but got tensor with dim 1 (shape (4,))"),
    (lambda x: (x[0] > 0).trace(), NotImplementedError,
     "\"trace\" not implemented for 'Bool'; convert the input first, e.g. with .int()"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
