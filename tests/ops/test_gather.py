"""index_select and gather: values, scatter-added gradients of repeated picks, dtypes, errors."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4)
CASES = [
    Case("index_select_repeats", lambda T, F, a, i: a.index_select(0, i),
         [Arg(S), Arg((7,), "int:3")]),
    Case("index_select_last_dim", lambda T, F, a, i: T.index_select(a, -1, i) * 2,
         [Arg(S), Arg((6,), "int:4")]),
    Case("index_select_middle_dim", lambda T, F, a, i: a.index_select(1, i),
         [Arg((2, 5, 3)), Arg((4,), "int:5")]),
    Case("index_select_0d_index", lambda T, F, a, i: a.index_select(1, i),
         [Arg(S), Arg((), "int:4")]),
    Case("index_select_empty_index", lambda T, F, a, i: a.index_select(0, i),
         [Arg(S), Arg((0,), "int:3")]),
    Case("index_select_int32_index", lambda T, F, a, i: a.index_select(1, i.int()),
         [Arg(S), Arg((5,), "int:4")]),
    Case("index_select_0d_input", lambda T, F, a, i: a.index_select(0, i),
         [Arg(()), Arg((1,), "int:1")]),
    Case("index_select_int_input", lambda T, F, a, i: a.index_select(0, i),
         [Arg(S, "int:9"), Arg((4,), "int:3")]),
    Case("gather", lambda T, F, a, i: a.gather(1, i), [Arg(S), Arg((3, 6), "int:4")]),
    Case("gather_function", lambda T, F, a, i: T.gather(a, 0, i),
         [Arg(S), Arg((5, 2), "int:3")]),
    Case("gather_last_dim_3d", lambda T, F, a, i: a.gather(-1, i).sum(1),
         [Arg((2, 3, 4)), Arg((2, 2, 5), "int:4")]),
    Case("gather_int32_index", lambda T, F, a, i: a.gather(1, i.int()),
         [Arg(S), Arg((2, 2), "int:4")]),
    Case("gather_empty_index", lambda T, F, a, i: a.gather(1, i), [Arg(S), Arg((3, 0), "int:4")]),
    Case("gather_0d", lambda T, F, a, i: a.gather(0, i), [Arg(()), Arg((), "int:1")]),
    Case("gather_0d_input_1d_index", lambda T, F, a, i: a.gather(0, i),
         [Arg(()), Arg((3,), "int:1")]),
    Case("gather_bool_input", lambda T, F, a, i: a.gather(0, i),
         [Arg(S, "bool"), Arg((2, 4), "int:3")]),
    # cross-entropy's pick of each row's target, as people write it by hand
    Case("gather_targets_then_mean", lambda T, F, a, i: -a.log_softmax(1).gather(1, i).mean(),
         [Arg(S), Arg((3, 1), "int:4")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_repeated_picks_add_their_gradients(device):
    x = mt.zeros(2, 3, device=device, requires_grad=True)
    index = mt.tensor([[2, 2, 0], [1, 1, 1]], device=device)
    x.gather(1, index).backward(mt.tensor([[1.0, 2.0, 4.0], [1.0, 2.0, 3.0]], device=device))
    assert x.grad.tolist() == [[4.0, 0.0, 3.0], [0.0, 6.0, 0.0]]
    x.grad = None
    x.index_select(1, mt.tensor([0, 0, 2], device=device)).sum().backward()
    assert x.grad.tolist() == [[2.0, 0.0, 1.0], [2.0, 0.0, 1.0]]


@pytest.mark.parametrize("op", ["index_select", "gather"])
@pytest.mark.parametrize("position", [-1, 3, 100])
def test_positions_out_of_range_raise_pytorchs_error_on_data_devices(op, position, device):
    x = mt.ones(2, 3, device=device)
    index = mt.tensor([0, position] if op == "index_select" else [[0, position]], device=device)
    with pytest.raises(RuntimeError) as info:
        getattr(x, op)(1, index)
    assert str(info.value) == (f"{op}(): index {position} is out of bounds for dimension 1 "
                               "with size 3")


def test_meta_has_no_values_to_check_and_keeps_shapes():
    x = mt.empty(2**30, 2**20, device="meta", requires_grad=True)
    index = mt.empty(2**30, 7, dtype=mt.int64, device="meta")
    picked = x.gather(1, index)
    selected = x.index_select(0, mt.empty(5, dtype=mt.int32, device="meta"))
    (picked.sum() + selected.sum()).backward()
    assert picked.shape == (2**30, 7) and selected.shape == (5, 2**20)
    assert picked.grad_fn.name() == "GatherBackward0"
    assert selected.grad_fn.name() == "IndexSelectBackward0"
    assert x.grad.is_meta and x.grad.shape == x.shape


def test_the_saved_index_changed_in_place_is_detected():
    x = mt.ones(3, requires_grad=True)
    index = mt.tensor([0, 2])
    y = x.index_select(0, index)
    with mt.no_grad():
        index.add_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def _index(x, values, dtype=mt.int64):
    return mt.tensor(values, dtype=dtype, device=x.device)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.index_select(0, _index(x, [0], mt.uint8)), RuntimeError,
     "index_select(): Expected dtype int32 or int64 for index, but got torch.uint8; convert it "
     "with .long()"),
    (lambda x: x.index_select(0, _index(x, [[0]])), IndexError,
     "index_select(): Index is supposed to be a vector, but got an index of shape (1, 1); "
     "flatten it first"),
    (lambda x: x.index_select(3, _index(x, [0])), IndexError,
     "index_select: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.sum().index_select(0, _index(x, [0, 0])), RuntimeError,
     "index_select(): Index to scalar can have only 1 value, got 2 value(s)"),
    (lambda x: mt.index_select(x, 0, [0]), TypeError,
     "index_select(): argument 'index' must be Tensor, not list; make one with "
     "torch.tensor(..., dtype=torch.long)"),
    (lambda x: x.index_select(0.0, _index(x, [0])), TypeError,
     "index_select(): argument 'dim' must be int, not float"),
    (lambda x: x.gather(0, _index(x, [[[0]]], mt.float32)), RuntimeError,
     "gather(): Expected dtype int32/int64 for index, but got torch.float32; convert it with "
     ".long()"),
    (lambda x: x.gather(0, _index(x, [[0]])), RuntimeError,
     "gather(): Index tensor must have the same number of dimensions as input tensor, but got "
     "an index of shape (1, 1) for an input of shape (2, 3, 4)"),
    (lambda x: x.gather(1, _index(x, [[[0]]] * 3)), RuntimeError,
     "gather(): Size does not match at dimension 0 expected index (3, 1, 1) to be no larger "
     "than self (2, 3, 4) apart from dimension 1"),
    (lambda x: x.gather(-4, _index(x, [[[0]]])), IndexError,
     "gather: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: x.gather(0, _index(x, [[[0]]]), sparse_grad=True), NotImplementedError,
     "gather(): sparse_grad=True is not supported (minitorch_meta has no sparse tensors); leave "
     "it False for a dense gradient"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
