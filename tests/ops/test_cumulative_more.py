"""cumprod (and cumprod_/cumsum_), cummax, cummin, logcumsumexp and diff: values, indices and
gradients against PyTorch, gradcheck, meta shapes, zeros/ties/NaN/inf, dtypes and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4, 5)
INF, NAN = math.inf, math.nan


def _with_zeros(T, a, k):
    """``a`` with every ``k``-th element (flat order) set to zero, differentiably."""
    mask = (T.arange(a.numel(), device=a.device).reshape(a.shape) % k != 0).to(a.dtype)
    return a * mask


CASES = [
    # cumprod
    Case("cumprod", lambda T, F, a: a.cumprod(1), [Arg(S)]),
    Case("cumprod_function_negative_dim", lambda T, F, a: T.cumprod(a, -1), [Arg(S)]),
    Case("cumprod_dim0", lambda T, F, a: T.cumprod(a, dim=0), [Arg(S)]),
    Case("cumprod_0d", lambda T, F, a: a.cumprod(0), [Arg(())]),
    Case("cumprod_empty", lambda T, F, a: a.cumprod(0), [Arg((0, 3))]),
    Case("cumprod_length_1", lambda T, F, a: a.cumprod(1), [Arg((3, 1))]),
    Case("cumprod_one_zero_per_slice", lambda T, F, a: _with_zeros(T, a, 5).cumprod(1),
         [Arg((5, 6))]),
    Case("cumprod_several_zeros_per_slice", lambda T, F, a: _with_zeros(T, a, 2).cumprod(-1),
         [Arg((3, 7))]),
    Case("cumprod_zeros_then_more", lambda T, F, a: _with_zeros(T, a, 3).cumprod(0),
         [Arg((9, 2))]),
    Case("cumprod_dtype_float64", lambda T, F, a: a.cumprod(2, dtype=T.float64), [Arg(S)]),
    Case("cumprod_int", lambda T, F, a: a.cumprod(1), [Arg(S, "int:3")]),
    Case("cumprod_bool", lambda T, F, a: T.cumprod(a, 0), [Arg(S, "bool")]),
    # cummax / cummin (ties: the latest index; the gradient goes there)
    Case("cummax", lambda T, F, a: a.cummax(1)[0], [Arg(S, "distinct")]),
    Case("cummax_indices", lambda T, F, a: T.cummax(a, -1).indices, [Arg(S)]),
    Case("cummin", lambda T, F, a: T.cummin(a, 0).values, [Arg(S, "distinct")]),
    Case("cummin_indices", lambda T, F, a: a.cummin(2)[1], [Arg(S)]),
    Case("cummax_ties", lambda T, F, a: (a.round() * 1.0).cummax(1).values, [Arg((4, 9))]),
    Case("cummin_ties", lambda T, F, a: (a.round() * 1.0).cummin(0).values, [Arg((9, 4))]),
    Case("cummax_int", lambda T, F, a: T.cummax(a, 1).indices, [Arg(S, "int:3")]),
    Case("cummin_int_values", lambda T, F, a: T.cummin(a, 1).values, [Arg(S, "int:3")]),
    Case("cummax_bool", lambda T, F, a: a.cummax(0).values, [Arg(S, "bool")]),
    Case("cummin_bool_indices", lambda T, F, a: a.cummin(2).indices, [Arg(S, "bool")]),
    Case("cummax_0d", lambda T, F, a: a.cummax(0).values, [Arg(())]),
    Case("cummin_0d_indices", lambda T, F, a: a.cummin(-1).indices, [Arg(())]),
    Case("cummax_empty", lambda T, F, a: a.cummax(1).values, [Arg((2, 0))]),
    # logcumsumexp
    Case("logcumsumexp", lambda T, F, a: a.logcumsumexp(1), [Arg(S)]),
    Case("logcumsumexp_function_dim0", lambda T, F, a: T.logcumsumexp(a, 0), [Arg(S)]),
    Case("logcumsumexp_large", lambda T, F, a: T.logcumsumexp(a * 2 + 100, -1), [Arg(S)]),
    Case("logcumsumexp_0d", lambda T, F, a: a.logcumsumexp(0), [Arg(())]),
    Case("logcumsumexp_empty", lambda T, F, a: a.logcumsumexp(0), [Arg((0, 2))]),
    # diff (PyTorch's composition: SubBackward0)
    Case("diff", lambda T, F, a: a.diff(), [Arg(S)]),
    Case("diff_n2_dim0", lambda T, F, a: T.diff(a, n=2, dim=0), [Arg(S)]),
    Case("diff_n_beyond_length", lambda T, F, a: T.diff(a, 7, 1), [Arg(S)]),
    Case("diff_n0", lambda T, F, a: T.diff(a, 0), [Arg(S)]),
    Case("diff_prepend_append", lambda T, F, a, p, q: T.diff(a, dim=1, prepend=p, append=q),
         [Arg((3, 4)), Arg((3, 2)), Arg((3, 1))]),
    Case("diff_prepend_n3", lambda T, F, a, p: a.diff(3, -1, p), [Arg((2, 4)), Arg((2, 3))]),
    Case("diff_append_constant", lambda T, F, a, q: T.diff(a, append=q),
         [Arg((2, 3)), Arg((2, 2), grad=False)]),
    Case("diff_int", lambda T, F, a: a.diff(), [Arg(S, "int:9")]),
    Case("diff_bool", lambda T, F, a: T.diff(a, n=2, dim=1), [Arg(S, "bool")]),
    Case("diff_to_empty", lambda T, F, a: a.diff(dim=0), [Arg((1, 3))]),
    Case("diff_of_empty_other_dim", lambda T, F, a: a.diff(dim=1), [Arg((0, 3))]),
]

# PyTorch's node for n=0 is named "torch::autograd::CopyBackwards" (its class:
# CopyBackwards, the name given here)
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=("diff_n0",))


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _pair(data, dtype="float32", device="cpu", grad=False):
    torch = _torch()
    ours = mt.tensor(np.array(data, dtype=dtype), device=device, requires_grad=grad)
    theirs = torch.tensor(np.array(data, dtype=dtype), requires_grad=grad)
    return ours, theirs


def _same(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(), rtol=1e-5,
                               atol=1e-6, equal_nan=True)


ZERO_ROWS = [[0.0, 2.0, 3.0], [2.0, 0.0, 3.0, 0.0, 4.0], [0.0, 0.0, 0.0], [5.0, 0.0, 0.0, 2.0],
             [1.5, -2.0, 0.0, 3.0, 0.0, 0.0, 7.0], [2.0, 3.0, 4.0]]


@pytest.mark.parametrize("row", ZERO_ROWS)
def test_cumprod_gradient_at_zeros_is_pytorchs(row, device):
    x, t = _pair(row, device=device, grad=True)
    upstream = np.arange(1.0, len(row) + 1.0, dtype=np.float32)
    x.cumprod(0).backward(mt.tensor(upstream, device=device))
    t.cumprod(0).backward(_torch().tensor(upstream))
    _same(x.grad, t.grad)


def test_cumprod_gradient_at_zeros_of_rows_of_a_matrix(device):
    data = [[2.0, 0.0, 3.0, 0.0], [1.0, 2.0, 3.0, 4.0], [0.0, 5.0, 0.0, 1.0]]
    for dim in (0, 1):
        x, t = _pair(data, "float64", device, grad=True)
        x.cumprod(dim).sum().backward()
        t.cumprod(dim).sum().backward()
        _same(x.grad, t.grad)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("row", [
    [1.0, 3.0, 3.0, 2.0, 3.0, 1.0], [0.0, 0.0, -1.0, NAN, 5.0, NAN], [NAN, 1.0, 2.0],
    [2.0, 2.0, 2.0], [INF, 1.0, INF, -INF, -INF], [-0.0, 0.0, -0.0]])
def test_cumulative_extrema_ties_nan_and_inf_as_pytorch(op, row, device):
    x, t = _pair(row, device=device, grad=True)
    ours, theirs = getattr(x, op)(0), getattr(t, op)(0)
    _same(ours.values, theirs.values)
    assert ours.indices.tolist() == theirs.indices.tolist()
    assert ours.values.grad_fn.name() == theirs.values.grad_fn.name()
    upstream = np.arange(1.0, len(row) + 1.0, dtype=np.float32)
    ours.values.backward(mt.tensor(upstream, device=device))
    theirs.values.backward(_torch().tensor(upstream))
    _same(x.grad, t.grad)


@pytest.mark.parametrize("row", [
    [-1000.0, 0.0, 1000.0, 1000.0], [-INF, -INF, 0.0, 1.0, -INF], [-INF, -INF],
    [INF, 1.0, -INF, INF], [NAN, 1.0, 2.0], [88.0, 89.0, 90.0], [-200.0, -300.0, -250.0]])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logcumsumexp_extreme_values_as_pytorch(row, dtype, device):
    x, t = _pair(row, dtype, device, grad=True)
    ours, theirs = x.logcumsumexp(0), t.logcumsumexp(0)
    _same(ours, theirs)
    upstream = np.array([1.0, -2.0, 3.0, 0.0, 1.0][:len(row)], dtype=dtype)
    ours.backward(mt.tensor(upstream, device=device))
    theirs.backward(_torch().tensor(upstream))
    _same(x.grad, t.grad)


def test_logcumsumexp_float16_as_pytorch(device):
    x, t = _pair([1.0, 2.0, 3.0, -1.0, 10.0], "float16", device)
    _same(x.logcumsumexp(0), t.logcumsumexp(0))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool"])
def test_dtypes_as_pytorch(dtype, device):
    data = (np.arange(24).reshape(2, 3, 4) % 5 - (0 if dtype in ("uint8", "bool") else 2))
    x, t = _pair(data, dtype, device)
    for op in ("cumprod", "diff"):
        _same(getattr(x, op)(1), getattr(t, op)(1))
    for op in ("cummax", "cummin"):
        ours, theirs = getattr(x, op)(2), getattr(t, op)(2)
        _same(ours.values, theirs.values)
        assert ours.indices.tolist() == theirs.indices.tolist()
        assert ours.indices.dtype is mt.int64
    _same(x.cumprod(1, dtype=mt.float64), t.cumprod(1, dtype=_torch().float64))


def test_integer_products_wrap_around_as_in_int64(device):
    x, t = _pair([2**40, 2**30, 3], "int64", device)
    _same(x.cumprod(0), t.cumprod(0))


def test_diff_promotes_prepend_and_append_as_cat(device):
    torch = _torch()
    x, t = _pair([[1, 4, 9]], "int64", device)
    p, q = mt.tensor([[0.5]], device=device), mt.tensor([[True, False]], device=device)
    _same(mt.diff(x, prepend=p, append=q),
          torch.diff(t, prepend=torch.tensor([[0.5]]), append=torch.tensor([[True, False]])))
    b, c = _pair([True, False, False, True], "bool", device)
    _same(b.diff(), c.diff())
    _same(mt.diff(b, prepend=mt.tensor([1], device=device)), torch.diff(
        c, prepend=torch.tensor([1])))


def test_diff_along_an_empty_dim_is_the_input_itself(any_device):
    torch = _torch()
    x = mt.ones(0, 3, device=any_device, requires_grad=True)
    t = torch.ones(0, 3, requires_grad=True)
    assert mt.diff(x, dim=0) is x and torch.diff(t, dim=0) is t
    assert mt.diff(x, dim=0, prepend=mt.ones(0, 3, device=any_device)).shape == (0, 3)


def test_named_results_and_grad_fn_names():
    x = mt.tensor([[1.0, 4.0, 2.0], [0.0, 0.0, 3.0]], requires_grad=True)
    for op, type_name, node in (("cummax", "cummax", "CummaxBackward0"),
                                ("cummin", "cummin", "CumminBackward0")):
        result = getattr(mt, op)(x, 1)
        assert type(result).__name__ == type_name and result._fields == ("values", "indices")
        assert result.values.grad_fn.name() == node and result.indices.grad_fn is None
        assert not result.indices.requires_grad
    assert x.cumprod(0).grad_fn.name() == "CumprodBackward0"
    assert x.logcumsumexp(0).grad_fn.name() == "LogcumsumexpBackward0"
    assert mt.diff(x).grad_fn.name() == "SubBackward0"
    assert mt.diff(x, n=0).grad_fn.name() == "CopyBackwards"
    assert mt.diff(x, n=0) is not x


def test_in_place_running_product_and_sum(device):
    torch = _torch()
    for op in ("cumprod_", "cumsum_"):
        for dtype in ("float32", "int32", "uint8"):
            data = (np.arange(12).reshape(3, 4) % 5 + 1) * 60
            x, t = _pair(data, dtype, device)
            before = x._version
            assert getattr(x, op)(1) is x and x._version > before
            getattr(t, op)(1)
            _same(x, t)
    x = mt.ones(3, device=device)
    assert x.cumprod_(0, dtype=mt.float32) is x
    with pytest.raises(RuntimeError, match="float and output tensor dtype double"):
        torch.ones(3).cumprod_(0, dtype=torch.float64)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.cumprod_(0, dtype=mt.float64), RuntimeError,
     "cumprod_: Bad in-place call: input tensor dtype torch.float32 and output tensor dtype "
     "torch.float64 should match; leave dtype out, or use the out-of-place form"),
    (lambda x: x.bool().cumsum_(0), NotImplementedError,
     "cumsum_: not implemented for bool tensors (as in PyTorch); convert the tensor first, "
     "e.g. with .long()"),
    (lambda x: x.requires_grad_().cumprod_(1), RuntimeError,
     "cumprod_: a leaf Variable that requires grad is being used in an in-place operation; "
     "wrap the update in 'with torch.no_grad():'"),
])
def test_in_place_errors(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


def test_meta_in_place_keeps_shape():
    x = mt.empty(2, 3, device="meta")
    assert x.cumprod_(1) is x and x.shape == (2, 3) and x.is_meta


def test_gradient_of_a_dtype_result_comes_back_in_the_input_dtype(device):
    x = mt.tensor([[1.0, 2.0, 0.0], [3.0, 0.5, 2.0]], device=device, requires_grad=True)
    y = x.cumprod(1, dtype=mt.float64)
    assert y.dtype is mt.float64
    y.backward(mt.ones(2, 3, dtype=mt.float64, device=device))
    assert x.grad.dtype is mt.float32
    assert x.grad.tolist() == [[3.0, 1.0, 2.0], [2.5, 9.0, 1.5]]


def test_cummax_gradient_accumulates_where_one_input_is_several_outputs(device):
    x = mt.tensor([3.0, 1.0, 2.0, 5.0], device=device, requires_grad=True)
    x.cummax(0).values.sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 0.0, 1.0]


def test_huge_meta_tensors_run_without_data():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    for y in (x.cumprod(1), x.cummax(2).values, x.cummin(0).values, x.logcumsumexp(-1),
              x.diff(2, dim=1)):
        assert y.is_meta
        y.sum().backward()
    assert x.grad.shape == x.shape and x.cummax(0).indices.dtype is mt.int64
    assert x.diff(dim=1).shape == (2**20, 2**20 - 1, 2**10)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.cumprod(3), IndexError,
     "cumprod: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: mt.cummax(x, -4), IndexError,
     "cummax: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: x.sum().cummin(1), IndexError,
     "cummin: Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda x: x.logcumsumexp(5), IndexError,
     "logcumsumexp: Dimension out of range (expected to be in range of [-3, 2], but got 5)"),
    (lambda x: x.diff(dim=3), IndexError,
     "diff: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.cumprod(None), TypeError, "cumprod(): argument 'dim' must be int, not NoneType"),
    (lambda x: x.cummax(0.0), TypeError, "cummax(): argument 'dim' must be int, not float"),
    (lambda x: x.cummin(None), TypeError, "cummin(): argument 'dim' must be int, not NoneType"),
    (lambda x: x.logcumsumexp(None), TypeError,
     "logcumsumexp(): argument 'dim' must be int, not NoneType"),
    (lambda x: x.diff(1.0), TypeError, "diff(): argument 'n' must be int, not float"),
    (lambda x: x.cumprod(0, dtype=mt.bool), NotImplementedError,
     "cumprod: a running product cannot be bool (PyTorch has no such kernel either); pass "
     "dtype=torch.int64 or leave dtype out"),
    (lambda x: x.requires_grad_().cumprod(0, dtype=mt.int64), RuntimeError,
     "cumprod: autograd does not support the result dtype torch.int64 for an input that "
     "requires grad; pass a floating dtype, or detach the input (or use no_grad) when no "
     "gradient is wanted"),
    (lambda x: x.long().logcumsumexp(0), NotImplementedError,
     "logcumsumexp(): expected a floating-point input, got torch.int64 (PyTorch has no such "
     "kernel either); convert it first, e.g. with .float()"),
    (lambda x: x.bool().logcumsumexp(0), NotImplementedError,
     "logcumsumexp(): expected a floating-point input, got torch.bool (PyTorch has no such "
     "kernel either); convert it first, e.g. with .float()"),
    (lambda x: x.sum().diff(), RuntimeError,
     "diff: expected an input of at least one dimension, got a 0-d tensor; reshape it first, "
     "e.g. with .reshape(1)"),
    (lambda x: x.diff(-1), RuntimeError, "diff: order must be non-negative but got n=-1"),
    (lambda x: x.diff(prepend=1.0), TypeError,
     "diff(): argument 'prepend' must be Tensor, not float"),
    (lambda x: x.diff(append=x[0]), RuntimeError,
     "diff: expected append to have as many dimensions as the input (3, shape (2, 3, 4)), but "
     "got 2 (shape (3, 4))"),
    (lambda x: x.diff(dim=1, prepend=x[:, :, :2]), RuntimeError,
     "diff: expected prepend to match the input's shape (2, 3, 4) except along dim 1, but got "
     "shape (2, 3, 2) (size 2 at dim 2, not 4)"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


@pytest.mark.parametrize("call", [
    lambda T, x: x.cumprod(3), lambda T, x: T.cummax(x, -4), lambda T, x: x.logcumsumexp(5),
    lambda T, x: x.long().logcumsumexp(0), lambda T, x: x.sum().diff(),
    lambda T, x: x.diff(-1), lambda T, x: x.diff(prepend=1.0), lambda T, x: x.diff(append=x[0]),
    lambda T, x: x.cumprod(0, dtype=T.bool), lambda T, x: x.cummax(None),
    lambda T, x: x.diff(dim=1, prepend=x[:, :, :2])])
def test_error_types_are_pytorchs(call):
    torch = _torch()
    with pytest.raises(Exception) as theirs:
        call(torch, torch.ones(2, 3, 4))
    with pytest.raises(theirs.type):
        call(mt, mt.ones(2, 3, 4))
