"""index_reduce, Tensor.index_reduce and index_reduce_: values and gradients against
PyTorch (first and second order), dtypes, errors, the in-place and out= forms."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

# PyTorch warns (once per process) that index_reduce is in beta; we do not.
pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")

CASES = [
    Case("prod_dim0", lambda T, F, x, i, s: T.index_reduce(x, 0, i, s, "prod"),
         [Arg((3, 4)), Arg((5,), "int:3"), Arg((5, 4))]),
    Case("prod_exclude_self", lambda T, F, x, i, s: x.index_reduce(0, i, s, "prod",
                                                                   include_self=False),
         [Arg((4, 3)), Arg((3,), "int:4"), Arg((3, 3))]),
    Case("mean_dim1", lambda T, F, x, i, s: x.index_reduce(1, i, s, "mean"),
         [Arg((2, 4)), Arg((6,), "int:4"), Arg((2, 6))]),
    Case("mean_exclude_self", lambda T, F, x, i, s: T.index_reduce(x, -1, i, s, "mean",
                                                                   include_self=False),
         [Arg((2, 3, 4)), Arg((3,), "int:4"), Arg((2, 3, 3))]),
    Case("amax_dim1_3d", lambda T, F, x, i, s: x.index_reduce(1, i, s, "amax"),
         [Arg((2, 3, 2), "distinct"), Arg((4,), "int:3"), Arg((2, 4, 2), "distinct")]),
    Case("amin_exclude_self", lambda T, F, x, i, s: x.index_reduce(0, i, s, "amin",
                                                                   include_self=False),
         [Arg((3, 2), "distinct"), Arg((4,), "int:3"), Arg((4, 2), "distinct")]),
    Case("amax_source_only", lambda T, F, x, i, s: x.index_reduce(0, i, s, "amax"),
         [Arg((3, 2), grad=False), Arg((2,), "int:3"), Arg((2, 2))]),
    Case("mean_0d", lambda T, F, x, i, s: T.index_reduce(x, 0, i, s, "mean"),
         [Arg(()), Arg((1,), "int:1"), Arg(())]),
    Case("prod_empty_index", lambda T, F, x, i, s: x.index_reduce(1, i, s, "prod"),
         [Arg((2, 3)), Arg((0,), "int:3"), Arg((2, 0))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _pair(torch, data, device, grad=True):
    return (mt.tensor(data, device=device, requires_grad=grad),
            torch.tensor(data, requires_grad=grad))


def _compare_values_and_grads(torch, device, x_data, index, s_data, reduce, include_self):
    x, tx = _pair(torch, x_data, device)
    s, ts = _pair(torch, s_data, device)
    out = x.index_reduce(0, mt.tensor(index, device=device), s, reduce,
                         include_self=include_self)
    ref = tx.index_reduce(0, torch.tensor(index), ts, reduce, include_self=include_self)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-6)
    weights = np.arange(1.0, 1.0 + ref.numel()).reshape(tuple(ref.shape))
    out.backward(mt.tensor(weights, device=device))
    ref.backward(torch.tensor(weights))
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(s.grad.cpu().numpy(), ts.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("include_self", [True, False])
def test_prod_gradients_with_zeros_match_torch(include_self, device):
    """A lone zero among a position's factors gets the product of the others; two zeros at
    one position give zero; a zero in the input is handled apart too."""
    x_data = np.array([[0.0, 2.0], [3.0, 0.5], [1.5, -1.0]])
    s_data = np.array([[0.0, 4.0], [2.0, 0.0], [0.0, 3.0], [5.0, -2.0]])
    _compare_values_and_grads(_torch(), device, x_data, [0, 1, 1, 2], s_data, "prod",
                              include_self)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_ties_share_the_gradient_as_in_torch(reduce, include_self, device):
    x_data = np.array([[1.0, 2.0], [3.0, 3.0]])
    s_data = np.array([[1.0, 2.0], [1.0, 5.0], [3.0, 3.0]])
    _compare_values_and_grads(_torch(), device, x_data, [0, 0, 1], s_data, reduce,
                              include_self)


def _second_order(lib, device, reduce, include_self, x_data, s_data, index):
    kwargs = {"device": device} if lib is mt else {}
    x = lib.tensor(x_data, requires_grad=True, **kwargs)
    s = lib.tensor(s_data, requires_grad=True, **kwargs)
    out = lib.index_reduce(x, 0, lib.tensor(index, **kwargs), s, reduce,
                           include_self=include_self)
    grads = lib.autograd.grad((out * out).sum(), (x, s), create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in grads), (x, s))
    return [g.detach().cpu().numpy() for g in (*grads, *second)]


@pytest.mark.parametrize("reduce", ["mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_second_order_gradients_match_torch(reduce, include_self, device):
    torch = _torch()
    rng = np.random.default_rng(3)
    x_data, s_data = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    index = [2, 0, 2, 1, 2]
    ours = _second_order(mt, device, reduce, include_self, x_data, s_data, index)
    theirs = _second_order(torch, None, reduce, include_self, x_data, s_data, index)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_prod_differentiates_twice_under_create_graph():
    """x's gradient is the product of the source values it met: its own gradient by the
    source is 1 there (tests/autograd/test_higher_order_losses_geometry.py has more)."""
    x = mt.tensor([[1.0, 2.0]], dtype=mt.float64, requires_grad=True)
    s = mt.tensor([[3.0, 4.0]], dtype=mt.float64, requires_grad=True)
    out = x.index_reduce(0, mt.tensor([0]), s, "prod")
    (gx,) = mt.autograd.grad(out.sum(), x, create_graph=True)
    assert gx.tolist() == [[3.0, 4.0]]
    gx.sum().backward()
    assert s.grad.tolist() == [[1.0, 1.0]]


def test_second_order_shapes_on_meta():
    x = mt.empty(3, 4, device="meta", requires_grad=True)
    s = mt.empty(2, 4, device="meta", requires_grad=True)
    out = mt.index_reduce(x, 0, mt.empty(2, dtype=mt.int64, device="meta"), s, "amax")
    gx, gs = mt.autograd.grad(out.sum(), (x, s), create_graph=True)
    assert gx.shape == x.shape and gs.shape == s.shape
    (g2,) = mt.autograd.grad((gs * gs).sum(), s)
    assert g2.is_meta and g2.shape == s.shape


@pytest.mark.parametrize("dtype, reduce, include_self", [
    ("int64", "mean", True), ("int64", "mean", False), ("int32", "prod", True),
    ("int64", "amin", False), ("bool", "amax", True), ("float64", "amax", False),
    ("uint8", "amin", True),
])
def test_dtypes_match_torch(dtype, reduce, include_self, device):
    torch = _torch()
    x_data = np.arange(12).reshape(3, 4) % 5
    s_data = (np.arange(8).reshape(2, 4) * 3) % 7
    if dtype == "bool":
        x_data, s_data = x_data > 2, s_data > 2
    x = mt.tensor(x_data, device=device).to(getattr(mt, dtype))
    s = mt.tensor(s_data, device=device).to(getattr(mt, dtype))
    tx = torch.tensor(x_data).to(getattr(torch, dtype))
    ts = torch.tensor(s_data).to(getattr(torch, dtype))
    out = x.index_reduce(0, mt.tensor([2, 2], device=device), s, reduce,
                         include_self=include_self)
    ref = tx.index_reduce(0, torch.tensor([2, 2]), ts, reduce, include_self=include_self)
    assert str(out.dtype) == str(ref.dtype)
    assert out.cpu().tolist() == ref.tolist()


def test_int32_index_and_in_place_form(device):
    torch = _torch()
    data = np.arange(6.0).reshape(2, 3)
    x = mt.tensor(data, device=device)
    tx = torch.tensor(data)
    source = np.array([[10.0], [-1.0]])
    returned = x.index_reduce_(1, mt.tensor([1], dtype=mt.int32, device=device),
                               mt.tensor(source, device=device), "amax")
    tx.index_reduce_(1, torch.tensor([1], dtype=torch.int32), torch.tensor(source), "amax")
    assert returned is x and x._version == 1
    assert x.cpu().tolist() == tx.tolist()


def test_in_place_follows_the_in_place_rules():
    x = mt.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x.index_reduce_(0, mt.tensor([0]), mt.ones(1, 3), "prod")


def test_out_argument_matches_torch():
    torch = _torch()
    out = mt.empty(2, 2)
    returned = mt.index_reduce(mt.ones(2, 2), 0, mt.tensor([1, 1]),
                               mt.tensor([[2.0, 3.0], [4.0, 5.0]]), "prod", out=out)
    ref = torch.index_reduce(torch.ones(2, 2), 0, torch.tensor([1, 1]),
                             torch.tensor([[2.0, 3.0], [4.0, 5.0]]), "prod")
    assert returned is out and out.tolist() == ref.tolist()
    with pytest.raises(RuntimeError, match="dtype"):
        mt.index_reduce(mt.ones(2, 2), 0, mt.tensor([1]), mt.ones(1, 2), "prod",
                        out=mt.empty(2, 2, dtype=mt.float64))


def test_grad_fn_name_and_meta_output():
    x = mt.ones(3, 4, device="meta", requires_grad=True)
    out = x.index_reduce(1, mt.empty(2, dtype=mt.int64, device="meta"),
                         mt.empty(3, 2, device="meta"), "mean", include_self=False)
    assert out.is_meta and out.shape == (3, 4)
    assert out.grad_fn.name() == "IndexReduceBackward0"


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.index_reduce(0, mt.tensor([0], device=x.device), mt.ones(1, 3, 4,
                                                                          device=x.device),
                              "sum"),
     RuntimeError, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but "
                   "got sum."),
    (lambda x: x.index_reduce(0, mt.ones(1, device=x.device), mt.ones(1, 3, 4,
                                                                      device=x.device),
                              "prod"),
     RuntimeError, "index_reduce_(): Expected dtype int32/int64 for index but got: "
                   "torch.float32; convert it with .long()"),
    (lambda x: x.index_reduce(0, mt.zeros(1, 1, dtype=mt.int64, device=x.device),
                              mt.ones(1, 3, 4, device=x.device), "prod"),
     IndexError, "index_reduce_(): Index is supposed to be a vector, but got an index of "
                 "shape (1, 1); flatten it first"),
    (lambda x: x.index_reduce(0, mt.tensor([0], device=x.device),
                              mt.ones(1, 3, 4, dtype=mt.float64, device=x.device), "prod"),
     RuntimeError, "index_reduce_(): self (torch.float32) and source (torch.float64) must "
                   "have the same scalar type; convert source with .to(torch.float32)"),
    (lambda x: x.index_reduce(0, mt.tensor([0], device=x.device),
                              mt.ones(1, 3, 5, device=x.device), "prod"),
     RuntimeError, "index_reduce_(): source tensor shape must match self tensor shape, "
                   "excluding the specified dimension. Got self.shape = (2, 3, 4) "
                   "source.shape = (1, 3, 5)"),
    (lambda x: x.index_reduce(0, mt.tensor([0], device=x.device),
                              mt.ones(3, 4, device=x.device), "prod"),
     RuntimeError, "index_reduce_(): source tensor shape must match self tensor shape, "
                   "excluding the specified dimension. Got self.shape = (2, 3, 4) "
                   "source.shape = (3, 4)"),
    (lambda x: x.index_reduce(-3, mt.tensor([0, 1, 1], device=x.device),
                              mt.ones(2, 3, 4, device=x.device), "amin"),
     RuntimeError, "index_reduce_(): Number of indices (3) should be equal to "
                   "source.size(dim): (2), for dim: 0"),
    (lambda x: x.index_reduce(3, mt.tensor([0], device=x.device),
                              mt.ones(2, 3, 1, device=x.device), "amin"),
     IndexError, "index_reduce: Dimension out of range (expected to be in range of [-3, 2], "
                 "but got 3)"),
])
def test_errors_read_the_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


@pytest.mark.parametrize("position", [2, -1])
def test_a_position_out_of_range_is_an_index_error_like_torch(position, device):
    torch = _torch()
    with pytest.raises(IndexError):
        torch.ones(2, 3).index_reduce(0, torch.tensor([0, position]), torch.ones(2, 3), "prod")
    with pytest.raises(IndexError, match=f"index {position} is out of bounds for dimension 0 "
                                         "with size 2"):
        mt.ones(2, 3, device=device).index_reduce(
            0, mt.tensor([0, position], device=device), mt.ones(2, 3, device=device), "prod")


@pytest.mark.parametrize("call, message", [
    (lambda T: T.index_reduce(T.ones(2), 0, [0], T.ones(1), "prod"), "'index'"),
    (lambda T: T.index_reduce(T.ones(2), 0, T.tensor([0]), 2.0, "prod"), "'source'"),
    (lambda T: T.index_reduce(T.ones(2), 0, T.tensor([0]), T.ones(1), 3), "'reduce'"),
    (lambda T: T.index_reduce(T.ones(2), 0.0, T.tensor([0]), T.ones(1), "prod"), "'dim'"),
    (lambda T: T.index_reduce(T.ones(2), 0, T.tensor([0]), T.ones(1), "prod",
                              include_self=1), "'include_self'"),
])
def test_argument_types_are_type_errors_like_torch(call, message):
    torch = _torch()
    with pytest.raises(TypeError, match=message):
        call(torch)
    with pytest.raises(TypeError, match=message):
        call(mt)
