"""masked_select, masked_scatter, take, take_along_dim, put and index_put (and their in-place
forms): values, gradients, repeated positions, negative positions, errors, meta."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4)


def _ix(T, like, data, dtype=None):
    """An index tensor on ``like``'s device (meta under the meta check)."""
    return T.tensor(data, device=like.device, dtype=T.long if dtype is None else dtype)


CASES = [
    # masked_select: the length depends on the mask's values (no meta)
    Case("masked_select", lambda T, F, a, m: a.masked_select(m), [Arg(S), Arg(S, "bool")],
         meta=False),
    Case("masked_select_function_row_mask", lambda T, F, a, m: T.masked_select(a, m) * 2,
         [Arg(S), Arg((4,), "bool")], meta=False),
    Case("masked_select_input_broadcasts", lambda T, F, a, m: a.masked_select(m),
         [Arg((4,)), Arg((2, 3, 4), "bool")], meta=False),
    Case("masked_select_0d", lambda T, F, a: a.masked_select(a > -10), [Arg(())], meta=False),
    Case("masked_select_int_input", lambda T, F, a, m: a.masked_select(m),
         [Arg(S, "int:9"), Arg(S, "bool")], meta=False),
    # masked_scatter: source read flat in C order, its unread tail gets zero gradients
    Case("masked_scatter", lambda T, F, a, m, s: a.masked_scatter(m, s),
         [Arg(S), Arg(S, "bool"), Arg((12,))]),
    Case("masked_scatter_function_2d_source", lambda T, F, a, m, s: T.masked_scatter(a, m, s),
         [Arg(S), Arg(S, "bool"), Arg((5, 3))]),
    Case("masked_scatter_row_mask", lambda T, F, a, m, s: a.masked_scatter(m, s),
         [Arg(S), Arg((4,), "bool"), Arg((13,))]),
    Case("masked_scatter_input_broadcasts", lambda T, F, a, m, s: a.masked_scatter(m, s),
         [Arg((4,)), Arg(S, "bool"), Arg((12,))]),
    Case("masked_scatter_source_constant", lambda T, F, a, m, s: a.masked_scatter(m, s),
         [Arg(S), Arg(S, "bool"), Arg((12,), grad=False)]),
    Case("masked_scatter_0d", lambda T, F, a, s: a.masked_scatter(a > -10, s),
         [Arg(()), Arg((2,))]),
    # take: flat positions, negative ones from the end, repeats add their gradients
    Case("take", lambda T, F, a, i: a.take(i - 6), [Arg(S), Arg((2, 5), "int:12")]),
    Case("take_function_0d_index", lambda T, F, a, i: T.take(a, i), [Arg((2, 3, 2)),
                                                                     Arg((), "int:12")]),
    Case("take_0d_input", lambda T, F, a, i: a.take(i - 1), [Arg(()), Arg((4,), "int:2")]),
    Case("take_empty_index", lambda T, F, a, i: a.take(i), [Arg(S), Arg((0, 3), "int:12")]),
    Case("take_non_contiguous", lambda T, F, a, i: a.t().take(i), [Arg(S), Arg((7,), "int:12")]),
    # take_along_dim: gather after broadcasting (PyTorch's own composition)
    Case("take_along_dim_flat", lambda T, F, a, i: T.take_along_dim(a, i),
         [Arg(S), Arg((7,), "int:12")]),
    Case("take_along_dim_flat_2d_index", lambda T, F, a, i: a.take_along_dim(i, None),
         [Arg((2, 3, 2)), Arg((3, 3), "int:12")]),
    Case("take_along_dim", lambda T, F, a, i: a.take_along_dim(i, 1),
         [Arg((3, 4, 5)), Arg((3, 2, 5), "int:4")]),
    Case("take_along_dim_negative_dim", lambda T, F, a, i: T.take_along_dim(a, i, dim=-1),
         [Arg(S), Arg((3, 6), "int:4")]),
    Case("take_along_dim_broadcasts_both", lambda T, F, a, i: a.take_along_dim(i, 1),
         [Arg((3, 4, 1)), Arg((1, 2, 5), "int:4")]),
    Case("take_along_dim_argsort", lambda T, F, a: a.take_along_dim(a.argsort(dim=1), dim=1),
         [Arg(S, "distinct")]),
    Case("take_along_dim_0d", lambda T, F, a, i: a.take_along_dim(i), [Arg(()),
                                                                       Arg((3,), "int:1")]),
    # put: distinct positions without accumulate (PyTorch leaves repeats' winner open)
    Case("put", lambda T, F, a, s: a.put(_ix(T, a, [0, -1, 5, 3]), s), [Arg(S), Arg((4,))]),
    Case("put_function_2d_source", lambda T, F, a, s: T.put(a, _ix(T, a, [[1, 7], [-12, 2]]),
                                                            s),
         [Arg(S), Arg((4,))]),
    Case("put_source_shape_differs", lambda T, F, a, s: a.put(_ix(T, a, [[4], [9], [-2]]), s),
         [Arg(S), Arg((3,))]),
    Case("put_accumulate_repeats", lambda T, F, a, i, s: a.put(i - 6, s, accumulate=True),
         [Arg(S), Arg((9,), "int:12"), Arg((3, 3))]),
    Case("put_accumulate_positional", lambda T, F, a, s: T.put(a, _ix(T, a, [2, 2, -5]), s,
                                                               True),
         [Arg((2, 3)), Arg((3,))]),
    Case("put_0d", lambda T, F, a, s: a.put(_ix(T, a, [-1]), s), [Arg(()), Arg((1,))]),
    Case("put_int_input", lambda T, F, a, s: a.put(_ix(T, a, [0, 3]), s),
         [Arg(S, "int:9"), Arg((2,), "int:9")]),
    # index_put: a tuple of integer tensors and masks; values broadcast to the selection
    Case("index_put", lambda T, F, a, v: a.index_put((_ix(T, a, [0, 2]), _ix(T, a, [1, -1])),
                                                     v),
         [Arg(S), Arg((2,))]),
    Case("index_put_function_list", lambda T, F, a, v: T.index_put(a, [_ix(T, a, [2, 0, 1])],
                                                                   v),
         [Arg(S), Arg((3, 4))]),
    Case("index_put_values_broadcast", lambda T, F, a, v: a.index_put((_ix(T, a, [[0], [2]]),
                                                                       _ix(T, a, [1, 3, 0])), v),
         [Arg(S), Arg((1, 3))]),
    Case("index_put_0d_values_rows", lambda T, F, a, v: a.index_put((_ix(T, a, [-1, 0]),), v),
         [Arg(S), Arg(())]),
    Case("index_put_accumulate_repeats", lambda T, F, a, r, c, v: a.index_put((r, c - 4), v,
                                                                              accumulate=True),
         [Arg(S), Arg((8,), "int:3", grad=False), Arg((8,), "int:4", grad=False), Arg((8,))]),
    Case("index_put_accumulate_rows_positional", lambda T, F, a, r, v: T.index_put(
        a, (r,), v, True), [Arg((3, 2, 2)), Arg((5,), "int:3"), Arg((2,))]),
    Case("index_put_mask", lambda T, F, a, v: a.index_put((a > 0,), v), [Arg(S), Arg(())]),
    Case("index_put_mask_accumulate", lambda T, F, a, v: a.index_put((a > 0,), v, True),
         [Arg(S), Arg((1,))]),
    Case("index_put_row_mask_and_ints", lambda T, F, a, v: a.index_put(
        (_ix(T, a, [0, 2]), _ix(T, a, [True, False, False, True], T.bool)), v),
         [Arg(S), Arg(())]),
    Case("index_put_mask_over_two_dims", lambda T, F, a, v: a.index_put((a[:, :, 0] > 0,), v),
         [Arg((3, 4, 2)), Arg((2,))]),
    Case("index_put_int32_index", lambda T, F, a, v: a.index_put(
        (_ix(T, a, [1, 2], T.int32),), v), [Arg(S), Arg((4,))]),
    Case("index_put_empty_index", lambda T, F, a, v: a.index_put((_ix(T, a, []),), v),
         [Arg(S), Arg(())]),
    Case("index_put_0d_index", lambda T, F, a, v: a.index_put((_ix(T, a, 1),), v),
         [Arg(S), Arg((4,))]),
    Case("index_put_int_input", lambda T, F, a, v: a.index_put((_ix(T, a, [1, 1]),), v, True),
         [Arg(S, "int:9"), Arg((4,), "int:9")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def test_grad_fn_names():
    x = mt.zeros(2, 3, requires_grad=True)
    mask, index = mt.tensor([True, False, True]), mt.tensor([0, 1])
    assert x.masked_select(mask).grad_fn.name() == "MaskedSelectBackward0"
    assert x.masked_scatter(mask, mt.ones(6)).grad_fn.name() == "MaskedScatterBackward0"
    assert x.take(index).grad_fn.name() == "TakeBackward0"
    assert x.take_along_dim(index).grad_fn.name() == "GatherBackward0"
    assert x.take_along_dim(index[None], 1).grad_fn.name() == "GatherBackward0"
    assert x.put(index, mt.ones(2)).grad_fn.name() == "PutBackward0"
    assert x.put(index, mt.ones(2), True).grad_fn.name() == "PutBackward0"
    assert x.index_put((index,), mt.ones(3)).grad_fn.name() == "IndexPutBackward0"
    assert x.index_put((index,), mt.ones(3), True).grad_fn.name() == "IndexPutBackward0"


def test_repeated_positions_with_accumulate_add_up(device):
    x = mt.zeros(2, 3, device=device)
    index = mt.tensor([4, 4, -2, 0], device=device)
    source = mt.tensor([1.0, 2.0, 4.0, 8.0], device=device)
    assert x.put(index, source, accumulate=True).tolist() == [[8, 0, 0], [0, 7, 0]]
    rows = mt.tensor([1, 1, 0], device=device)
    out = x.index_put((rows,), mt.tensor([[1.0], [2.0], [4.0]], device=device), accumulate=True)
    assert out.tolist() == [[4, 4, 4], [3, 3, 3]]


def test_repeated_picks_add_their_gradients(device):
    x = mt.zeros(2, 3, device=device, requires_grad=True)
    x.take(mt.tensor([[1, 1], [-5, 5]], device=device)).sum().backward()
    assert x.grad.tolist() == [[0, 3, 0], [0, 0, 1]]
    values = mt.ones(3, device=device, requires_grad=True)
    rows = mt.tensor([0, 0, 1], device=device)
    mt.zeros(2, 3, device=device).index_put((rows, rows), values).sum().backward()
    assert values.grad.tolist() == [1, 1, 1]  # PyTorch: every pick's gradient, repeats too


def test_put_source_gradient_is_the_output_gradient_at_each_position():
    torch = _torch()
    for accumulate in (False, True):
        x, tx = mt.zeros(5, requires_grad=True), torch.zeros(5, requires_grad=True)
        s, ts = mt.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
        weights = [1.0, 2.0, 3.0, 4.0, 5.0]
        x.put(mt.tensor([1, 1, 4]), s, accumulate).backward(mt.tensor(weights))
        tx.put(torch.tensor([1, 1, 4]), ts, accumulate).backward(torch.tensor(weights))
        assert x.grad.tolist() == tx.grad.tolist() and s.grad.tolist() == ts.grad.tolist()


def test_masked_scatter_reads_the_source_in_order_and_ignores_its_tail(device):
    x = mt.zeros(2, 3, device=device)
    mask = mt.tensor([[True, False, True], [False, True, False]], device=device)
    source = mt.arange(10.0, 18.0, device=device).reshape(2, 4).requires_grad_()
    out = x.masked_scatter(mask, source)
    assert out.tolist() == [[10, 0, 11], [0, 12, 0]]
    out.backward(mt.full((2, 3), 2.0, device=device))
    assert source.grad.tolist() == [[2, 2, 2, 0], [0, 0, 0, 0]]


def test_masked_select_reads_in_c_order_with_broadcasting(device):
    x = mt.arange(6.0, device=device).reshape(2, 3)
    assert x.masked_select(mt.tensor([True, False, True], device=device)).tolist() == [0, 2, 3, 5]
    assert x.masked_select(mt.zeros(2, 3, dtype=mt.bool, device=device)).shape == (0,)
    empty = mt.zeros(0, 3, device=device)
    assert empty.masked_select(mt.tensor([True, False, True], device=device)).shape == (0,)


def test_masked_select_on_meta_refuses_after_the_shape_checks():
    x = mt.empty(2, 3, device="meta")
    with pytest.raises(NotImplementedError, match="masked_select: the number of True elements "
                                                  "of a meta mask"):
        x.masked_select(mt.empty(3, dtype=mt.bool, device="meta"))
    with pytest.raises(mt.errors.DataDependentShapeError):
        mt.masked_select(x, mt.empty(2, 3, dtype=mt.bool, device="meta"))
    with pytest.raises(RuntimeError, match="expected BoolTensor for mask"):
        x.masked_select(mt.empty(3, device="meta"))


def test_index_put_with_a_meta_mask_gives_the_input_shape():
    x = mt.empty(2**20, 2**10, device="meta", requires_grad=True)
    out = x.index_put((mt.empty(2**20, dtype=mt.bool, device="meta"),),
                      mt.empty(2**10, device="meta", requires_grad=True))
    assert out.shape == x.shape and out.is_meta
    out.sum().backward()
    assert x.grad.shape == x.shape and x.grad.is_meta
    with pytest.raises(RuntimeError, match=r"value tensor of shape \[3\] cannot be broadcast to "
                                           r"indexing result of shape \[1, 1024\] \(a meta "
                                           "mask's number of True elements is unknown"):
        x.index_put((mt.empty(2**20, dtype=mt.bool, device="meta"),), mt.empty(3, device="meta"))


def test_empty_inputs_and_indices(device):
    empty = mt.zeros(0, device=device)
    no_positions = mt.zeros(0, dtype=mt.long, device=device)
    assert empty.take(no_positions).shape == (0,)
    assert empty.put(no_positions, mt.zeros(0, device=device)).shape == (0,)
    assert empty.take_along_dim(no_positions).shape == (0,)
    x = mt.ones(2, 3, device=device)
    assert x.index_put((no_positions,), mt.tensor(5.0, device=device)).tolist() == x.tolist()
    assert x.masked_scatter(mt.zeros(3, dtype=mt.bool, device=device),
                            mt.zeros(0, device=device)).tolist() == x.tolist()


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.take(mt.tensor([6])), IndexError,
     "take(): out of range: tried to access index 6 on a tensor of 6 elements (positions run "
     "from -6 to 5)"),
    (lambda x: x.take(mt.tensor([0, -7])), IndexError,
     "take(): out of range: tried to access index -7 on a tensor of 6 elements"),
    (lambda x: x.put(mt.tensor([1, 6]), mt.ones(2)), IndexError,
     "put_(): out of range: tried to access index 6 on a tensor of 6 elements"),
    (lambda x: x.put_(mt.tensor([-7]), mt.ones(1)), IndexError,
     "put_(): out of range: tried to access index -7 on a tensor of 6 elements"),
    (lambda x: x.index_put((mt.tensor([2]),), mt.tensor(1.0)), IndexError,
     "index 2 is out of bounds for dimension 0 with size 2"),
    (lambda x: x.index_put((mt.tensor([0]), mt.tensor([-4])), mt.tensor(1.0)), IndexError,
     "index -4 is out of bounds for dimension 1 with size 3"),
    (lambda x: x.take_along_dim(mt.tensor([[0, 3]]), 1), RuntimeError,
     "gather(): index 3 is out of bounds for dimension 1 with size 3"),
    (lambda x: x.take_along_dim(mt.tensor([-1])), RuntimeError,
     "gather(): index -1 is out of bounds for dimension 0 with size 6"),
    (lambda x: x.masked_scatter(x > 0, mt.ones(4)), RuntimeError,
     "masked_scatter: Number of elements of source < number of ones in mask: the mask holds 5 "
     "True element(s) but source has 4 element(s)"),
])
def test_positions_out_of_range_on_data_devices(call, error, message):
    x = mt.arange(6.0).reshape(2, 3)
    with pytest.raises(error) as info:
        call(x)
    assert str(info.value).startswith(message)


