"""cumsum: values and gradients, the dtype rule (int and bool -> int64, ``dtype=``), errors."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4, 5)
CASES = [
    Case("cumsum", lambda T, F, a: a.cumsum(1), [Arg(S)]),
    Case("cumsum_function_dim0", lambda T, F, a: T.cumsum(a, 0), [Arg(S)]),
    Case("cumsum_negative_dim", lambda T, F, a: T.cumsum(a, dim=-1), [Arg(S)]),
    Case("cumsum_1d", lambda T, F, a: a.cumsum(0), [Arg((7,))]),
    Case("cumsum_0d", lambda T, F, a: a.cumsum(0), [Arg(())]),
    Case("cumsum_0d_dim_minus_1", lambda T, F, a: T.cumsum(a, -1), [Arg(())]),
    Case("cumsum_empty_dim", lambda T, F, a: a.cumsum(0), [Arg((0, 3))]),
    Case("cumsum_along_other_dim_of_empty", lambda T, F, a: a.cumsum(1), [Arg((0, 3))]),
    Case("cumsum_dtype_float64", lambda T, F, a: a.cumsum(2, dtype=T.float64), [Arg(S)]),
    Case("cumsum_twice", lambda T, F, a: a.cumsum(0).cumsum(2) * a, [Arg(S)]),
    Case("cumsum_int", lambda T, F, a: a.cumsum(1), [Arg(S, "int:5")]),
    Case("cumsum_int32", lambda T, F, a: a.int().cumsum(-1), [Arg(S, "int:5")]),
    Case("cumsum_bool", lambda T, F, a: T.cumsum(a, 0), [Arg(S, "bool")]),
    Case("cumsum_int_dtype_float32", lambda T, F, a: a.cumsum(1, dtype=T.float32),
         [Arg(S, "int:5")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("out", [None, "float64", "int32", "uint8"])
def test_dtypes_as_torch(dtype, out, device):
    torch = _torch()
    data = (np.arange(24).reshape(2, 3, 4) % 7 * 1.5 - 3).astype(dtype)
    kwargs = {} if out is None else {"dtype": getattr(mt, out)}
    ours = mt.tensor(data, device=device).cumsum(1, **kwargs)
    kwargs = {} if out is None else {"dtype": getattr(torch, out)}
    theirs = torch.tensor(data).cumsum(1, **kwargs)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


def test_integer_sums_do_not_wrap_around_in_a_narrow_type(device):
    x = mt.full((300,), 200, dtype=mt.uint8, device=device)
    assert x.cumsum(0)[-1].item() == 60000


def test_gradient_of_a_dtype_result_comes_back_in_the_input_dtype(device):
    x = mt.ones(2, 3, device=device, requires_grad=True)
    y = x.cumsum(1, dtype=mt.float64)
    assert y.dtype is mt.float64 and y.grad_fn.name() == "CumsumBackward0"
    y.backward(mt.ones(2, 3, dtype=mt.float64, device=device))
    assert x.grad.dtype is mt.float32 and x.grad.tolist() == [[3, 2, 1], [3, 2, 1]]


def test_no_graph_under_no_grad():
    x = mt.ones(3, requires_grad=True)
    with mt.no_grad():
        y = x.cumsum(0, dtype=mt.int64)  # an integer result is fine without a graph
    assert y.grad_fn is None and y.tolist() == [1, 2, 3]


def test_a_huge_meta_tensor_is_summed_without_data():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    x.cumsum(0)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        y = x.cumsum(1, dtype=mt.float64)
        y.sum().backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert y.shape == x.shape and y.dtype is mt.float64 and y.is_meta
    assert x.grad.shape == x.shape and x.grad.dtype is mt.float32
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.cumsum(3), IndexError,
     "cumsum: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: mt.cumsum(x, -4), IndexError,
     "cumsum: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: x.sum().cumsum(1), IndexError,
     "cumsum: Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda x: x.cumsum(1.0), TypeError, "cumsum(): argument 'dim' must be int, not float"),
    (lambda x: x.cumsum(None), TypeError,
     "cumsum(): argument 'dim' must be int, not NoneType"),
    (lambda x: x.cumsum(0, dtype=mt.bool), NotImplementedError,
     "cumsum: a running sum cannot be bool (PyTorch has no such kernel either); pass "
     "dtype=torch.int64 or leave dtype out"),
    (lambda x: x.requires_grad_().cumsum(0, dtype=mt.int32), RuntimeError,
     "cumsum: autograd does not support the result dtype torch.int32 for an input that "
     "requires grad; pass a floating dtype, or detach the input (or use no_grad) when no "
     "gradient is wanted"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
