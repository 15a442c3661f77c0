"""tril and triu: values, gradients, batches, diagonals beyond the matrix, dtypes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

CASES = [
    Case("tril", lambda T, F, a: a.tril(), [Arg((4, 4))]),
    Case("tril_wide", lambda T, F, a: T.tril(a, 1), [Arg((3, 5))]),
    Case("tril_tall_below", lambda T, F, a: a.tril(diagonal=-2), [Arg((5, 3))]),
    Case("tril_batched", lambda T, F, a: T.tril(a, -1) * 2, [Arg((2, 3, 4, 4))]),
    Case("tril_past_the_corner", lambda T, F, a: a.tril(9), [Arg((3, 4))]),
    Case("tril_before_the_corner", lambda T, F, a: a.tril(-9), [Arg((3, 4))]),
    Case("tril_empty", lambda T, F, a: a.tril(), [Arg((2, 0, 3))]),
    Case("tril_of_transposed", lambda T, F, a: a.transpose(-1, -2).tril(), [Arg((2, 3, 4))]),
    Case("tril_int", lambda T, F, a: a.tril(), [Arg((3, 4), "int:9")]),
    Case("tril_bool", lambda T, F, a: a.tril(1), [Arg((3, 4), "bool")]),
    Case("triu", lambda T, F, a: a.triu(), [Arg((4, 4))]),
    Case("triu_wide", lambda T, F, a: T.triu(a, 2), [Arg((3, 5))]),
    Case("triu_below", lambda T, F, a: a.triu(diagonal=-1), [Arg((5, 3))]),
    Case("triu_batched", lambda T, F, a: T.triu(a).sum(0), [Arg((3, 4, 2))]),
    Case("triu_int", lambda T, F, a: a.triu(-1), [Arg((4, 3), "int:9")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_masked_elements_are_zero_even_where_the_input_is_nan(device):
    x = mt.full((3, 3), float("nan"), device=device)
    lower = x.tril().cpu().numpy()
    assert np.isnan(lower[np.tril_indices(3)]).all()
    assert (lower[np.triu_indices(3, 1)] == 0).all()
    assert mt.ones(2, 3, device=device).triu(1).tolist() == [[0, 1, 1], [0, 0, 1]]


def test_meta_keeps_shape_and_dtype():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", dtype=mt.float64, requires_grad=True)
    out = x.triu(3)
    out.sum().backward()
    assert out.shape == x.shape and out.dtype is mt.float64 and out.is_meta
    assert out.grad_fn.name() == "TriuBackward0" and x.grad.shape == x.shape


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x[0, 0].tril(), RuntimeError,
     "tril: input tensor must have at least 2 dimensions, but got a 1-D tensor of shape (4,)"),
    (lambda x: mt.triu(x.sum()), RuntimeError,
     "triu: input tensor must have at least 2 dimensions, but got a 0-D tensor of shape ()"),
    (lambda x: x.tril(1.5), TypeError, "tril(): argument 'diagonal' must be int, not float"),
    (lambda x: mt.triu(x, None), TypeError,
     "triu(): argument 'diagonal' must be int, not NoneType"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