def test_out_of_range_errors_have_torch_types():
    torch = _torch()
    tx = torch.arange(6.0).reshape(2, 3)
    with pytest.raises(IndexError):
        tx.take(torch.tensor([6]))
    with pytest.raises(IndexError):
        tx.put(torch.tensor([-7]), torch.ones(1))
    with pytest.raises(IndexError):
        tx.index_put((torch.tensor([2]),), torch.tensor(1.0))
    # (PyTorch 2.13's take_along_dim does not check: ``take_along_dim(tensor([[0, 3]]), 1)``
    # reads position 3 of a dim of 3 as 0; we raise gather's error, docs/differences.md.)
    with pytest.raises(RuntimeError):
        tx.gather(1, torch.tensor([[0, 3]]))
    with pytest.raises(RuntimeError):
        tx.masked_scatter(tx > 0, torch.ones(4))


M = (2, 3)  # the input shape of the error cases below


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.masked_select(mt.ones(3, device=x.device)), RuntimeError,
     "masked_select: expected BoolTensor for mask, but got mask with dtype torch.float32; make "
     "one with a comparison (x > 0) or .bool()"),
    (lambda x: x.masked_select(mt.ones(2, 2, dtype=mt.bool, device=x.device)), mt.ShapeError,
     "masked_select: mask of shape (2, 2) cannot be broadcast with the input of shape (2, 3): "
     "trailing dimensions must be equal or 1"),
    (lambda x: x.masked_scatter(mt.ones(3, dtype=mt.int32, device=x.device), x), RuntimeError,
     "masked_scatter_ only supports boolean masks, but got mask with dtype torch.int32; make "
     "one with a comparison (x > 0) or .bool()"),
    (lambda x: x.masked_scatter(x > 0, x.double()), RuntimeError,
     "masked_scatter: expected self and source to have same dtypes but got torch.float32 and "
     "torch.float64; convert source with .to(torch.float32)"),
    (lambda x: x.masked_scatter(mt.ones(4, dtype=mt.bool, device=x.device), x), mt.ShapeError,
     "masked_scatter: mask of shape (4,) cannot be broadcast with the input of shape (2, 3): "
     "trailing dimensions must be equal or 1"),
    (lambda x: x.take(mt.ones(2, dtype=mt.int32, device=x.device)), RuntimeError,
     "take(): Expected a long tensor for index, but got torch.int32; convert it with .long()"),
    (lambda x: x[:0].take(mt.ones(2, dtype=mt.long, device=x.device)), IndexError,
     "take(): tried to take from an empty tensor (shape (0, 3)) with a non-empty index of "
     "shape (2,)"),
    (lambda x: x.put(mt.ones(2, dtype=mt.int32, device=x.device), x[0, :2]), RuntimeError,
     "put_(): Expected a long tensor for index, but got torch.int32; convert it with .long()"),
    (lambda x: x.put(mt.ones(2, dtype=mt.long, device=x.device), x[0, :2].double()),
     RuntimeError, "put_(): self and source expected to have the same dtype, but got "
     "self.dtype = torch.float32 and source.dtype = torch.float64; convert source with "
     ".to(torch.float32)"),
    (lambda x: x.put(mt.ones(2, 2, dtype=mt.long, device=x.device), x[0]), IndexError,
     "put_(): Expected source and index to have the same number of elements, but got "
     "source.numel() = 3, index.numel() = 4"),
    (lambda x: x[:0].put(mt.ones(1, dtype=mt.long, device=x.device), x[0, :1]), IndexError,
     "put_(): Tried to put elements into an empty tensor (shape (0, 3)) at a non-empty index "
     "of shape (1,)"),
    (lambda x: x.take_along_dim(mt.ones(2, dtype=mt.long, device=x.device), 0), RuntimeError,
     "torch.take_along_dim(): input and indices should have the same number of dimensions, "
     "but got 2 dimensions for input, and 1 dimensions for indices"),
    (lambda x: x.take_along_dim(mt.ones(2, 2, dtype=mt.int32, device=x.device), 0),
     RuntimeError, "torch.take_along_dim(): dtype of indices should be Long but got "
     "torch.int32; convert them with .long()"),
    (lambda x: x.take_along_dim(mt.ones(1, 2, dtype=mt.long, device=x.device), 0),
     mt.ShapeError, "take_along_dim: input and indices must broadcast together along every dim "
     "but dim 0, but got shapes (2, 3) and (1, 2)"),
    (lambda x: x.take_along_dim(mt.ones(2, 2, dtype=mt.long, device=x.device), 2), IndexError,
     "take_along_dim: Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x: x[0, 0].take_along_dim(mt.ones((), dtype=mt.long, device=x.device), 0),
     IndexError, "take_along_dim(): Dimension specified as 0 but tensor has no dimensions; "
     "leave dim=None for a 0-d input"),
    (lambda x: x.index_put((mt.ones(2, device=x.device),), x[0]), IndexError,
     "tensors used as indices must be long, int or bool tensors, but index 0 is torch.float32; "
     "convert it with .long()"),
    (lambda x: x.index_put((mt.ones(2, dtype=mt.uint8, device=x.device),), x[0]), RuntimeError,
     "index_put(): indexing with a uint8 tensor is not supported (PyTorch no longer reads it "
     "as a mask); convert the mask with .bool(), or the positions with .long()"),
    (lambda x: x.index_put((x[0].long(),) * 3, x[0, 0]), IndexError,
     "too many indices for tensor of dimension 2 (got 3)"),
    (lambda x: x.index_put((x > 0, x[0].long()), x[0, 0]), IndexError,
     "too many indices for tensor of dimension 2 (got 3)"),
    (lambda x: x.index_put((x[:, 0] > 0, x[:, 0] > 0), x[0, 0]), IndexError,
     "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor "
     "[2, 3] at index 1"),
    (lambda x: x.index_put((x[0].long(), x[0, :2].long()), x[0, 0]), IndexError,
     "shape mismatch: indexing tensors could not be broadcast together with shapes [3], [2]"),
    (lambda x: x.index_put((x[0].long(),), x[0, :2]), RuntimeError,
     "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of "
     "shape [3, 3]"),
    (lambda x: x.index_put((x[0].long(),), x.double()), RuntimeError,
     "Index put requires the source and destination dtypes match, got torch.float32 for the "
     "destination and torch.float64 for the source; convert values with .to(torch.float32)"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message, shape=M)


