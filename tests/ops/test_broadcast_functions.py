"""broadcast_tensors, broadcast_shapes, type_as, where with numbers and where(condition),
and the RuntimeError side of shape errors where PyTorch raises RuntimeError."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

S = (3, 4)
CASES = [
    # (the tensor not returned gets no gradient, in PyTorch too: it is a constant here)
    Case("broadcast_tensors_first", lambda T, F, a, b: T.broadcast_tensors(a, b)[0],
         [Arg((3, 1)), Arg((2, 1, 4), grad=False)]),
    Case("broadcast_tensors_second", lambda T, F, a, b: T.broadcast_tensors(a, b)[1],
         [Arg((3, 1), grad=False), Arg((2, 1, 4))]),
    Case("broadcast_tensors_both_used", lambda T, F, a, b, c: _sum_of(T.broadcast_tensors(a, b,
                                                                                          c)),
         [Arg((4,)), Arg((3, 1)), Arg(())]),
    Case("broadcast_tensors_one", lambda T, F, a: T.broadcast_tensors(a)[0] * 2, [Arg(S)]),
    Case("broadcast_tensors_empty_dim", lambda T, F, a, b: T.broadcast_tensors(a, b)[0],
         [Arg((1, 4)), Arg((0, 1), grad=False)]),
    Case("type_as_same", lambda T, F, a, b: a.type_as(b) * b, [Arg(S), Arg(S)]),
    Case("type_as_int_to_float", lambda T, F, a, b: b.type_as(a) * a, [Arg(S), Arg(S, "int:5")]),
    Case("where_number_other", lambda T, F, m, a: T.where(m, a, 0.5), [Arg(S, "bool"), Arg(S)]),
    Case("where_number_input", lambda T, F, m, a: T.where(m, -2, a),
         [Arg(S, "bool"), Arg((4,))]),
    Case("where_method", lambda T, F, a, m: a.where(m, 3.0), [Arg(S), Arg((4,), "bool")]),
    Case("where_method_tensor", lambda T, F, a, m, b: a.where(m, b),
         [Arg((3, 1)), Arg(S, "bool"), Arg((4,))]),
    Case("where_two_numbers", lambda T, F, m: T.where(m, 1.5, -1), [Arg(S, "bool")]),
    Case("where_int_tensor_float_number", lambda T, F, m, a: T.where(m, a, 2.5),
         [Arg(S, "bool"), Arg(S, "int:5")]),
    Case("where_0d_tensor_and_number", lambda T, F, m, a: T.where(m, a, 7), [Arg(S, "bool"),
                                                                            Arg(())]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _sum_of(tensors):
    total = tensors[0]
    for t in tensors[1:]:
        total = total + t
    return total


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("input, other", [
    (True, False), (True, 0), (1, 2), (1, 2.5), (2.5, 1.0), ("int32", 2.5), ("int32", 7),
    ("float16", 2.5), ("uint8", -1), ("bool", 3), ("bool", True), ("int64", np.float32(0.5)),
    (np.int64(3), "float64"),
])
def test_where_dtypes_as_torch(input, other, device):
    torch = _torch()
    mask = [True, False, True]

    def arg(T, value, **place):
        return T.ones(3, dtype=getattr(T, value), **place) if isinstance(value, str) else value

    ours = mt.where(mt.tensor(mask, device=device), arg(mt, input, device=device),
                    arg(mt, other, device=device))
    theirs = torch.where(torch.tensor(mask), arg(torch, input), arg(torch, other))
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


def test_where_condition_alone_is_nonzero_as_tuple(device):
    torch = _torch()
    data = [[0, 1, 0], [2, 0, 3]]
    ours = mt.where(mt.tensor(data, device=device))
    theirs = torch.where(torch.tensor(data))
    assert isinstance(ours, tuple) and len(ours) == len(theirs) == 2
    for o, t in zip(ours, theirs):
        assert o.dtype is mt.int64
        assert o.tolist() == t.tolist()
    assert [t.tolist() for t in mt.where(mt.tensor(True, device=device))] == [[0]]


def test_where_gradient_flows_only_to_tensor_branches():
    a = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = mt.where(mt.tensor([True, False, True]), a, 10.0)
    assert out.grad_fn.name() == "WhereBackward0"
    out.sum().backward()
    assert a.grad.tolist() == [1.0, 0.0, 1.0]


def test_broadcast_tensors_returns_views_and_the_tensors_that_fit():
    a = mt.ones(3, 4, requires_grad=True)
    b = mt.arange(4.0)
    x, y = mt.broadcast_tensors(a, b)
    assert x is a and y.shape == (3, 4) and y.grad_fn is None
    assert y._version_counter is b._version_counter  # a view: shares the version counter
    assert mt.broadcast_tensors() == ()
    z, = mt.broadcast_tensors(mt.ones(2, 1, requires_grad=True).expand(2, 3))
    assert z.grad_fn.name() == "ExpandBackward0"


def test_broadcast_tensors_on_meta():
    x, y = mt.broadcast_tensors(mt.empty(2**20, 1, device="meta"),
                                mt.empty(2**20, device="meta", requires_grad=True))
    assert x.shape == y.shape == (2**20, 2**20) and x.is_meta and y.grad_fn is not None


@pytest.mark.parametrize("shapes_", [
    ((3, 1), (4,), ()), ((2, 1), 5), ((0, 1), (3,)), (), ((2, 3),), (mt.Size([1, 2]), [3, 1]),
    (1, 1, (2, 1, 1)),
])
def test_broadcast_shapes_as_torch(shapes_):
    torch = _torch()
    ours = mt.broadcast_shapes(*shapes_)
    theirs = torch.broadcast_shapes(*[tuple(s) if isinstance(s, (list, mt.Size)) else s
                                      for s in shapes_])
    assert isinstance(ours, mt.Size) and tuple(ours) == tuple(theirs)


@pytest.mark.parametrize("call, message", [
    (lambda T: T.broadcast_shapes((3,), (4,)),
     "broadcast_shapes: shape (4,) at index 1 cannot be broadcast with the shape (3,) of the "
     "shapes before it: trailing dimensions must be equal or 1"),
    (lambda T: T.broadcast_shapes((2,), (-1,)),
     "broadcast_shapes: sizes cannot be negative, but got (-1,) at index 1"),
    (lambda T: T.broadcast_shapes((2,), 2.5),
     "broadcast_shapes: expected each shape to be an int or a tuple of ints, but got 2.5 at "
     "index 1"),
    (lambda T: T.broadcast_tensors(T.ones(3), T.ones(2, 4)),
     "broadcast_tensors: shapes (3,) and (2, 4) cannot be broadcast together: trailing "
     "dimensions must be equal or 1"),
    (lambda T: T.ones(3) + T.ones(4),
     "add: shapes (3,) and (4,) cannot be broadcast together: trailing dimensions must be "
     "equal or 1"),
    (lambda T: T.ones(2, 3).expand(4, 3),
     "expand: the expanded size (4, 3) must match the existing size (2, 3) at every "
     "non-singleton dimension"),
    (lambda T: T.ones(2, 3).expand(3),
     "expand: the number of sizes provided (1) must be greater or equal to the number of "
     "dimensions in the tensor (2): (3,) for a tensor of shape (2, 3)"),
    (lambda T: T.ones(2, 3).expand(-1, 2, 3),
     "expand: -1 is not allowed in a leading, non-existing dimension: (-1, 2, 3) for a tensor "
     "of shape (2, 3)"),
    (lambda T: T.ones(2, 3).masked_fill(T.ones(3, 3, dtype=T.bool), 0.0),
     "masked_fill: mask of shape (3, 3) cannot be broadcast with the input of shape (2, 3): "
     "trailing dimensions must be equal or 1"),
])
def test_shape_errors_are_runtime_errors_as_in_torch(call, message):
    torch = _torch()
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError) as info:  # PyTorch's type ...
        call(mt)
    # ... and still a ShapeError (a ValueError) with our message
    assert isinstance(info.value, mt.ShapeError) and isinstance(info.value, ValueError)
    assert isinstance(info.value, mt.ShapeRuntimeError)
    assert str(info.value) == message


def test_expand_errors_on_meta_as_on_cpu():
    for device in ("cpu", "meta"):
        with pytest.raises(mt.ShapeRuntimeError, match="expand: the expanded size"):
            mt.ones(2, 3, device=device).expand(2, 4)


@pytest.mark.parametrize("call, error, message", [
    (lambda T: T.broadcast_tensors(T.ones(2), 3), TypeError,
     "broadcast_tensors(): expected Tensor as element 1 in argument 0, but got int"),
    (lambda T: T.ones(2).type_as(3), TypeError,
     "type_as(): argument 'other' (position 1) must be Tensor, not int"),
    (lambda T: T.where(T.ones(2, dtype=T.bool), T.ones(2), "a"), TypeError,
     "where(): argument 'other' (position 3) must be Tensor or Number, not str"),
    (lambda T: T.where(T.ones(2, dtype=T.bool), None, 1.0), TypeError,
     "where(): argument 'input' (position 2) must be Tensor or Number, not NoneType"),
    (lambda T: T.where([True], 1.0, 0.0), TypeError,
     "where(): argument 'condition' (position 1) must be Tensor, not list"),
    (lambda T: T.where(T.ones(2, dtype=T.int32), 1.0, 0.0), RuntimeError,
     "where: expected condition to be a bool tensor, got dtype torch.int32"),
    (lambda T: T.where(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.uint8), 300), RuntimeError,
     "where: value cannot be converted to type torch.uint8 without overflow (value=300)"),
])
def test_argument_errors_have_torchs_types(call, error, message):
    torch = _torch()
    with pytest.raises(error):
        call(torch)
    for device in ("cpu", "meta"):
        with mt.device(device), pytest.raises(error) as info:
            call(mt)
        assert str(info.value).startswith(message), (device, str(info.value))


def test_type_as_converts_and_keeps_the_graph():
    torch = _torch()
    x = mt.tensor([1.5, 2.5], requires_grad=True)
    tx = torch.tensor([1.5, 2.5], requires_grad=True)
    ours, theirs = x.type_as(mt.ones(1, dtype=mt.float64)), tx.type_as(torch.ones(
        1, dtype=torch.float64))
    assert ours.dtype is mt.float64 and ours.grad_fn.name() == theirs.grad_fn.name()
    (ours * 3).sum().backward()
    assert x.grad.dtype is mt.float32 and x.grad.tolist() == [3.0, 3.0]
    assert x.type_as(mt.ones(1)) is x  # the same dtype: the tensor itself, as in PyTorch
    assert mt.tensor([1.7, -2.2]).type_as(mt.ones(1, dtype=mt.int64)).tolist() == [1, -2]
