"""embedding and nn.Embedding: rows gathered, gradients scattered back (repeated indices
add up), padding_idx (negative too) with its zero gradient row, scale_grad_by_freq, index
dtypes and shapes, errors, and the layer (init, repr, from_pretrained, meta, to_empty)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from minitorch_meta import nn
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

W = (6, 3)
CASES = [
    Case("embedding", lambda T, F, w, i: F.embedding(i, w), [Arg(W), Arg((4,), "int:6")]),
    # 15 indices among 4 rows: most rows are picked several times
    Case("embedding_2d_repeats", lambda T, F, w, i: F.embedding(i, w), [Arg(W),
                                                                        Arg((3, 5), "int:4")]),
    Case("embedding_3d_index", lambda T, F, w, i: F.embedding(i, w) * 2,
         [Arg(W), Arg((2, 2, 3), "int:6")]),
    Case("embedding_0d_index", lambda T, F, w, i: F.embedding(i, w), [Arg(W), Arg((), "int:6")]),
    Case("embedding_empty_index", lambda T, F, w, i: F.embedding(i, w),
         [Arg(W), Arg((2, 0), "int:6")]),
    Case("embedding_int32", lambda T, F, w, i: F.embedding(i.int(), w),
         [Arg(W), Arg((3, 4), "int:6")]),
    Case("embedding_torch_spelling", lambda T, F, w, i: F.embedding(input=i, weight=w),
         [Arg((5, 1)), Arg((7,), "int:5")]),
]
# PyTorch's gradient here is not the derivative (the padding row is read but gets no
# gradient; scaled rows get a fraction of theirs), so finite differences cannot check it:
# PyTorch's values and gradients, and the meta shapes, can.
NOT_DERIVATIVES = [
    Case("embedding_padding_idx", lambda T, F, w, i: F.embedding(i, w, padding_idx=2),
         [Arg(W), Arg((4, 5), "int:4")]),
    Case("embedding_negative_padding_idx", lambda T, F, w, i: F.embedding(i, w, padding_idx=-6),
         [Arg(W), Arg((4, 5), "int:4")]),
    Case("embedding_scale_grad_by_freq",
         lambda T, F, w, i: F.embedding(i, w, padding_idx=1, scale_grad_by_freq=True),
         [Arg(W), Arg((4, 5), "int:4")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)
_, test_against_torch_not_derivatives, test_meta_shapes_not_derivatives = three_way_tests(
    NOT_DERIVATIVES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def test_repeated_indices_add_their_gradients_and_padding_gets_none(device):
    w = mt.arange(15.0, device=device).reshape(5, 3).requires_grad_(True)
    indices = mt.tensor([[1, 2, 1], [0, 1, 4]], device=device)
    out = mF.embedding(indices, w, padding_idx=1)
    assert out.tolist()[0][0] == [3.0, 4.0, 5.0]  # padding rows are still looked up
    out.sum().backward()
    assert w.grad.tolist() == [[1.0] * 3, [0.0] * 3, [1.0] * 3, [0.0] * 3, [1.0] * 3]


def test_scale_grad_by_freq_divides_by_the_count(device):
    w = mt.zeros(4, 2, device=device, requires_grad=True)
    mF.embedding(mt.tensor([3, 3, 3, 0, 2, 2], device=device), w,
                 scale_grad_by_freq=True).sum().backward()
    assert w.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("dtype", [mt.float64, mt.int64, mt.uint8])
def test_the_output_has_the_weights_dtype(dtype, device):
    torch = _torch()
    data = np.arange(12).reshape(4, 3)
    out = mF.embedding(mt.tensor([3, 0], device=device), mt.tensor(data, dtype=dtype,
                                                                    device=device))
    ref = torch.nn.functional.embedding(torch.tensor([3, 0]), torch.tensor(data).to(
        getattr(torch, str(dtype)[6:])))
    assert str(out.dtype) == str(ref.dtype) and out.tolist() == ref.tolist()


def test_the_output_is_a_copy_not_a_view_of_the_weight():
    w = mt.zeros(3, 2)
    out = mF.embedding(mt.tensor(1), w)
    with mt.no_grad():
        w.fill_(5.0)
    assert out.tolist() == [0.0, 0.0] and out._version == 0


def test_saved_indices_changed_in_place_are_detected():
    w = mt.randn(4, 2, requires_grad=True)
    indices = mt.tensor([0, 1])
    out = mF.embedding(indices, w)
    indices.fill_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_huge_meta_lookup_allocates_nothing():
    w = mt.empty(2**30, 2**12, device="meta", requires_grad=True)
    indices = mt.empty(2**20, 2**10, dtype=mt.int64, device="meta")
    mF.embedding(indices, w)  # warm up
    tracemalloc.start()
    try:
        out = mF.embedding(indices, w, padding_idx=-1)
        out.sum().backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.shape == (2**20, 2**10, 2**12) and out.grad_fn.name() == "EmbeddingBackward0"
    assert w.grad.is_meta and w.grad.shape == w.shape
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


@pytest.mark.parametrize("values, low, high", [([0, 6, 2], 0, 6), ([-1, 3], -1, 3),
                                               ([[7, -9], [0, 1]], -9, 7)])
@pytest.mark.parametrize("dtype", [mt.int64, mt.int32])
def test_an_index_out_of_range_raises_index_error(values, low, high, dtype, device):
    w = mt.ones(6, 2, device=device, requires_grad=True)
    with pytest.raises(IndexError) as info:
        mF.embedding(mt.tensor(values, dtype=dtype, device=device), w)
    assert str(info.value) == (f"index out of range in self: embedding indices must be in "
                               f"[0, 5] for a weight of 6 rows (num_embeddings), but they range "
                               f"from {low} to {high}")


def _indices_like(x, dtype=mt.int64, values=(0, 1)):
    return mt.tensor(list(values), dtype=dtype, device=x.device)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mF.embedding(_indices_like(x).float(), x[0]), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
     "Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding); "
     "convert the indices with .long()"),
    (lambda x: mF.embedding(_indices_like(x, mt.uint8), x[0]), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
     "Long, Int; but got torch.ByteTensor instead"),
    (lambda x: mF.embedding(_indices_like(x), x), mt.ShapeError,
     "embedding: 'weight' must be 2-D (num_embeddings, embedding_dim), but got a weight of "
     "shape (2, 3, 4)"),
    (lambda x: mF.embedding(_indices_like(x), x[0], padding_idx=3), AssertionError,
     "Padding_idx must be within num_embeddings: padding_idx=3, but there are 3 embeddings, so "
     "it must be in [-3, 2]"),
    (lambda x: mF.embedding(_indices_like(x), x[0], padding_idx=-4), AssertionError,
     "Padding_idx must be within num_embeddings: padding_idx=-4, but there are 3 embeddings"),
    (lambda x: mF.embedding(_indices_like(x), x[0], sparse=True), NotImplementedError,
     "embedding: sparse=True is not supported: minitorch_meta has no sparse tensors, so the "
     "weight's gradient is dense; use sparse=False"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt.ones(2, 3, 4, device=device))
        assert str(info.value).startswith(message), (device, str(info.value))


# -- the layer ---------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs", [
    ((10, 3), {}), ((10, 3), {"padding_idx": 0}), ((10, 3), {"padding_idx": -1}),
    ((7, 2), {"norm_type": 1.0}), ((7, 2), {"scale_grad_by_freq": True, "padding_idx": 4}),
])
def test_layer_repr_and_state_like_torch(args, kwargs):
    torch = _torch()
    ours, theirs = nn.Embedding(*args, **kwargs), torch.nn.Embedding(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert ours.padding_idx == theirs.padding_idx
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
    if ours.padding_idx is not None:
        assert ours.weight[ours.padding_idx].tolist() == [0.0] * args[1]


def test_layer_weight_is_standard_normal_and_trains_except_the_padding_row(device):
    mt.manual_seed(0)
    layer = nn.Embedding(1000, 50, padding_idx=3, device=device)
    weight = layer.weight.detach().cpu().numpy()
    assert abs(weight.mean()) < 0.02 and abs(weight.std() - 1) < 0.02
    optimizer = mt.optim.SGD(layer.parameters(), lr=0.1)
    before = weight.copy()
    layer(mt.tensor([[3, 5], [3, 3]], device=device)).sum().backward()
    optimizer.step()
    after = layer.weight.detach().cpu().numpy()
    assert (after[3] == 0).all() and (after[5] == before[5] - 0.1).all()
    assert (np.delete(after, 5, 0) == np.delete(before, 5, 0)).all()


def test_from_pretrained_like_torch():
    torch = _torch()
    data = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    ours = nn.Embedding.from_pretrained(mt.tensor(data), padding_idx=-1)
    theirs = torch.nn.Embedding.from_pretrained(torch.tensor(data), padding_idx=-1)
    assert repr(ours) == repr(theirs) == "Embedding(4, 2, padding_idx=3)"
    assert not ours.weight.requires_grad  # frozen by default
    assert ours.weight.tolist() == data.tolist()  # the padding row is kept as given
    trainable = nn.Embedding.from_pretrained(mt.tensor(data), freeze=False)
    assert trainable.weight.requires_grad
    trainable(mt.tensor([1, 1])).sum().backward()
    assert trainable.weight.grad.tolist() == [[0, 0], [2, 2], [0, 0], [0, 0]]


def test_from_pretrained_shares_the_storage():
    data = mt.zeros(3, 2)
    layer = nn.Embedding.from_pretrained(data)
    with mt.no_grad():
        data.fill_(1.0)
    assert layer.weight.tolist() == [[1.0, 1.0]] * 3


@pytest.mark.parametrize("make, message", [
    (lambda: nn.Embedding.from_pretrained(mt.zeros(4)),
     "Embeddings parameter is expected to be 2-dimensional, got shape (4,)"),
    (lambda: nn.Embedding(4, 2, _weight=mt.zeros(3, 2)),
     "Shape of weight does not match num_embeddings and embedding_dim: expected (4, 2), got "
     "(3, 2)"),
    (lambda: nn.Embedding(4, 2, padding_idx=4), "Padding_idx must be within num_embeddings"),
    (lambda: nn.Embedding(4, 2, padding_idx=-5), "Padding_idx must be within num_embeddings"),
])
def test_layer_construction_errors_are_torchs_assertion_errors(make, message):
    with pytest.raises(AssertionError) as info:
        make()
    assert str(info.value).startswith(message)


def test_layer_refuses_what_it_lacks():
    with pytest.raises(NotImplementedError, match="sparse=True is not supported"):
        nn.Embedding(4, 2, sparse=True)


def test_meta_construction_then_to_empty_and_reset(device):
    with mt.device("meta"):
        model = nn.Sequential(nn.Embedding(100, 8, padding_idx=0), nn.Linear(8, 2))
    table = model[0]
    assert table.weight.is_meta and table.weight.requires_grad
    out = model(mt.empty(4, 7, dtype=mt.int64, device="meta"))
    assert out.is_meta and out.shape == (4, 7, 2)
    out.sum().backward()
    assert table.weight.grad.is_meta and table.weight.grad.shape == (100, 8)
    model.to_empty(device=device)
    model.zero_grad()
    for module in model:
        module.reset_parameters()
    assert table.weight.device == tensor_device(device)
    assert table.weight[0].tolist() == [0.0] * 8 and table.weight.abs().sum().item() > 0
    model(mt.tensor([[0, 5, 99]], device=device)).sum().backward()
    assert table.weight.grad[0].abs().sum().item() == 0 and table.weight.grad[5].abs().sum() > 0


def test_the_layer_spells_errors_as_on_cpu_on_meta():
    check_same_error_on_cpu_and_meta(
        lambda x: nn.Embedding(5, 4, device=x.device)(x), RuntimeError,
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
        "Long, Int; but got torch.FloatTensor instead (while checking arguments for "
        "embedding); convert the indices with .long()")