def test_the_same_errors_have_torch_types():
    torch = _torch()
    x = torch.ones(M)
    for call, error in [
        (lambda: x.masked_select(torch.ones(3)), RuntimeError),
        (lambda: x.masked_scatter(x > 0, x.double()), RuntimeError),
        (lambda: x.take(torch.ones(2, dtype=torch.int32)), RuntimeError),
        (lambda: x[:0].take(torch.ones(2, dtype=torch.long)), IndexError),
        (lambda: x.put(torch.ones(2, 2, dtype=torch.long), x[0]), IndexError),
        (lambda: x.put(torch.ones(2, dtype=torch.long), x[0, :2].double()), RuntimeError),
        (lambda: x.take_along_dim(torch.ones(2, dtype=torch.long), 0), RuntimeError),
        (lambda: x.take_along_dim(torch.ones(1, 2, dtype=torch.long), 0), RuntimeError),
        (lambda: x.take_along_dim(torch.ones(2, 2, dtype=torch.long), 2), IndexError),
        (lambda: x.index_put((torch.ones(2),), x[0]), IndexError),
        (lambda: x.index_put((x[0].long(),) * 3, x[0, 0]), IndexError),
        (lambda: x.index_put((x[:, 0] > 0, x[:, 0] > 0), x[0, 0]), IndexError),
        (lambda: x.index_put((x[0].long(), x[0, :2].long()), x[0, 0]), IndexError),
        (lambda: x.index_put((x[0].long(),), x[0, :2]), RuntimeError),
        (lambda: x.index_put((x[0].long(),), x.double()), RuntimeError),
    ]:
        with pytest.raises(error):
            call()


