"""scatter_reduce (sum, prod, mean, amax, amin; include_self) and scatter's reduce=:
values, gradients (ties shared, zeros in products), dtypes, in-place forms, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

X, I, S = (4, 5), (3, 5), (3, 5)
D = "distinct"  # no ties among src's values: amax/amin gradients are then unambiguous


def _case(reduce, include_self=True, dim=0, x=X, index=(I, "int:4"), src=S, kind="normal"):
    return Case(f"{reduce}_dim{dim}_{'self' if include_self else 'noself'}_{len(x)}d",
                lambda T, F, a, i, s: a.scatter_reduce(dim, i, s, reduce,
                                                       include_self=include_self),
                [Arg(x), Arg(*index), Arg(src, kind)])


CASES = [_case(r, include_self) for r in ("sum", "prod", "mean") for include_self in (True,
                                                                                      False)]
CASES += [_case(r, include_self, kind=D) for r in ("amax", "amin")
          for include_self in (True, False)]
CASES += [
    _case("sum", dim=1, index=((4, 3), "int:5"), src=(4, 3)),
    _case("prod", False, dim=-1, index=((4, 7), "int:5"), src=(4, 7)),
    _case("mean", dim=-1, index=((4, 7), "int:5"), src=(4, 7)),
    _case("amax", False, dim=1, index=((2, 6), "int:5"), src=(2, 6), kind=D),
    _case("amin", dim=2, x=(2, 3, 4), index=((2, 3, 6), "int:4"), src=(2, 3, 6), kind=D),
    _case("prod", x=(), index=((), "int:1"), src=()),
    _case("mean", False, x=(), index=((), "int:1"), src=()),
    _case("sum", index=((0, 5), "int:4"), src=(0, 5)),
    Case("function_spelling", lambda T, F, a, i, s: T.scatter_reduce(a, 0, i, s, "amax"),
         [Arg(X), Arg(I, "int:4"), Arg(S, D)]),
    Case("function_keywords", lambda T, F, a, i, s: T.scatter_reduce(
        a, dim=1, index=i, src=s, reduce="mean", include_self=False),
         [Arg(X), Arg((4, 2), "int:5"), Arg((4, 2))]),
    Case("int_mean_floor", lambda T, F, a, i, s: a.scatter_reduce(0, i, s, "mean"),
         [Arg((6,), "int:9"), Arg((9,), "int:6"), Arg((9,), "int:9")]),
    Case("int_prod", lambda T, F, a, i, s: a.scatter_reduce(0, i, s, "prod",
                                                            include_self=False),
         [Arg((6,), "int:9"), Arg((9,), "int:6"), Arg((9,), "int:9")]),
    Case("scatter_reduce_add", lambda T, F, a, i, s: a.scatter(0, i, s, reduce="add"),
         [Arg(X, grad=False), Arg(I, "int:4"), Arg(S, grad=False)]),
    Case("scatter_reduce_multiply_value", lambda T, F, a, i: T.scatter(a, 1, i, value=1.5,
                                                                       reduce="multiply"),
         [Arg(X, grad=False), Arg((4, 3), "int:5")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)
# The "scatter_reduce_add" case passes a tensor src with reduce=, which both frameworks call
# deprecated; test_in_place_forms_and_their_rules asserts our warning, these compare values.
for _test in (test_gradcheck, test_against_torch, test_meta_shapes):
    pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter with Tensor src")(
        _test)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _both(torch, device, x, index, src, reduce, include_self, dtype="float32"):
    """Our and PyTorch's result and gradients for the same data."""
    results = []
    for T, dev in ((mt, device), (torch, "cpu")):
        grad = dtype.startswith("float")
        a = T.tensor(np.array(x, dtype=dtype), device=dev, requires_grad=grad)
        s = T.tensor(np.array(src, dtype=dtype), device=dev, requires_grad=grad)
        out = a.scatter_reduce(0, T.tensor(index, device=dev), s, reduce,
                               include_self=include_self)
        if grad:
            out.backward(T.tensor(np.arange(1.0, len(x) + 1, dtype=dtype), device=dev))
        results.append((out, a.grad, s.grad))
    return results


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_ties_share_the_gradient_as_in_torch(reduce, include_self, device):
    torch = _torch()
    x, index = [3.0, -1.0, 2.0, 5.0], [0, 0, 2, 2, 2, 1, 1]
    src = [3.0, 3.0, 2.0, 2.0, 1.0, -1.0, -4.0] if reduce == "amax" else [
        3.0, 4.0, 2.0, 2.0, 7.0, -1.0, -1.0]
    (out, ga, gs), (ref, ta, ts) = _both(torch, device, x, index, src, reduce, include_self)
    assert out.tolist() == ref.tolist()
    assert ga.tolist() == ta.tolist() and gs.tolist() == ts.tolist()


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("x, src", [
    ([0.0, 2.0, 3.0], [4.0, 0.0, 5.0, 0.0]),  # zero in self and one zero in a position's src
    ([1.0, 2.0, 0.0], [0.0, 0.0, 5.0, 2.0]),  # two zeros at position 0
    ([2.0, 0.0, 3.0], [3.0, 1.5, 0.0, -2.0]),
])
def test_prod_gradients_with_zeros_as_in_torch(x, src, include_self, device):
    torch = _torch()
    index = [0, 0, 2, 1]
    (out, ga, gs), (ref, ta, ts) = _both(torch, device, x, index, src, "prod", include_self)
    assert out.tolist() == ref.tolist()
    np.testing.assert_allclose(ga.cpu().numpy(), ta.numpy())
    np.testing.assert_allclose(gs.cpu().numpy(), ts.numpy())


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float64"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_dtypes_as_torch(dtype, reduce, include_self, device):
    torch = _torch()
    if dtype == "bool" and reduce == "mean":
        pytest.skip("PyTorch has no bool mean")
    x, index, src = [5, 0, 3, 7], [0, 0, 2, 3, 3, 3], [2, 6, 1, 0, 4, 3]
    if dtype == "bool":
        x, src = [v % 2 for v in x], [v % 2 for v in src]
    (out, _, _), (ref, _, _) = _both(torch, device, x, index, src, reduce, include_self,
                                      dtype)
    assert str(out.dtype) == str(ref.dtype)
    assert out.tolist() == ref.tolist()


