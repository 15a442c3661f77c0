"""Layout ops: views, transposes, squeeze/unsqueeze, expand, indexing, clone, to(dtype)."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from tests.ops.harness import (
    Arg,
    Case,
    check_same_error_on_cpu_and_meta,
    three_way_tests,
)

S = (2, 3, 4)
CASES = [
    Case("view", lambda T, F, a: a.view(6, 4), [Arg(S)]),
    Case("view_infer", lambda T, F, a: a.view(-1, 2), [Arg(S)]),
    Case("view_tuple", lambda T, F, a: a.view((4, -1)), [Arg(S)]),
    Case("view_as", lambda T, F, a, b: a.view_as(b), [Arg(S), Arg((4, 6), grad=False)]),
    Case("reshape", lambda T, F, a: a.reshape(3, 8), [Arg(S)]),
    Case("reshape_function", lambda T, F, a: T.reshape(a, (-1,)), [Arg(S)]),
    Case("flatten", lambda T, F, a: a.flatten(), [Arg(S)]),
    Case("flatten_start", lambda T, F, a: T.flatten(a, 1), [Arg(S)]),
    Case("flatten_range", lambda T, F, a: a.flatten(0, 1), [Arg((2, 3, 4, 2))]),
    Case("flatten_functional", lambda T, F, a: T.flatten(a, start_dim=1), [Arg((2, 3, 2, 2))]),
    Case("transpose", lambda T, F, a: a.transpose(0, 2), [Arg(S)]),
    Case("transpose_neg", lambda T, F, a: T.transpose(a, -1, 1), [Arg(S)]),
    Case("t", lambda T, F, a: a.t(), [Arg((3, 4))]),
    Case("t_1d", lambda T, F, a: T.t(a), [Arg((3,))]),
    Case("T_property", lambda T, F, a: a.T, [Arg((3, 4))]),
    Case("permute", lambda T, F, a: a.permute(2, 0, 1), [Arg(S)]),
    Case("permute_tuple", lambda T, F, a: T.permute(a, (1, 2, 0)), [Arg(S)]),
    Case("unsqueeze", lambda T, F, a: a.unsqueeze(1), [Arg(S)]),
    Case("unsqueeze_end", lambda T, F, a: T.unsqueeze(a, -1), [Arg(S)]),
    Case("squeeze_all", lambda T, F, a: a.squeeze(), [Arg((1, 3, 1, 2))]),
    Case("squeeze_dim", lambda T, F, a: T.squeeze(a, 2), [Arg((1, 3, 1, 2))]),
    Case("squeeze_dim_not_one", lambda T, F, a: a.squeeze(1), [Arg((1, 3, 1, 2))]),
    # a tuple of dims (PyTorch >= 2.0: SqueezeBackward2): dims of size > 1 are kept
    Case("squeeze_dims", lambda T, F, a: a.squeeze((0, 1, -2)), [Arg((1, 3, 1, 2))]),
    Case("squeeze_dims_function", lambda T, F, a: T.squeeze(a, dim=[2]), [Arg((1, 3, 1, 2))]),
    Case("squeeze_no_dims", lambda T, F, a: a.squeeze(()), [Arg((1, 3, 1))]),
    Case("squeeze_dims_0d", lambda T, F, a: a.squeeze((-1,)), [Arg(())]),
    Case("expand", lambda T, F, a: a.expand(2, 3, 4), [Arg((3, 1))]),
    Case("expand_keep", lambda T, F, a: a.expand(5, -1, 4), [Arg((3, 1))]),
    Case("expand_as", lambda T, F, a, b: a.expand_as(b), [Arg((1, 4)), Arg((3, 4), grad=False)]),
    Case("getitem_int", lambda T, F, a: a[1], [Arg(S)]),
    Case("getitem_neg_int", lambda T, F, a: a[-1, 2], [Arg(S)]),
    Case("getitem_slice", lambda T, F, a: a[1:], [Arg((4, 3))]),
    Case("getitem_step", lambda T, F, a: a[:, ::2], [Arg(S)]),
    Case("getitem_tuple", lambda T, F, a: a[0, 1:, :3], [Arg(S)]),
    Case("getitem_none_ellipsis", lambda T, F, a: a[None, ..., 1], [Arg(S)]),
    Case("getitem_int_tensor", lambda T, F, a, i: a[i], [Arg((4, 3)), Arg((5,), "int:4")]),
    Case("getitem_int_tensor_dim1", lambda T, F, a, i: a[:, i], [Arg(S), Arg((2, 2), "int:3")]),
    Case("getitem_bool_mask", lambda T, F, a, m: a[m], [Arg(S), Arg(S, "bool")], meta=False),
    Case("getitem_row_mask", lambda T, F, a, m: a[m], [Arg((4, 3)), Arg((4,), "bool")],
         meta=False),
    Case("clone", lambda T, F, a: a.clone(), [Arg(S)]),
    Case("clone_function", lambda T, F, a: T.clone(a) * 2, [Arg(S)]),
    Case("to_double", lambda T, F, a: (a * 1).to(T.float64), [Arg(S)]),
    Case("to_float32_and_back", lambda T, F, a: a.float().double(), [Arg(S)], eps=1e-3,
         atol=1e-3),
]


test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, seeds=(0, 1))


def test_repeated_int_tensor_index_accumulates_gradient():
    x = mt.ones(3, requires_grad=True)
    x[mt.tensor([0, 0, 2, 0])].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0]


def test_getitem_list_index():
    x = mt.arange(12).view(3, 4)
    assert x[[0, 2]].tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]


def test_bool_mask_on_meta_is_refused_with_reason():
    x = mt.empty(3, 4, device="meta")
    with pytest.raises(IndexError, match="a boolean mask on meta has no values"):
        x[mt.empty(3, 4, dtype=mt.bool, device="meta")]


def test_float_index_is_refused():
    with pytest.raises(IndexError, match="tensors used as indices must be long, int or bool "
                                         "tensors, got torch.float32"):
        mt.ones(3)[mt.tensor([0.0])]


def test_out_of_range_index():
    with pytest.raises(IndexError, match=r"index 5 is out of range for a tensor of shape \(3,\)"):
        mt.ones(3)[5]
    with pytest.raises(IndexError, match="out of range"):
        mt.ones(3, device="meta")[5]


def test_negative_step_is_refused_like_torch():
    with pytest.raises(ValueError, match="step must be greater than zero"):
        mt.arange(5)[::-1]


def test_views_share_memory_like_torch():
    x = mt.zeros(2, 3)
    x.view(6)[0] = 1.0
    x.t()[2, 1] = 2.0
    x[1][0] = 3.0
    assert x.tolist() == [[1.0, 0.0, 0.0], [3.0, 0.0, 2.0]]


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.view(5, -1), mt.ShapeError,
     "view: shape (5, -1) is invalid for input of size 24 (input shape (2, 3, 4))"),
    (lambda x: x.view(-1, -1), mt.ShapeError,
     "view: only one dimension can be inferred (-1), got (-1, -1)"),
    (lambda x: x.reshape(7, 3), mt.ShapeError,
     "reshape: shape (7, 3) is invalid for input of size 24 (input shape (2, 3, 4))"),
    (lambda x: x.permute(0, 1), mt.ShapeError,
     "permute: dims (0, 1) are not a permutation of the 3 dimensions of shape (2, 3, 4)"),
    (lambda x: x.permute(0, 0, 1), mt.ShapeError,
     "permute: dims (0, 0, 1) are not a permutation of the 3 dimensions of shape (2, 3, 4)"),
    (lambda x: x.t(), mt.ShapeError,
     "t: expects a tensor with <= 2 dimensions, but got a 3-D tensor of shape (2, 3, 4); use "
     "transpose(dim0, dim1) or permute"),
    (lambda x: x.expand(3, 3, 4), mt.ShapeError,
     "expand: the expanded size (3, 3, 4) must match the existing size (2, 3, 4) at every "
     "non-singleton dimension"),
    (lambda x: x.expand(3, 4), mt.ShapeError,
     "expand: the number of sizes provided (2) must be greater or equal to the number of "
     "dimensions in the tensor (3): (3, 4) for a tensor of shape (2, 3, 4)"),
    (lambda x: x.flatten(2, 1), mt.ShapeError,
     "flatten: start_dim (2) cannot come after end_dim (1) for input shape (2, 3, 4)"),
    (lambda x: x.transpose(0, 3), IndexError,
     "transpose: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.unsqueeze(4), IndexError,
     "unsqueeze: Dimension out of range (expected to be in range of [-4, 3], but got 4)"),
    (lambda x: x.squeeze(3), IndexError,
     "squeeze: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.squeeze((0, 3)), IndexError,
     "squeeze: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.squeeze((0, -3)), RuntimeError,
     "squeeze(): dim 0 appears multiple times in the list of dims (0, -3)"),
    (lambda x: x.squeeze((0.5,)), TypeError,
     "squeeze(): argument 'dim' must be an int or a tuple of ints, but got float (0.5)"),
])
def test_layout_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


def test_to_dtype_and_back_keeps_values():
    x = mt.tensor([1.5, -2.0])
    assert x.to(mt.int64).tolist() == [1, -2]
    assert x.double().dtype is mt.float64 and x.long().dtype is mt.int64
    assert x.to(mt.float32) is x  # no copy when nothing changes, as in PyTorch
    assert x.bool().tolist() == [True, True]


def test_expand_minus_one_in_new_leading_dim_is_refused():
    with pytest.raises(mt.ShapeError, match="-1 is not allowed in a leading, non-existing "
                                            "dimension"):
        mt.ones(3).expand(-1, 3)


def test_squeeze_dims_in_place_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    x, tx = mt.zeros(1, 3, 1, 2), torch.zeros(1, 3, 1, 2)
    assert x.squeeze_((0, 2)) is x
    tx.squeeze_((0, 2))
    assert tuple(x.shape) == tuple(tx.shape) == (3, 2) and x.stride() == tx.stride()