@pytest.mark.parametrize("call, message", [
    (lambda x: mt.masked_select(x, [True]),
     "masked_select(): argument 'mask' (position 2) must be Tensor, not list"),
    (lambda x: x.masked_scatter(x > 0, 3.0),
     "masked_scatter(): argument 'source' (position 3) must be Tensor, not float"),
    (lambda x: mt.take(x, [0, 1]), "take(): argument 'index' must be Tensor, not list"),
    (lambda x: x.take_along_dim([0], 1),
     "take_along_dim(): argument 'index' must be Tensor, not list"),
    (lambda x: x.take_along_dim(mt.tensor([[0]]), 1.5),
     "take_along_dim(): argument 'dim' must be int, not float"),
    (lambda x: x.put(mt.tensor([0]), 3.0),
     "put(): argument 'source' (position 3) must be Tensor, not float"),
    (lambda x: x.index_put((mt.tensor([0]),), 3.0),
     "index_put(): argument 'values' (position 3) must be Tensor, not float"),
    (lambda x: x.index_put(mt.tensor([0]), x),
     "index_put(): argument 'indices' (position 2) must be tuple of Tensors, not Tensor"),
    (lambda x: mt.index_put(x, (None, mt.tensor([0])), x[0, 0]),
     "index_put(): expected Tensor as element 0 in argument 'indices', but got NoneType"),
])
def test_arguments_of_the_wrong_type(call, message):
    with pytest.raises(TypeError) as info:
        call(mt.ones(M))
    assert str(info.value).startswith(message)


