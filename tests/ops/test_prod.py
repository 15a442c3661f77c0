"""prod: values and gradients (PyTorch's, with one zero, several, inf and nan), dtypes, errors."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch_meta as mt
from tests.gradcheck import gradcheck
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4, 5)
CASES = [
    Case("prod_all", lambda T, F, a: a.prod(), [Arg((2, 3, 2), "positive")]),
    Case("prod_all_function", lambda T, F, a: T.prod(a), [Arg((3, 2))]),
    Case("prod_dim", lambda T, F, a: a.prod(1), [Arg(S)]),
    Case("prod_function_dim0", lambda T, F, a: T.prod(a, 0), [Arg(S)]),
    Case("prod_negative_dim_keepdim", lambda T, F, a: a.prod(-1, keepdim=True), [Arg(S)]),
    Case("prod_keepdim_keyword", lambda T, F, a: T.prod(a, dim=0, keepdim=True), [Arg(S)]),
    Case("prod_1d", lambda T, F, a: a.prod(0), [Arg((6,))]),
    Case("prod_0d", lambda T, F, a: a.prod(), [Arg(())]),
    Case("prod_0d_dim", lambda T, F, a: T.prod(a, 0), [Arg(())]),
    Case("prod_0d_dim_keepdim", lambda T, F, a: a.prod(-1, True), [Arg(())]),
    Case("prod_size_1_dim", lambda T, F, a: a.prod(1), [Arg((3, 1, 2))]),
    Case("prod_empty_dim", lambda T, F, a: a.prod(0), [Arg((0, 3))]),
    Case("prod_along_other_dim_of_empty", lambda T, F, a: a.prod(1), [Arg((0, 3))]),
    Case("prod_all_of_empty", lambda T, F, a: a.prod(), [Arg((0, 3))]),
    Case("prod_dtype_float64", lambda T, F, a: a.prod(2, dtype=T.float64), [Arg(S)]),
    Case("prod_all_dtype_float64", lambda T, F, a: T.prod(a, dtype=T.float64),
         [Arg((2, 3), "positive")]),
    Case("prod_then_mul", lambda T, F, a: a.prod(0) * a.sum(0), [Arg(S)]),
    Case("prod_int", lambda T, F, a: a.prod(1), [Arg(S, "int:3")]),
    Case("prod_int32_all", lambda T, F, a: a.int().prod(), [Arg((2, 3), "int:3")]),
    Case("prod_bool", lambda T, F, a: T.prod(a, 0), [Arg(S, "bool")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


INF, NAN = float("inf"), float("nan")
WITH_ZEROS = [
    [[1.0, 0.0, 3.0], [2.0, 5.0, 4.0]],    # one zero
    [[0.0, 0.0, 3.0], [2.0, 5.0, 4.0]],    # two in one row
    [[0.0, 2.0, 3.0], [2.0, 0.0, 4.0]],    # one in each row and column
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],    # only zeros
    [[INF, 0.0, 3.0], [2.0, 5.0, 4.0]],    # a zero and an inf: PyTorch's nan pattern
    [[INF, 2.0, 3.0], [2.0, 5.0, 4.0]],    # inf without zeros: result / x is nan
    [[NAN, 0.0, 3.0], [0.0, 5.0, 4.0]],
    [[-0.0, 1.5, -2.0], [3.0, -1.0, 0.5]],  # a negative zero is a zero
]


@pytest.mark.parametrize("data", WITH_ZEROS, ids=[str(i) for i in range(len(WITH_ZEROS))])
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_gradients_at_zeros_inf_and_nan_as_torch(data, dim, keepdim, device):
    torch = _torch()
    if dim is None and keepdim:
        pytest.skip("PyTorch has no keepdim without a dim")
    x = mt.tensor(data, device=device, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    out = x.prod() if dim is None else x.prod(dim, keepdim)
    ref = tx.prod() if dim is None else tx.prod(dim, keepdim)
    np.testing.assert_array_equal(out.detach().cpu().numpy(), ref.detach().numpy())
    weights = np.arange(1.0, 1.0 + ref.numel(), dtype=np.float32).reshape(tuple(ref.shape))
    out.backward(mt.tensor(weights, device=device))
    ref.backward(torch.tensor(weights))
    # the same products in the same order: equal, inf and nan at the same places
    np.testing.assert_array_equal(x.grad.cpu().numpy(), tx.grad.numpy())


@pytest.mark.parametrize("data", [d for d in WITH_ZEROS if np.isfinite(d).all()])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_gradcheck_at_zeros(data, dim, device):
    # a product is linear in each factor: central differences are exact even at zeros
    gradcheck(lambda a: a.prod() if dim is None else a.prod(dim), [np.array(data)],
              device=device)


def test_dim_none_is_every_element_and_keeps_the_dims_with_keepdim():
    # PyTorch refuses an explicit dim=None; we accept it (docs/differences.md)
    x = mt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert x.prod(None).item() == 24.0 and x.prod(None).grad_fn.name() == "ProdBackward0"
    y = mt.prod(x, dim=None, keepdim=True)
    assert y.shape == (1, 1) and y.tolist() == [[24.0]]
    y.backward(mt.ones(1, 1))
    assert x.grad.tolist() == [[24.0, 12.0], [8.0, 6.0]]


DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("out", [None, "float64", "int32", "bool"])
@pytest.mark.parametrize("dim", [None, 1])
def test_dtypes_as_torch(dtype, out, dim, device):
    torch = _torch()
    data = (np.arange(24).reshape(2, 3, 4) % 4 * 0.5 + 0.5).astype(dtype)
    kwargs = {} if out is None else {"dtype": getattr(mt, out)}
    ours = mt.tensor(data, device=device)
    ours = ours.prod(**kwargs) if dim is None else ours.prod(dim, **kwargs)
    kwargs = {} if out is None else {"dtype": getattr(torch, out)}
    theirs = torch.tensor(data)
    theirs = theirs.prod(**kwargs) if dim is None else theirs.prod(dim, **kwargs)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-6)


def test_integer_products_do_not_wrap_around_in_a_narrow_type(device):
    x = mt.full((3,), 100, dtype=mt.uint8, device=device)
    assert x.prod().item() == 1_000_000 and x.prod().dtype is mt.int64


def test_saved_input_changed_in_place_is_detected():
    x = mt.ones(3, requires_grad=True)
    y = x * 2
    z = y.prod()
    with mt.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_a_huge_meta_tensor_is_multiplied_without_data():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    x.prod(0)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        along = x.prod(1, keepdim=True)
        every = x.prod(dtype=mt.float64)
        (along.sum() + every).backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert along.shape == (2**20, 1, 2**10) and along.grad_fn.name() == "ProdBackward1"
    assert every.shape == () and every.dtype is mt.float64
    assert x.grad.is_meta and x.grad.shape == x.shape and x.grad.dtype is mt.float32
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.prod(3), IndexError,
     "prod: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: mt.prod(x.sum(), 1), IndexError,
     "prod: Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda x: x.prod(1.5), TypeError, "prod(): argument 'dim' must be int, not float"),
    (lambda x: x.prod((0, 1)), TypeError, "prod(): argument 'dim' must be int, not tuple"),
    (lambda x: x.requires_grad_().prod(dtype=mt.int64), RuntimeError,
     "prod: autograd does not support the result dtype torch.int64 for an input that "
     "requires grad; pass a floating dtype, or detach the input (or use no_grad) when no "
     "gradient is wanted"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
