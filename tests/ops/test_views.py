"""narrow, select, movedim, swapaxes/swapdims, mT, unflatten, reshape_as and the stacks:
values, gradients and grad_fn names as PyTorch's, views sharing the version counter, errors."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (2, 3, 4)
CASES = [
    Case("narrow", lambda T, F, a: a.narrow(1, 1, 2), [Arg(S)]),
    Case("narrow_negative_start", lambda T, F, a: T.narrow(a, -1, -3, 2), [Arg(S)]),
    Case("narrow_empty", lambda T, F, a: a.narrow(2, 4, 0), [Arg(S)]),
    Case("select", lambda T, F, a: a.select(1, 2), [Arg(S)]),
    Case("select_negative", lambda T, F, a: T.select(a, -1, -4), [Arg(S)]),
    Case("select_1d", lambda T, F, a: a.select(0, 1), [Arg((3,))]),
    Case("movedim", lambda T, F, a: a.movedim(0, -1), [Arg(S)]),
    Case("movedim_tuples", lambda T, F, a: T.movedim(a, (0, 1), (2, 0)), [Arg(S)]),
    Case("movedim_list", lambda T, F, a: a.movedim([2], [0]) * 2, [Arg(S)]),
    Case("moveaxis", lambda T, F, a: T.moveaxis(a, -1, 0), [Arg(S)]),
    Case("movedim_0d", lambda T, F, a: a.movedim(0, -1), [Arg(())]),
    Case("swapaxes", lambda T, F, a: a.swapaxes(0, 2), [Arg(S)]),
    Case("swapdims", lambda T, F, a: T.swapdims(a, -1, 1), [Arg(S)]),
    Case("mT", lambda T, F, a: a.mT, [Arg(S)]),
    Case("mT_matrix", lambda T, F, a: a.mT @ a, [Arg((3, 4))]),
    Case("unflatten", lambda T, F, a: a.unflatten(2, (2, 2)), [Arg(S)]),
    Case("unflatten_inferred", lambda T, F, a: T.unflatten(a, -1, (-1, 2)), [Arg(S)]),
    Case("unflatten_size", lambda T, F, a: a.unflatten(0, T.Size([1, 2, 1])), [Arg(S)]),
    Case("reshape_as", lambda T, F, a, b: a.reshape_as(b) * b, [Arg(S), Arg((4, 6))]),
    Case("reshape_as_transposed", lambda T, F, a, b: a.t().reshape_as(b),
         [Arg((3, 4)), Arg((12,), grad=False)]),
    Case("hstack", lambda T, F, a, b: T.hstack([a, b]), [Arg(S), Arg((2, 1, 4))]),
    Case("hstack_1d", lambda T, F, a, b: T.hstack((a, b)), [Arg((3,)), Arg((2,))]),
    Case("hstack_0d", lambda T, F, a, b: T.hstack([a, b]), [Arg(()), Arg(())]),
    Case("vstack", lambda T, F, a, b: T.vstack([a, b]), [Arg((3,)), Arg((2, 3))]),
    Case("vstack_0d", lambda T, F, a, b: T.vstack([a, b]), [Arg(()), Arg((1,))]),
    Case("dstack", lambda T, F, a, b: T.dstack([a, b]), [Arg((3,)), Arg((1, 3))]),
    Case("dstack_matrices", lambda T, F, a, b: T.dstack([a, b]), [Arg((2, 3)), Arg((2, 3, 2))]),
    Case("dstack_0d", lambda T, F, a: T.dstack([a]), [Arg(())]),
]

# PyTorch reshapes a non-contiguous tensor through a copy (UnsafeViewBackward0); ours is
# always one reshape node (ViewBackward0), as for ``reshape``.
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=("reshape_as_transposed",))


@pytest.mark.parametrize("make", [
    lambda x: x.narrow(1, 0, 2), lambda x: x.select(0, 1), lambda x: x.movedim(0, 2),
    lambda x: x.swapaxes(0, 1), lambda x: x.mT, lambda x: x.unflatten(2, (2, 2)),
    lambda x: mt.swapdims(x, 1, 2),
])
def test_views_share_storage_and_version_counter(make, device):
    x = mt.zeros(2, 3, 4, device=device)
    view = make(x)
    view.fill_(1.0)
    assert x._version == view._version == 1
    assert x.sum().item() == view.numel()  # the write went into x's memory


def test_stacks_copy():
    x = mt.zeros(3)
    out = mt.vstack([x, x])
    out.fill_(1.0)
    assert x.sum().item() == 0 and x._version == 0


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.narrow(1, 2, 2), RuntimeError,
     "start (2) + length (2) exceeds dimension size (3) of the input of shape (2, 3, 4)."),
    (lambda x: x.narrow(1, -4, 1), IndexError,
     "narrow: start out of range (expected to be in range of [-3, 3], but got -4)"),
    (lambda x: x.narrow(1, 0, -1), RuntimeError, "narrow(): length must be non-negative."),
    (lambda x: x.narrow(3, 0, 1), IndexError,
     "narrow: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.sum().narrow(0, 0, 1), RuntimeError,
     "narrow() cannot be applied to a 0-dim tensor."),
    (lambda x: x.narrow(0, 0, 2.0), TypeError, "narrow(): argument 'length' must be int, not "
                                               "float"),
    (lambda x: x.select(1, 3), IndexError,
     "select(): index 3 out of range for tensor of size [2, 3, 4] at dimension 1"),
    (lambda x: x.select(1, -4), IndexError,
     "select(): index -4 out of range for tensor of size [2, 3, 4] at dimension 1"),
    (lambda x: x.select(-4, 0), IndexError,
     "select: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: x.sum().select(0, 0), IndexError, "select() cannot be applied to a 0-dim tensor."),
    (lambda x: x.unflatten(2, (3, 2)), RuntimeError,
     "unflatten: Provided sizes [3, 2] don't multiply up to the size of dim 2 (4) in the input "
     "tensor"),
    (lambda x: x.unflatten(2, (-1, 3)), RuntimeError,
     "unflatten: Provided sizes [-1, 3] don't multiply up to the size of dim 2 (4) in the "
     "input tensor"),
    (lambda x: x.unflatten(2, ()), RuntimeError, "unflatten: sizes must be non-empty"),
    (lambda x: x.unflatten(2, (-1, -1)), RuntimeError,
     "unflatten: only one dimension can be inferred (-1), got sizes [-1, -1]"),
    (lambda x: x.unflatten(3, (2, 2)), IndexError,
     "unflatten: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.unflatten(1, 3), TypeError,
     "unflatten(): argument 'sizes' must be tuple of ints, not int"),
    (lambda x: x.movedim(0, 3), IndexError,
     "movedim: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.movedim((0, 1), (0,)), RuntimeError,
     "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the "
     "same number of dims as destination ([0] dims)"),
    (lambda x: x.movedim((0, 0), (1, 2)), RuntimeError,
     "movedim: repeated dim in `source` ([0, 0])"),
    (lambda x: mt.movedim(x, (0, 1), (1, -2)), RuntimeError,
     "movedim: repeated dim in `destination` ([1, -2])"),
    (lambda x: x.movedim(0.0, 1), TypeError, "movedim(): argument 'source' must be int, not "
                                             "float"),
    (lambda x: x[0, 0].mT, RuntimeError,
     "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."),
    (lambda x: x.sum().mT, RuntimeError,
     "tensor.mT is only supported on matrices or batches of matrices. Got 0-D tensor."),
    (lambda x: x.swapaxes(0, 3), IndexError,
     "transpose: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.reshape_as(mt.zeros(5, device=x.device)), mt.ShapeError,
     "reshape: shape (5,) is invalid for input of size 24 (input shape (2, 3, 4))"),
    (lambda x: mt.hstack([]), RuntimeError, "hstack expects a non-empty TensorList"),
    (lambda x: mt.vstack(()), RuntimeError, "vstack expects a non-empty TensorList"),
    (lambda x: mt.dstack([]), RuntimeError, "dstack expects a non-empty TensorList"),
    (lambda x: mt.vstack([x[0], x[0, :, :2]]), mt.ShapeError,
     "cat: sizes of tensors must match except in dimension 0. Expected size 4 but got size 2 "
     "for tensor number 1 in the list"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


def test_narrow_takes_a_0d_integer_tensor_start(device):
    x = mt.arange(12, device=device).view(3, 4)
    assert x.narrow(1, mt.tensor(1, device=device), 2).tolist() == [[1, 2], [5, 6], [9, 10]]
    assert x.select(0, mt.tensor(-1)).tolist() == [8, 9, 10, 11]


def test_int_and_bool_tensors_keep_their_dtype(device):
    x = mt.arange(6, device=device).view(2, 3)
    assert x.mT.dtype is mt.int64 and x.mT.tolist() == [[0, 3], [1, 4], [2, 5]]
    b = x > 2
    assert mt.hstack([b, b]).dtype is mt.bool and b.movedim(0, 1).tolist() == b.t().tolist()


def test_a_huge_meta_tensor_is_viewed_without_data():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    out = mt.dstack([x.narrow(0, 5, 2).select(1, 7).unflatten(1, (2**5, -1)).mT.movedim(0, 1),
                     mt.empty(2**5, 2, 5, device="meta")])
    assert out.shape == (2**5, 2, 2**5 + 5) and out.is_meta
    out.sum().backward()
    assert x.grad.shape == x.shape and x.grad.is_meta


def test_unflatten_module_matches_torch():
    torch = pytest.importorskip("torch")
    ours, theirs = nn.Unflatten(1, (2, 5)), torch.nn.Unflatten(1, (2, 5))
    assert repr(ours) == repr(theirs) == "Unflatten(dim=1, unflattened_size=(2, 5))"
    assert ours(mt.zeros(3, 10, 4)).shape == (3, 2, 5, 4)
    model = nn.Sequential(nn.Linear(4, 12), nn.Unflatten(-1, mt.Size([3, 4])))
    out = model(mt.zeros(7, 4))
    assert out.shape == (7, 3, 4) and out.grad_fn.name() == "ViewBackward0"
    with pytest.raises(TypeError, match="unflattened_size must be a tuple"):
        nn.Unflatten(1, 4)
    with pytest.raises(TypeError, match="expected int, got str"):
        nn.Unflatten("a", (2, 2))


def test_movedim_of_a_0d_tensor_stays_an_alias_after_backward():
    x = mt.tensor(2.0, requires_grad=True)
    out = x.movedim(0, -1)
    out.backward()
    assert out.grad_fn.name() == "AliasBackward0" and x.grad.item() == 1.0