IN_PLACE = [
    ("masked_scatter_", lambda T, x: (x > 2, T.arange(10.0, 16.0))),
    ("put_", lambda T, x: (T.tensor([0, -1, 4]), T.tensor([7.0, 8.0, 9.0]))),
    ("put_", lambda T, x: (T.tensor([1, 1, -5]), T.tensor([7.0, 8.0, 9.0]), True)),
    ("index_put_", lambda T, x: ((T.tensor([1, 0]), T.tensor([2, -1])), T.tensor([5.0, 6.0]))),
    ("index_put_", lambda T, x: ((T.tensor([1, 1]),), T.tensor(5.0), True)),
    ("index_put_", lambda T, x: ((x > 2,), T.tensor(-1.0))),
]


@pytest.mark.parametrize("name, args", IN_PLACE, ids=[f"{n}{i}" for i, (n, _) in
                                                        enumerate(IN_PLACE)])
def test_in_place_forms_match_torch_and_bump_the_version(name, args):
    torch = _torch()
    x, tx = mt.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    returned = getattr(x, name)(*args(mt, x))
    getattr(tx, name)(*args(torch, tx))
    assert returned is x and x._version == 1
    np.testing.assert_array_equal(x.numpy(), tx.numpy())


def test_index_put_in_place_is_a_module_function_too():
    x = mt.zeros(3)
    assert mt.index_put_(x, (mt.tensor([2]),), mt.tensor(4.0)) is x
    assert x.tolist() == [0, 0, 4] and x._version == 1


