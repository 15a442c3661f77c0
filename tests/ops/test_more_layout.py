"""Diagonals, writes into views, tiling, splits, turns and windows: three ways each, plus
views' aliasing, PyTorch's errors, empty and 0-d inputs and meta shapes."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_meta, three_way_tests


def _joined(T, pieces):
    """Pieces as one tensor, so that the harness checks every piece's gradient."""
    return T.cat([p.reshape(-1) for p in pieces])


CASES = [
    # diagonals
    Case("diagonal", lambda T, F, a: a.diagonal() * 2, [Arg((3, 4))]),
    Case("diagonal_offset_dims", lambda T, F, a: T.diagonal(a, 1, 2, 0), [Arg((3, 4, 5))]),
    Case("diagonal_negative_offset", lambda T, F, a: T.diagonal(a, offset=-1, dim1=-1, dim2=1),
         [Arg((2, 4, 3))]),
    Case("diagonal_outside", lambda T, F, a: a.diagonal(7), [Arg((3, 4))]),
    Case("diagonal_of_a_transpose", lambda T, F, a: a.t().diagonal(-1), [Arg((3, 4))]),
    Case("diag_embed", lambda T, F, a: T.diag_embed(a), [Arg((2, 3))]),
    Case("diag_embed_offset_dims", lambda T, F, a: a.diag_embed(1, 0, 2), [Arg((2, 3))]),
    Case("diag_embed_negative", lambda T, F, a: T.diag_embed(a, -2, -1, 0), [Arg((4,))]),
    Case("diagflat", lambda T, F, a: T.diagflat(a, -1), [Arg((2, 3))]),
    Case("diagflat_0d", lambda T, F, a: a.diagflat(), [Arg(())]),
    Case("diagonal_scatter", lambda T, F, a, s: T.diagonal_scatter(a, s), [Arg((3, 4)),
                                                                          Arg((3,))]),
    Case("diagonal_scatter_offset", lambda T, F, a, s: a.diagonal_scatter(s, 1, 1, 0),
         [Arg((3, 4)), Arg((2,))]),
    Case("diagonal_scatter_batched", lambda T, F, a, s: T.diagonal_scatter(a, s, -1, 1, 2),
         [Arg((2, 3, 3)), Arg((2, 2))]),
    Case("select_scatter", lambda T, F, a, s: T.select_scatter(a, s, 0, 1),
         [Arg((3, 4)), Arg((4,))]),
    Case("select_scatter_negative", lambda T, F, a, s: a.select_scatter(s, -1, -2),
         [Arg((2, 3, 4)), Arg((2, 3))]),
    Case("select_scatter_to_0d", lambda T, F, a, s: T.select_scatter(a, s, 0, 2),
         [Arg((3,)), Arg(())]),
    Case("slice_scatter", lambda T, F, a, s: T.slice_scatter(a, s, 1, 0, 4, 2),
         [Arg((3, 4)), Arg((3, 2))]),
    Case("slice_scatter_defaults", lambda T, F, a, s: a.slice_scatter(s), [Arg((3, 4)),
                                                                            Arg((3, 4))]),
    Case("slice_scatter_negative_clamped", lambda T, F, a, s: T.slice_scatter(a, s, -1, -3,
                                                                               100),
         [Arg((2, 5)), Arg((2, 3))]),
    Case("slice_scatter_src_frozen", lambda T, F, a, s: T.slice_scatter(a, s, 0, 1),
         [Arg((3, 2)), Arg((2, 2), grad=False)]),
    # windows
    Case("unfold", lambda T, F, a: a.unfold(1, 3, 2), [Arg((2, 7))]),
    Case("unfold_overlap", lambda T, F, a: a.unfold(-1, 3, 1) * 3, [Arg((2, 3, 5))]),
    Case("unfold_step_past_size", lambda T, F, a: a.unfold(0, 2, 3), [Arg((8, 2))]),
    Case("unfold_0d", lambda T, F, a: a.unfold(0, 1, 1), [Arg(())]),
    Case("unfold_empty_window", lambda T, F, a: a.unfold(1, 0, 2), [Arg((2, 3))]),
    # tiling
    Case("tile", lambda T, F, a: T.tile(a, (2,)), [Arg((3, 2))]),
    Case("tile_more_dims", lambda T, F, a: a.tile((2, 1, 3)), [Arg((3, 2))]),
    Case("repeat_interleave", lambda T, F, a: a.repeat_interleave(2), [Arg((2, 3))]),
    Case("repeat_interleave_dim", lambda T, F, a: T.repeat_interleave(a, 3, dim=-1),
         [Arg((2, 3))]),
    Case("repeat_interleave_0d", lambda T, F, a: a.repeat_interleave(3), [Arg(())]),
    Case("repeat_interleave_tensor", lambda T, F, a: a.repeat_interleave(
        T.tensor([1, 0, 2]), dim=0, output_size=3), [Arg((3, 2))]),
    Case("repeat_interleave_one_count", lambda T, F, a: T.repeat_interleave(
        a, T.tensor([2]), dim=1, output_size=4), [Arg((3, 2))]),
    # splits (pieces joined so that every piece's gradient is checked)
    Case("tensor_split_sections", lambda T, F, a: _joined(T, a.tensor_split(3, 1)),
         [Arg((2, 7))]),
    Case("tensor_split_indices", lambda T, F, a: _joined(T, T.tensor_split(a, [1, 5, 2], -1)),
         [Arg((2, 4))]),
    Case("tensor_split_tensor", lambda T, F, a: _joined(T, a.tensor_split(T.tensor([1, 3]))),
         [Arg((4, 2))]),
    Case("tensor_split_piece", lambda T, F, a: a.tensor_split(2)[1], [Arg((5, 2))]),
    Case("hsplit", lambda T, F, a: T.hsplit(a, 2)[1], [Arg((3, 4))]),
    Case("hsplit_vector", lambda T, F, a: _joined(T, a.hsplit([1, 2])), [Arg((4,))]),
    Case("vsplit", lambda T, F, a: T.vsplit(a, [2])[0], [Arg((3, 4))]),
    Case("dsplit", lambda T, F, a: a.dsplit(2)[1], [Arg((2, 3, 4))]),
    Case("split_with_sizes", lambda T, F, a: a.split_with_sizes([1, 3], 1)[1], [Arg((2, 4))]),
    Case("split_with_sizes_function", lambda T, F, a: _joined(
        T, T.split_with_sizes(a, [2, 0, 1])), [Arg((3, 2))]),
    # at least n dims, stacks
    Case("atleast_1d_0d", lambda T, F, a: T.atleast_1d(a), [Arg(())]),
    Case("atleast_2d_vector", lambda T, F, a: T.atleast_2d(a), [Arg((3,))]),
    Case("atleast_3d_vector", lambda T, F, a: T.atleast_3d(a), [Arg((3,))]),
    Case("atleast_3d_matrix", lambda T, F, a: T.atleast_3d(a), [Arg((2, 3))]),
    Case("atleast_3d_0d", lambda T, F, a: T.atleast_3d(a), [Arg(())]),
    Case("atleast_2d_many", lambda T, F, a, b: T.atleast_2d(a, b)[0] + T.atleast_2d([a, b])[1],
         [Arg(()), Arg((1,))]),
    Case("column_stack", lambda T, F, a, b, c: T.column_stack([a, b, c]),
         [Arg((3,)), Arg((3, 2)), Arg((3,))]),
    Case("column_stack_0d", lambda T, F, a, b: T.column_stack((a, b)), [Arg(()), Arg((1,))]),
    Case("row_stack", lambda T, F, a, b: T.row_stack((a, b)), [Arg((4,)), Arg((2, 4))]),
    # turns, flips, flat views, broadcasts
    Case("rot90", lambda T, F, a: a.rot90(), [Arg((3, 4))]),
    Case("rot90_twice", lambda T, F, a: T.rot90(a, 2), [Arg((3, 4))]),
    Case("rot90_back", lambda T, F, a: T.rot90(a, -1, [2, 0]), [Arg((2, 3, 4))]),
    Case("rot90_full_turn", lambda T, F, a: a.rot90(4, (1, -1)), [Arg((2, 3, 4))]),
    Case("rot90_three", lambda T, F, a: a.rot90(3), [Arg((3, 4))]),
    Case("fliplr", lambda T, F, a: a.fliplr(), [Arg((3, 4))]),
    Case("flipud", lambda T, F, a: T.flipud(a), [Arg((3,))]),
    Case("ravel", lambda T, F, a: a.ravel(), [Arg((3, 4))]),
    Case("ravel_transposed", lambda T, F, a: T.ravel(a.t()), [Arg((3, 4))]),
    Case("broadcast_to", lambda T, F, a: T.broadcast_to(a, (2, 3, 4)), [Arg((3, 1))]),
    Case("broadcast_to_method", lambda T, F, a: a.broadcast_to([-1, 2]), [Arg((3, 1))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _both(shape, device="cpu"):
    torch = _torch()
    data = np.arange(float(np.prod(shape)), dtype=np.float32).reshape(shape)
    return mt.tensor(data, device=device), torch.tensor(data)


# -- views: writes go through, versions are shared, strides as PyTorch's ---------------------
@pytest.mark.parametrize("make", [
    lambda x: x.diagonal(), lambda x: x.diagonal(1), lambda x: x.diagonal(-1, 1, 0),
    lambda x: x.unfold(1, 2, 1), lambda x: x.unfold(0, 2, 1),
    lambda x: x.ravel(), lambda x: x.tensor_split(2, 1)[1], lambda x: x.hsplit(2)[0],
    lambda x: x.split_with_sizes([1, 2])[1], lambda x: x.unsqueeze(2).unfold(2, 1, 1),
])
def test_views_alias_their_input_as_in_torch(make, device):
    x, tx = _both((3, 4), device)
    view, tview = make(x), make(tx)
    assert view.stride() == tview.stride() and view.storage_offset() == tview.storage_offset()
    before = x._version
    with mt.no_grad():
        view.fill_(-1.0)
    tview.fill_(-1.0)
    np.testing.assert_array_equal(x.cpu().numpy(), tx.numpy())
    assert x._version == before + 1 and view._version == x._version


def test_writing_through_an_overlapping_window_view_reaches_every_window():
    x, tx = _both((6,))
    windows, twindows = x.unfold(0, 3, 1), tx.unfold(0, 3, 1)
    windows[0, 2] = 100.0
    twindows[0, 2] = 100.0
    np.testing.assert_array_equal(windows.numpy(), twindows.numpy())
    assert windows[2, 0].item() == 100.0


@pytest.mark.parametrize("make", [
    lambda T, x: T.diag_embed(x), lambda T, x: T.diagonal_scatter(x, x.diagonal() * 0),
    lambda T, x: x.rot90(), lambda T, x: x.rot90(2), lambda T, x: x.tile((2, 1)),
    lambda T, x: x.repeat_interleave(2, 0), lambda T, x: T.fliplr(x),
    lambda T, x: T.column_stack([x, x]),
])
def test_copies_do_not_alias_and_have_torch_strides(make):
    torch = _torch()
    x, tx = _both((3, 3))
    out, tout = make(mt, x), make(torch, tx)
    assert out.stride() == tout.stride()
    out.fill_(7.0)
    assert x.numpy().max() == 8.0


def test_a_diagonal_view_changed_in_place_makes_backward_refuse():
    x = mt.ones(3, 3, requires_grad=True)
    base = x * 1
    y = base.diagonal() ** 2  # pow keeps its input, a view sharing base's version
    with mt.no_grad():
        base.diagonal()[0] = 2.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# -- dtypes -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [mt.int64, mt.bool, mt.float16, mt.uint8])
def test_dtypes_are_kept_as_in_torch(dtype):
    torch = _torch()
    tdtype = getattr(torch, str(dtype).split(".")[1])
    data = (np.arange(12) % 3).reshape(3, 4)
    x, tx = mt.tensor(data).to(dtype), torch.tensor(data).to(tdtype)
    for f in (lambda T, a: a.diagonal(1), lambda T, a: T.diag_embed(a),
              lambda T, a: a.unfold(1, 2, 2), lambda T, a: a.rot90(3),
              lambda T, a: a.repeat_interleave(T.tensor([2, 0, 1]), 0),
              lambda T, a: T.select_scatter(a, a[0], 0, 2), lambda T, a: a.tile((2,))):
        out, ref = f(mt, x), f(torch, tx)
        assert str(out.dtype) == str(ref.dtype)
        np.testing.assert_array_equal(out.numpy(), ref.numpy())


def test_src_is_cast_to_the_input_dtype_and_its_gradient_to_its_own():
    torch = _torch()
    a = np.arange(12.0).reshape(3, 4)
    x = mt.tensor(a, dtype=mt.float32, requires_grad=True)
    src = mt.tensor([1.5, 2.5, 3.5], dtype=mt.float64, requires_grad=True)
    out = mt.diagonal_scatter(x, src)
    tout = torch.diagonal_scatter(torch.tensor(a, dtype=torch.float32),
                                  torch.tensor([1.5, 2.5, 3.5], dtype=torch.float64))
    assert out.dtype is mt.float32 and str(tout.dtype) == "torch.float32"
    out.sum().backward()
    assert src.grad.dtype is mt.float64 and src.grad.tolist() == [1, 1, 1]
    as_int = mt.diagonal_scatter(mt.zeros(2, 2, dtype=mt.int64), mt.tensor([1.7, -2.7]))
    assert as_int.tolist() == torch.diagonal_scatter(
        torch.zeros(2, 2, dtype=torch.int64), torch.tensor([1.7, -2.7])).tolist()


# -- values beyond the harness: repeats, splits, several inputs -------------------------------
@pytest.mark.parametrize("counts", [[2, 0, 1], [0, 0, 0], [3], [0, 4, 0, 1, 0]])
def test_repeat_interleave_of_counts_alone_matches_torch(counts, device):
    torch = _torch()
    out = mt.repeat_interleave(mt.tensor(counts, device=device))
    assert out.dtype is mt.int64
    assert out.tolist() == torch.repeat_interleave(torch.tensor(counts)).tolist()


@pytest.mark.parametrize("call", [
    lambda T, x: x.tensor_split(5, 1), lambda T, x: x.tensor_split([-1, 9, 0], 1),
    lambda T, x: x.tensor_split((), 0), lambda T, x: T.tensor_split(x, T.tensor(2), 0),
    lambda T, x: x.hsplit([3, 1]), lambda T, x: x.vsplit(3), lambda T, x: x.split_with_sizes([3]),
    lambda T, x: T.atleast_1d(x, x), lambda T, x: T.atleast_3d((x,)),
])
def test_pieces_match_torch(call):
    torch = _torch()
    x, tx = _both((3, 4))
    pieces, reference = call(mt, x), call(torch, tx)
    assert type(pieces) is tuple and len(pieces) == len(reference)
    for piece, ref in zip(pieces, reference):
        np.testing.assert_array_equal(piece.numpy(), ref.numpy())


def test_a_one_tensor_call_returns_the_tensor_itself_when_it_has_the_dims():
    x = mt.ones(2, 3)
    assert mt.atleast_1d(x) is x and mt.atleast_2d(x) is x and x.tile(()) is not x


def test_empty_inputs():
    torch = _torch()
    for f in (lambda T, a: a.diagonal(), lambda T, a: T.diag_embed(a), lambda T, a: a.rot90(),
              lambda T, a: a.unfold(0, 0, 1), lambda T, a: a.repeat_interleave(3, 1),
              lambda T, a: a.tile((2, 2)), lambda T, a: T.column_stack([a, a]),
              lambda T, a: a.ravel(), lambda T, a: a.tensor_split(2, 1)[0]):
        out, ref = f(mt, mt.ones(0, 3)), f(torch, torch.ones(0, 3))
        assert tuple(out.shape) == tuple(ref.shape)


# -- meta -----------------------------------------------------------------------------------------
def test_meta_tensor_repeats_need_output_size():
    x = mt.empty(3, 2, device="meta")
    counts = mt.empty(3, dtype=mt.int64, device="meta")
    assert x.repeat_interleave(counts, dim=0, output_size=5).shape == (5, 2)
    with pytest.raises(NotImplementedError, match="give output_size="):
        x.repeat_interleave(counts, dim=0)


def test_huge_meta_views_and_copies_cost_nothing():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    assert x.diagonal(0, 0, 1).shape == (2**10, 2**20)
    assert x.unfold(2, 16, 8).shape == (2**20, 2**20, 127, 16)
    out = mt.diag_embed(x[0, 0])
    assert out.shape == (2**10, 2**10) and out.grad_fn.name() == "DiagEmbedBackward0"
    out.sum().backward()
    assert x.grad.shape == x.shape and x.grad.is_meta


def test_meta_case_with_a_constant_source_tensor():
    check_meta(Case("select_scatter", lambda T, F, a, s: T.select_scatter(a, s, 1, 0),
                    [Arg((3, 4)), Arg((3,), grad=False)]))


# -- errors ---------------------------------------------------------------------------------------
ERRORS = [
    (lambda x: x[0, 0].diagonal(), IndexError, "diagonal: Dimension out of range (expected to be "
     "in range of [-1, 0], but got 1)"),
    (lambda x: x.diagonal(0, 1, -1), RuntimeError, "diagonal dimensions cannot be identical 1, -1"),
    (lambda x: x.diagonal(1.0), TypeError, "diagonal(): argument 'offset' must be int, not "
     "float"),
    (lambda x: mt.diag_embed(x, 0, 0, 3), IndexError, "diag_embed: Dimension out of range "
     "(expected to be in range of [-3, 2], but got 3)"),
    (lambda x: mt.diag_embed(x, 0, 2, -1), RuntimeError, "diagonal dimensions cannot be "
     "identical 2, -1"),
    (lambda x: mt.diagflat(x, 0.5), TypeError, "diagflat(): argument 'offset' must be int, not "
     "float"),
    (lambda x: mt.diagonal_scatter(x, x[0]), RuntimeError, "expected src to have a size equal "
     "to the slice of self. src size = [4], slice size = [3]"),
    (lambda x: mt.select_scatter(x, x[:, 0], 0, 1), RuntimeError, "expected src to have a size "
     "equal to the slice of self. src size = [3], slice size = [4]"),
    (lambda x: mt.select_scatter(x, x[0], 0, 3), IndexError, "select(): index 3 out of range "
     "for tensor of size [3, 4] at dimension 0"),
    (lambda x: mt.select_scatter(x[0, 0], x[0, 0], 0, 0), IndexError,
     "select() cannot be applied to a 0-dim tensor."),
    (lambda x: mt.slice_scatter(x, x[:, :2], 1, 0, 4, 0), RuntimeError,
     "slice step must be positive, but got step=0"),
    (lambda x: mt.slice_scatter(x, x, 1, 0, 4, 2), RuntimeError, "expected src to have a size "
     "equal to the slice of self. src size = [3, 4], slice size = [3, 2]"),
    (lambda x: mt.slice_scatter(x[0, 0], x[0, 0]), IndexError,
     "slice() cannot be applied to a 0-dim tensor."),
    (lambda x: x.unfold(1, 5, 1), RuntimeError, "maximum size for tensor at dimension 1 is 4 but "
     "size is 5"),
    (lambda x: x.unfold(1, 2, 0), RuntimeError, "step is 0 but must be > 0"),
    (lambda x: x.unfold(1, -1, 0), RuntimeError, "size is -1 but must be >= 0"),
    (lambda x: x.unfold(2, 1, 1), IndexError, "unfold: Dimension out of range (expected to be in "
     "range of [-2, 1], but got 2)"),
    (lambda x: x.tile((2, -1)), RuntimeError, "repeat: repeats must be non-negative, but got "
     "(2, -1)"),
    (lambda x: x.tile(2.0), TypeError, "tile(): argument 'dims' must be tuple of ints, not "
     "float"),
    (lambda x: x.repeat_interleave(-1), RuntimeError, "Repeats must be non-negative"),
    (lambda x: x.repeat_interleave(2, output_size=3), RuntimeError, "repeat_interleave: Invalid "
     "output_size, expected 24 but got 3"),
    (lambda x: x.repeat_interleave(2, dim=5), IndexError, "repeat_interleave: Dimension out of "
     "range (expected to be in range of [-2, 1], but got 5)"),
    (lambda x: x.repeat_interleave(mt.ones(2, 2, dtype=mt.long, device=x.device), dim=0),
     RuntimeError, "repeats must be 0-dim or 1-dim tensor"),
    (lambda x: x.repeat_interleave(mt.ones(2, dtype=mt.long, device=x.device), dim=0),
     RuntimeError, "repeats must have the same size as input along dim, but got "
     "repeats.size(0) = 2 and input.size(0) = 3"),
    (lambda x: x.repeat_interleave(mt.ones(3, device=x.device), dim=0), NotImplementedError,
     "repeat_interleave: repeats must be an integer tensor, but got torch.float32; convert it "
     "with .long()"),
    (lambda x: x.tensor_split(0, 1), RuntimeError, "number of sections must be larger than 0, "
     "got 0"),
    (lambda x: x[0, 0].tensor_split(2), RuntimeError, "tensor_split expected at least a "
     "1-dimensional tensor, but got a tensor with 0 dims"),
    (lambda x: x.tensor_split(mt.ones(1, device=x.device)), RuntimeError, "tensor_split "
     "expected tensor_indices_or_sections to have dtype of long, but got torch.float32"),
    (lambda x: x.tensor_split(mt.ones(1, 1, dtype=mt.long, device=x.device)), RuntimeError,
     "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
     "one-dimensional tensor, but got a tensor with 2 dims"),
    (lambda x: x.tensor_split(2.5), TypeError, "tensor_split(): argument 'indices_or_sections' "
     "must be an int, a sequence of ints or a long tensor, not float"),
    (lambda x: x.hsplit(3), RuntimeError, "torch.hsplit attempted to split along dimension 1, "
     "but the size of the dimension 4 is not divisible by the split_size 3!"),
    (lambda x: x.hsplit(0), RuntimeError, "torch.hsplit attempted to split along dimension 1, "
     "but the size of the dimension 4 is not divisible by the split_size 0!"),
    (lambda x: x[0, 0].hsplit(1), RuntimeError, "torch.hsplit requires a tensor with at least 1 "
     "dimension, but got a tensor with 0 dimensions!"),
    (lambda x: x[0].vsplit(1), RuntimeError, "torch.vsplit requires a tensor with at least 2 "
     "dimension, but got a tensor with 1 dimensions!"),
    (lambda x: x.dsplit(1), RuntimeError, "torch.dsplit requires a tensor with at least 3 "
     "dimension, but got a tensor with 2 dimensions!"),
    (lambda x: x.split_with_sizes([1, 1]), RuntimeError, "split_with_sizes expects split_sizes "
     "to sum exactly to 3 (input tensor's size at dimension 0), but got split_sizes=[1, 1]"),
    (lambda x: x.split_with_sizes(3), TypeError, "split_with_sizes(): argument 'split_sizes' "
     "(position 2) must be tuple of ints, not int"),
    (lambda x: mt.column_stack([]), RuntimeError, "column_stack expects a non-empty TensorList"),
    (lambda x: mt.column_stack([x, x[0, :2]]), mt.ShapeError, "cat: sizes of tensors must match "
     "except in dimension 1. Expected size 3 but got size 2 for tensor number 1 in the list"),
    (lambda x: x.rot90(1, [0]), RuntimeError, "expected total rotation dims == 2, but got dims "
     "= 1"),
    (lambda x: x[0].rot90(), RuntimeError, "expected total dims >= 2, but got total dims = 1"),
    (lambda x: x.rot90(1, [0, -2]), RuntimeError, "expected rotation dims to be different, but "
     "got dim0 = 0 and dim1 = -2"),
    (lambda x: x.rot90(1, [0, 2]), IndexError, "rot90: Dimension out of range (expected to be "
     "in range of [-2, 1], but got 2)"),
    (lambda x: x[0].fliplr(), RuntimeError, "Input must be >= 2-d. (got a tensor of shape "
     "(4,))"),
    (lambda x: x[0, 0].flipud(), RuntimeError, "Input must be >= 1-d. (got a 0-d tensor)"),
    (lambda x: x.broadcast_to((4,)), RuntimeError, "expand: the number of sizes provided (1) "
     "must be greater or equal to the number of dimensions in the tensor (2): (4,) for a tensor "
     "of shape (3, 4)"),
    (lambda x: x.broadcast_to(2.0), TypeError, "broadcast_to(): argument 'size' must be tuple of "
     "ints, not float"),
    (lambda x: x.rot90(1, [0, 4]), IndexError, "rot90: Dimension out of range (expected to be "
     "in range of [-2, 1], but got 4)"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors_same_on_cpu_and_meta(call, error, message):
    for device in ("cpu", "meta"):
        x = mt.ones(3, 4, device=device)
        with pytest.raises(error) as info:
            call(x)
        assert str(info.value) == message, (device, str(info.value))


@pytest.mark.parametrize("call", [e[0] for e in ERRORS])
def test_torch_raises_the_same_error_type(call):
    torch = _torch()
    expected = next(e[1] for e in ERRORS if e[0] is call)
    if expected is mt.ShapeError:
        expected = RuntimeError
    with pytest.raises(expected):
        _call_on_torch(call, torch)


def _call_on_torch(call, torch):
    """Run an error case on PyTorch: ``mt`` in its body stands for torch there."""
    namespace = dict(call.__globals__, mt=torch)
    fresh = type(call)(call.__code__, namespace)
    return fresh(torch.ones(3, 4))
