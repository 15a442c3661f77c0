"""scatter/scatter_add and index_add/index_copy/index_fill: values, gradients (input and
source), in-place forms, dtypes, empty and 0-d cases, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.gradcheck import gradcheck
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (3, 4)
D = "distinct"


def picks(p, dim, k):
    """Distinct positions along ``dim`` (k of them per line), on ``p``'s device: scatter's
    winner among repeated positions is unspecified in PyTorch."""
    return p.sort(dim).indices.narrow(dim, 0, k)


CASES = [
    Case("scatter", lambda T, F, x, s, p: x.scatter(1, picks(p, 1, 2), s),
         [Arg(S), Arg((3, 2)), Arg(S, D, grad=False)]),
    Case("scatter_function_dim0", lambda T, F, x, s, p: T.scatter(x, 0, picks(p, 0, 2), s),
         [Arg(S), Arg((2, 4)), Arg(S, D, grad=False)]),
    Case("scatter_negative_dim_3d", lambda T, F, x, s, p: x.scatter(-1, picks(p, -1, 3), s),
         [Arg((2, 3, 4)), Arg((2, 3, 3)), Arg((2, 3, 4), D, grad=False)]),
    Case("scatter_value", lambda T, F, x, p: x.scatter(1, picks(p, 1, 2), 2.5) * 2,
         [Arg(S), Arg(S, D, grad=False)]),
    Case("scatter_value_keyword", lambda T, F, x, p: T.scatter(x, 0, picks(p, 0, 1), value=-1),
         [Arg(S), Arg(S, D, grad=False)]),
    Case("scatter_int", lambda T, F, x, s, p: x.scatter(1, picks(p, 1, 2), s),
         [Arg(S, "int:9"), Arg((3, 2), "int:9"), Arg(S, D, grad=False)]),
    Case("scatter_0d", lambda T, F, x, s, i: x.scatter(0, i, s),
         [Arg(()), Arg(()), Arg((), "int:1")]),
    Case("scatter_add", lambda T, F, x, s, i: x.scatter_add(1, i, s),
         [Arg(S), Arg((3, 6)), Arg((3, 6), "int:4")]),
    Case("scatter_add_function_index_smaller",
         lambda T, F, x, s, i: T.scatter_add(x, 0, i, s[:2, :3]),
         [Arg((2, 3, 4)), Arg((3, 3, 4)), Arg((2, 3, 4), "int:2")]),
    Case("scatter_add_int", lambda T, F, x, s, i: x.scatter_add(0, i, s),
         [Arg(S, "int:5"), Arg((5, 4), "int:5"), Arg((5, 4), "int:3")]),
    Case("scatter_add_empty_index", lambda T, F, x, s, i: x.scatter_add(1, i[:, :0], s),
         [Arg(S), Arg(S, grad=False), Arg(S, "int:4")]),
    Case("index_add", lambda T, F, x, s, i: x.index_add(0, i, s),
         [Arg(S), Arg((5, 4)), Arg((5,), "int:3")]),
    Case("index_add_alpha_last_dim", lambda T, F, x, s, i: T.index_add(x, -1, i, s, alpha=-2.5),
         [Arg((2, 3, 4)), Arg((2, 3, 6)), Arg((6,), "int:4")]),
    Case("index_add_0d_index", lambda T, F, x, s, i: x.index_add(1, i, s),
         [Arg(S), Arg((3, 1)), Arg((), "int:4")]),
    Case("index_add_int", lambda T, F, x, s, i: x.index_add(1, i, s, alpha=3),
         [Arg(S, "int:5"), Arg((3, 2), "int:5"), Arg((2,), "int:4")]),
    Case("index_add_0d", lambda T, F, x, s, i: x.index_add(0, i, s),
         [Arg(()), Arg(()), Arg((1,), "int:1")]),
    Case("index_copy", lambda T, F, x, s, p: x.index_copy(0, picks(p, 0, 2), s),
         [Arg(S), Arg((2, 4)), Arg((3,), D, grad=False)]),
    Case("index_copy_function_dim1", lambda T, F, x, s, p: T.index_copy(x, 1, picks(p, 0, 3), s),
         [Arg((2, 4, 3)), Arg((2, 3, 3)), Arg((4,), D, grad=False)]),
    Case("index_fill", lambda T, F, x, i: x.index_fill(1, i, -1.5),
         [Arg(S), Arg((3,), "int:4")]),
    Case("index_fill_tensor_value", lambda T, F, x, i, v: T.index_fill(x, 0, i, v),
         [Arg(S), Arg((4,), "int:3"), Arg(())]),
    Case("index_fill_negative_positions", lambda T, F, x, i: x.index_fill(1, i - 4, 7),
         [Arg(S), Arg((2,), "int:4")]),
    Case("index_fill_int_value_truncates", lambda T, F, x, i: x.index_fill(0, i, 2.7),
         [Arg(S, "int:5"), Arg((2,), "int:3")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def test_grad_fn_names():
    x, s = mt.zeros(3, 4, requires_grad=True), mt.ones(3, 4, requires_grad=True)
    i, v = mt.tensor([[0], [1], [2]]), mt.tensor([0, 2])
    assert x.scatter(1, i, s).grad_fn.name() == "ScatterBackward0"
    assert x.scatter(1, i, 1.0).grad_fn.name() == "ScatterBackward1"
    assert x.scatter_add(1, i, s).grad_fn.name() == "ScatterAddBackward0"
    assert x.index_add(0, v, s[:2]).grad_fn.name() == "IndexAddBackward0"
    assert x.index_copy(0, v, s[:2]).grad_fn.name() == "IndexCopyBackward0"
    assert x.index_fill(0, v, 1.0).grad_fn.name() == "IndexFillBackward0"
    assert x.index_fill(0, v, mt.tensor(1.0, requires_grad=True)).grad_fn.name() == \
        "IndexFillBackward1"


def test_a_src_larger_than_the_index_gets_zeros_where_unread(device):
    # PyTorch's own backward refuses this case ("invalid gradient"); ours pads with zeros.
    rng = np.random.default_rng(0)
    index = mt.tensor([[0, 2], [3, 1], [1, 0]], device=device)
    gradcheck(lambda x, s: x.scatter(1, index, s), [rng.standard_normal(S),
                                                    rng.standard_normal((3, 4))],
              [True, True], device=device)
    s = mt.ones(3, 4, device=device, requires_grad=True)
    mt.zeros(3, 4, device=device).scatter(1, index, s).sum().backward()
    assert s.grad.tolist() == [[1, 1, 0, 0]] * 3


def test_repeated_positions_add_up(device):
    x = mt.zeros(5, device=device)
    out = x.index_add(0, mt.tensor([1, 1, 4, 1], device=device), mt.ones(4, device=device))
    assert out.tolist() == [0, 3, 0, 0, 1]
    out = mt.zeros(2, 3, device=device).scatter_add(1, mt.tensor([[2, 2], [0, 2]],
                                                                 device=device),
                                                    mt.arange(4.0, device=device).view(2, 2))
    assert out.tolist() == [[0, 0, 1], [2, 0, 3]]


def test_index_fill_value_gradient_counts_each_element_once(device):
    v = mt.tensor(2.0, device=device, requires_grad=True)
    mt.zeros(3, 2, device=device).index_fill(0, mt.tensor([1, 1, 2], device=device),
                                             v).sum().backward()
    assert v.grad.item() == 4.0  # PyTorch: 4 as well (two rows of two)


@pytest.mark.parametrize("name, args", [
    ("scatter_", (1, [[0, 2], [1, 1]], "src")),
    ("scatter_", (0, [[1, 0, 1]], 7.0)),
    ("scatter_add_", (1, [[0, 2], [1, 1]], "src")),
    ("index_add_", (1, [2, 0], "src")),
    ("index_copy_", (1, [2, 0], "src")),
    ("index_fill_", (1, [2, 0], -3.0)),
])
def test_in_place_forms_match_torch_and_bump_the_version(name, args, device):
    torch = _torch()
    data = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    src = np.arange(10.0, 14.0, dtype=np.float32).reshape(2, 2)
    ours, theirs = mt.tensor(data, device=device), torch.tensor(data)
    dim, index, last = args
    our_args = (dim, mt.tensor(index, device=device),
                mt.tensor(src, device=device) if last == "src" else last)
    their_args = (dim, torch.tensor(index), torch.tensor(src) if last == "src" else last)
    assert getattr(ours, name)(*our_args) is ours and ours._version == 1
    getattr(theirs, name)(*their_args)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


def test_in_place_rules():
    index, source = mt.tensor([0]), mt.ones(1, 3)
    leaf = mt.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="index_add_: a leaf Variable that requires grad is "
                                           "being used in an in-place operation"):
        leaf.index_add_(0, index, source)
    # in a graph, or with a source that requires grad, the write is recorded
    # (tests/test_user_scripts_2.py compares the gradients with PyTorch)
    assert (leaf * 2).scatter_(0, mt.tensor([[1]]), 1.0).grad_fn is not None
    assert mt.zeros(2, 3).index_copy_(0, index, mt.ones(1, 3, requires_grad=True)).requires_grad
    with mt.no_grad():
        assert leaf.scatter_add_(0, mt.tensor([[1, 1, 1]]), source).sum().item() == 3
    meta = mt.empty(2**20, 2**20, device="meta")
    assert meta.index_fill_(1, mt.empty(5, dtype=mt.int64, device="meta"), 0.0) is meta


def test_saved_index_changed_in_place_is_detected():
    x = mt.ones(3, requires_grad=True)
    index = mt.tensor([0, 2])
    y = x.index_fill(0, index, 0.0)
    index.fill_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("call, message", [
    (lambda x: x.scatter(1, mt.tensor([[4]]), 1.0), "scatter(): index 4 is out of bounds for "
                                                    "dimension 1 with size 4"),
    (lambda x: x.scatter_add(0, mt.tensor([[-1]]), x), "scatter_add(): index -1 is out of "
                                                       "bounds for dimension 0 with size 3"),
    (lambda x: x.index_add(0, mt.tensor([3]), x[:1]), "index_add_(): index 3 is out of bounds "
                                                      "for dimension 0 with size 3"),
])
def test_positions_out_of_range_on_data_devices(call, message):
    with pytest.raises(RuntimeError) as info:
        call(mt.zeros(3, 4))
    assert str(info.value) == message


def test_index_copy_and_index_fill_raise_index_errors_for_bad_positions():
    with pytest.raises(IndexError, match=r"index_copy_\(\): index -1 is out of bounds for "
                                         r"dimension 0 with size 3"):
        mt.zeros(3, 4).index_copy(0, mt.tensor([-1]), mt.ones(1, 4))
    with pytest.raises(IndexError, match=r"index_fill_\(\): index -4 is out of bounds for "
                                         r"dimension 0 with size 3"):
        mt.zeros(3, 4).index_fill(0, mt.tensor([-4]), 1.0)


def _long(*data, device):
    return mt.tensor(list(data), dtype=mt.int64, device=device)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.scatter(1, x.long()[:, :1].float(), 1.0), RuntimeError,
     "scatter(): Expected dtype int32/int64 for index, but got torch.float32; convert it "
     "with .long()"),
    (lambda x: x.scatter(1, x.long(), x.double()), RuntimeError,
     "scatter(): Expected self.dtype to be equal to src.dtype, but got torch.float32 and "
     "torch.float64; convert src with .to(torch.float32)"),
    (lambda x: x.scatter(1, x.long()[0], 1.0), RuntimeError,
     "scatter(): Index tensor must have the same number of dimensions as self tensor, but got "
     "an index of shape (4,) for self of shape (3, 4)"),
    (lambda x: x.scatter_add(1, x.long(), x[0]), RuntimeError,
     "scatter_add(): Index tensor must have the same number of dimensions as src tensor, but "
     "got an index of shape (3, 4) for src of shape (4,)"),
    (lambda x: x.scatter(1, x.long().repeat(1, 2), x), RuntimeError,
     "scatter(): Expected index (3, 8) to be no larger than self (3, 4) apart from dimension 1 "
     "and to be no larger size than src (3, 4)"),
    (lambda x: x.scatter(1, x.long().repeat(2, 1), 0.0), RuntimeError,
     "scatter(): Expected index (6, 4) to be no larger than self (3, 4) apart from dimension 1"),
    (lambda x: x.scatter(2, x.long(), 0.0), IndexError,
     "scatter: Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x: x.scatter(1, x.long(), 2.0, reduce="sum"), RuntimeError,
     "scatter(): reduce argument must be either add or multiply, got 'sum'"),
    (lambda x: x.scatter(1, x.long()), TypeError,
     "scatter() expects exactly one of 'src' (a tensor) and 'value' (a number), but got "
     "neither"),
    (lambda x: x.scatter_add(1, x.long(), 1.0), TypeError,
     "scatter_add(): argument 'src' (position 3) must be Tensor, not float"),
    (lambda x: x.scatter(1, [[0]], 1.0), TypeError,
     "scatter(): argument 'index' must be Tensor, not list"),
    (lambda x: x.long().scatter(1, x.long(), 1e30), RuntimeError,
     "scatter: value cannot be converted to type torch.int64 without overflow"),
    (lambda x: x.index_add(0, x[0].long(), x), RuntimeError,
     "index_add_(): Number of indices (4) should be equal to source.size(dim) (3), for dim: 0"),
    (lambda x: x.index_add(0, x[0], x), RuntimeError,
     "index_add_(): Expected dtype int32/int64 for index but got: torch.float32"),
    (lambda x: x.index_add(0, x.long(), x), IndexError,
     "index_add_(): Index is supposed to be a vector, but got an index of shape (3, 4); "
     "flatten it first"),
    (lambda x: x.index_add(0, x[:, 0].long(), x.double()), RuntimeError,
     "index_add_(): self (torch.float32) and source (torch.float64) must have the same dtype"),
    (lambda x: x.index_add(0, x[:, 0].long(), x[:, :3]), RuntimeError,
     "index_add_(): source tensor shape must match self tensor shape, excluding the specified "
     "dimension. Got self.shape = (3, 4) source.shape = (3, 3)"),
    (lambda x: x.index_add(0, x[:, 0].long(), 1.0), TypeError,
     "index_add(): argument 'source' (position 4) must be Tensor, not float"),
    (lambda x: x.index_copy(0, x[:, 0].int(), x), RuntimeError,
     "index_copy_(): Expected a long tensor for index, but got torch.int32"),
    (lambda x: x.index_copy(0, x.long(), x), IndexError,
     "index_copy_(): Index should have dimension 1 or 0 (got 2)"),
    (lambda x: x.index_fill(0, x[:, 0].int(), 1.0), IndexError,
     "index_fill_(): Expected dtype int64 for index, but got torch.int32"),
    (lambda x: x.index_fill(0, x.long(), 1.0), RuntimeError,
     "index_fill_(): Index has to be a vector/scalar, but got an index of shape (3, 4)"),
    (lambda x: x.index_fill(0, x[:, 0].long(), x[0]), RuntimeError,
     "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
     "dimension(s)."),
    (lambda x: x.index_fill(0, x[:, 0].long(), "a"), TypeError,
     "index_fill(): argument 'value' must be a number or a 0-dimensional Tensor, but got str"),
    (lambda x: x.index_fill_(-3, x[:, 0].long(), 1.0), IndexError,
     "index_fill: Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    for device in ("cpu", "meta"):
        x = mt.zeros(3, 4, device=device)
        with pytest.raises(error) as info:
            call(x)
        assert str(info.value).startswith(message), (device, str(info.value))


def test_check_helper_reads_the_same_message_everywhere():
    check_same_error_on_cpu_and_meta(
        lambda x: x.index_copy(1, mt.zeros(2, dtype=mt.int64, device=x.device), x),
        RuntimeError, "index_copy_(): Number of indices (2) should be equal to source.size(dim) "
                      "(3), for dim: 1")


def test_a_huge_meta_tensor_is_scattered_without_data():
    x = mt.empty(2**20, 2**20, device="meta", requires_grad=True)
    src = mt.empty(2**20, 8, device="meta", requires_grad=True)
    index = mt.empty(2**20, 8, dtype=mt.int64, device="meta")
    out = x.scatter_add(1, index, src).index_add(0, index[:, 0], x)
    out.sum().backward()
    assert out.shape == x.shape and x.grad.shape == x.shape and src.grad.shape == src.shape