def test_in_place_on_meta_keeps_the_tensor():
    x = mt.empty(2**20, 2**10, device="meta")
    index = mt.empty(5, dtype=mt.long, device="meta")
    assert x.put_(index, mt.empty(5, device="meta")) is x
    assert x.index_put_((index,), mt.empty(2**10, device="meta"), True) is x
    assert x.masked_scatter_(mt.empty(2**10, dtype=mt.bool, device="meta"),
                             mt.empty(2**30, device="meta")) is x


@pytest.mark.parametrize("call", [
    lambda x, v: x.masked_scatter_(mt.tensor([True, False, True]), v),
    lambda x, v: x.put_(mt.tensor([0]), v[:1]),
    lambda x, v: x.index_put_((mt.tensor([0]),), v[0]),
])
def test_in_place_rules(call):
    leaf = mt.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in "
                                           "an in-place operation"):
        call(leaf, mt.ones(3))
    # recorded in a graph (tests/test_user_scripts_2.py compares gradients with PyTorch)
    assert call(leaf * 2, mt.ones(3)).grad_fn is not None
    assert call(mt.zeros(3), mt.ones(3, requires_grad=True)).grad_fn is not None
    with mt.no_grad():
        assert call(leaf, mt.ones(3)) is leaf
    assert leaf._version == 1