def test_in_place_forms_and_their_rules():
    torch = _torch()
    x, tx = mt.zeros(3), torch.zeros(3)
    index, src = [0, 0, 2], [1.0, 2.0, 4.0]
    assert x.scatter_reduce_(0, mt.tensor(index), mt.tensor(src), "amax",
                             include_self=False) is x
    tx.scatter_reduce_(0, torch.tensor(index), torch.tensor(src), "amax", include_self=False)
    assert x.tolist() == tx.tolist() and x._version == 1
    y = mt.ones(3)
    with pytest.warns(UserWarning, match="The reduce argument of torch.scatter with Tensor src "
                                         "is deprecated"):
        assert y.scatter_(0, mt.tensor(index), mt.tensor(src), reduce="multiply") is y
    assert y.tolist() == [2.0, 1.0, 4.0]
    assert mt.ones(3).scatter_(0, mt.tensor([1, 1]), value=2.0, reduce="add").tolist() == [
        1.0, 5.0, 1.0]
    with pytest.raises(RuntimeError, match="scatter_reduce_: a leaf Variable that requires "
                                           "grad is being used in an in-place operation"):
        mt.zeros(3, requires_grad=True).scatter_reduce_(0, mt.tensor(index), mt.tensor(src),
                                                        "sum")


def test_scatter_with_a_number_and_reduce_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mt.zeros(3).scatter(0, mt.tensor([1]), 2.0, reduce="add")


def test_a_huge_meta_scatter_reduce_is_shapes_only():
    x = mt.empty(2**20, 2**20, device="meta", requires_grad=True)
    src = mt.empty(2**10, 2**20, device="meta", requires_grad=True)
    out = x.scatter_reduce(0, mt.empty(2**10, 2**20, dtype=mt.int64, device="meta"), src,
                           "prod", include_self=False)
    out.sum().backward()
    assert out.shape == x.shape and out.grad_fn.name() == "ScatterReduceBackward0"
    assert x.grad.shape == x.shape and src.grad.shape == src.shape


@pytest.mark.parametrize("call, error, message", [
    (lambda T, x, i: x.scatter_reduce(0, i, x[:2], "foo"), RuntimeError,
     "scatter_reduce(): reduce argument must be either sum, prod, mean, amax or amin, got foo"),
    (lambda T, x, i: x.scatter_reduce(0, i, x[:2].double(), "sum"), RuntimeError,
     "scatter_reduce(): Expected self.dtype to be equal to src.dtype"),
    (lambda T, x, i: x.scatter_reduce(0, i.int().float(), x[:2], "sum"), RuntimeError,
     "scatter_reduce(): Expected dtype int32/int64 for index"),
    (lambda T, x, i: x.scatter_reduce(0, i[0], x[:2], "sum"), RuntimeError,
     "scatter_reduce(): Index tensor must have the same number of dimensions as self tensor"),
    (lambda T, x, i: x.scatter_reduce(2, i, x[:2], "sum"), IndexError,
     "scatter_reduce: Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda T, x, i: x.scatter_reduce(0, i, 1.0, "sum"), TypeError,
     "scatter_reduce(): argument 'src' (position 4) must be Tensor, not float"),
    (lambda T, x, i: x.scatter(0, i, x[:2], reduce="mean"), RuntimeError,
     "scatter(): reduce argument must be either add or multiply"),
])
def test_errors_have_torchs_types(call, error, message):
    torch = _torch()
    index = [[0, 1, 2], [1, 1, 0]]
    with pytest.raises(error), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(torch, torch.ones(3, 3), torch.tensor(index))
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(mt, mt.ones(3, 3, device=device), mt.tensor(index, device=device))
        assert str(info.value).startswith(message), (device, str(info.value))


def test_a_position_out_of_range_is_refused():
    with pytest.raises(RuntimeError, match="scatter_reduce\\(\\): index 3 is out of bounds for "
                                           "dimension 0 with size 3"):
        mt.zeros(3).scatter_reduce(0, mt.tensor([3]), mt.ones(1), "amax")


def test_integer_mean_rounds_down_as_in_torch(device):
    torch = _torch()
    for include_self in (True, False):
        ours = mt.tensor([-7, 3, -2], device=device).scatter_reduce(
            0, mt.tensor([0, 0, 2, 2], device=device), mt.tensor([0, 1, -3, 0], device=device),
            "mean", include_self=include_self)
        theirs = torch.tensor([-7, 3, -2]).scatter_reduce(
            0, torch.tensor([0, 0, 2, 2]), torch.tensor([0, 1, -3, 0]), "mean",
            include_self=include_self)
        assert ours.tolist() == theirs.tolist()