def test_masked_scatter_in_place_keeps_the_tensor_shape():
    with pytest.raises(mt.ShapeError, match=r"masked_scatter_: the result of shape \(2, 3\) "
                                            r"cannot be written in place into a tensor of shape "
                                            r"\(3,\)"):
        mt.zeros(3).masked_scatter_(mt.ones(2, 3, dtype=mt.bool), mt.ones(6))


@pytest.mark.parametrize("make", [
    lambda x, i: x.take(i),
    lambda x, i: x.put(i, mt.ones(2)),
    lambda x, i: x.index_put((i,), mt.ones(2)),
])
def test_saved_index_changed_in_place_is_detected(make):
    x = mt.ones(4, requires_grad=True)
    index = mt.tensor([1, 2])
    y = make(x, index)
    index.fill_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_a_huge_meta_tensor_is_indexed_without_data():
    import tracemalloc

    x = mt.empty(2**20, 2**20, device="meta", requires_grad=True)
    index = mt.empty(2**30, dtype=mt.long, device="meta")
    source = mt.empty(2**30, device="meta", requires_grad=True)
    x.put(index, source)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        outputs = [x.take(index), x.put(index, source, accumulate=True),
                   x.index_put((index,), source[:2**20]),
                   x.masked_scatter(mt.empty(2**20, dtype=mt.bool, device="meta"), source),
                   x.take_along_dim(mt.empty(2**20, 3, dtype=mt.long, device="meta"), 1)]
        for out in outputs:
            out.sum().backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [tuple(o.shape) for o in outputs] == [(2**30,), x.shape, x.shape, x.shape,
                                                 (2**20, 3)]
    assert x.grad.is_meta and source.grad.shape == source.shape
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


@pytest.mark.parametrize("name", ["masked_select", "masked_scatter", "take", "take_along_dim",
                                  "put", "index_put", "index_put_"])
def test_module_functions_are_exported(name):
    assert name in mt.__all__ and callable(getattr(mt, name))
    torch = _torch()
    assert hasattr(torch, name)


def test_index_put_with_no_index_writes_everywhere(device):
    # NumPy's ``x[()] = v`` (PyTorch 2.13 fails an internal assert here; docs/differences.md)
    x = mt.zeros(2, 3, device=device, requires_grad=True)
    values = mt.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    out = x.index_put((), values)
    assert out.tolist() == [[1, 2, 3], [1, 2, 3]]
    out.sum().backward()
    assert x.grad.tolist() == [[0, 0, 0], [0, 0, 0]] and values.grad.tolist() == [2, 2, 2]
    assert x.index_put((), values, accumulate=True).tolist() == [[1, 2, 3], [1, 2, 3]]


def test_masked_select_shape_rule_counts_the_broadcast_mask():
    # On data backends the kernel's result has this length; the rule says it beforehand.
    from minitorch_meta.ops.masked_select import MaskedSelect

    x, mask = mt.ones(3, 4), mt.tensor([True, False, True, False])
    assert MaskedSelect(count=2).infer(x, mask) == ((6,), mt.float32)
    assert MaskedSelect(count=0).infer(mt.ones(0, 4), mask) == ((0,), mt.float32)
    grid = mt.tensor([[True, False, False, False], [False] * 4, [False, True, False, False]])
    assert MaskedSelect(count=2).infer(mt.ones(2, 1, 4), grid) == ((4,), mt.float32)


def test_index_put_on_meta_accepts_values_as_long_as_an_unknown_mask_count():
    x = mt.empty(6, 4, device="meta")
    mask = mt.empty(6, dtype=mt.bool, device="meta")
    for values in (mt.empty(5, 4, device="meta"), mt.empty(5, 1, device="meta")):
        assert x.index_put((mask,), values).shape == (6, 4)
    with pytest.raises(RuntimeError, match="value tensor of shape"):
        x.index_put((mask,), mt.empty(5, 3, device="meta"))


def test_flat_positions_are_made_non_negative_for_every_backend():
    # CuPy's indexing need not read a negative position from the end as NumPy does.
    from minitorch_meta.ops.take_put import flat_positions

    backend = mt.zeros(1)._backend
    positions = flat_positions(backend, "take", np.array([[-6, 5], [-1, 0]]), 6)
    assert positions.tolist() == [0, 5, 5, 0]
