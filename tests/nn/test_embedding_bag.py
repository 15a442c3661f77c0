"""F.embedding_bag and nn.EmbeddingBag: sum, mean and max bags, offsets, empty bags,
per_sample_weights, padding_idx, include_last_offset; values, gradients, meta shapes and
grad_fn names against PyTorch, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, check_gradients, check_meta, three_way_tests

W = Arg((8, 3))
I1 = Arg((10,), "int:8")
OFFSETS = [0, 3, 3, 7]  # bag 1 is empty


def _bag(mode, offsets=OFFSETS, **options):
    def call(T, F, w, i, *psw):
        o = None if offsets is None else T.tensor(offsets, dtype=T.int64, device=w.device)
        return F.embedding_bag(i, w, o, mode=mode, per_sample_weights=psw[0] if psw else None,
                               **options)
    return call


CASES = [
    Case("sum", _bag("sum"), [W, I1]),
    Case("mean", _bag("mean"), [W, I1]),
    Case("max", _bag("max"), [W, I1]),
    Case("2d_sum", _bag("sum", None), [W, Arg((4, 3), "int:8")]),
    Case("2d_mean", _bag("mean", None), [W, Arg((4, 3), "int:8")]),
    Case("2d_max", _bag("max", None), [W, Arg((4, 3), "int:8")]),
    Case("per_sample_weights", _bag("sum"), [W, I1, Arg((10,))]),
    Case("per_sample_weights_2d", _bag("sum", None), [W, Arg((4, 3), "int:8"), Arg((4, 3))]),
    Case("per_sample_weights_constant", _bag("sum"), [W, I1, Arg((10,), grad=False)]),
    Case("padding_mean", _bag("mean", padding_idx=2), [W, Arg((10,), "int:4")]),
    Case("padding_max", _bag("max", padding_idx=-8), [W, Arg((10,), "int:3")]),
    Case("padding_sum_weights", _bag("sum", padding_idx=1),
         [W, Arg((10,), "int:4"), Arg((10,))]),
    Case("include_last_offset", _bag("mean", [0, 3, 3, 7, 10], include_last_offset=True),
         [W, I1]),
    Case("include_last_offset_max", _bag("max", [0, 4, 10], include_last_offset=True),
         [W, I1]),
    Case("trailing_empty_bags", _bag("sum", [0, 10, 10]), [W, I1]),
    Case("no_indices", _bag("mean", [0, 0]), [W, Arg((0,), "int:8")]),
    Case("int32_indices", lambda T, F, w, i: F.embedding_bag(i.int(), w, T.tensor(
        [0, 5], device=w.device), mode="sum"), [W, I1]),
    # The layer's weight is a new leaf: the table comes in without a gradient of its own.
    Case("module_mean", lambda T, F, w, i: T.nn.EmbeddingBag.from_pretrained(
        w, freeze=False)(i), [Arg((8, 3), grad=False), Arg((3, 4), "int:8")]),
    Case("module_max_offsets", lambda T, F, w, i: T.nn.EmbeddingBag.from_pretrained(
        w, freeze=False, mode="max")(i, T.tensor([0, 2, 6], device=w.device)),
         [Arg((8, 3), grad=False), I1]),
    Case("module_sum_weights", lambda T, F, w, i, p: T.nn.EmbeddingBag.from_pretrained(
        w, mode="sum")(i, per_sample_weights=p),
         [Arg((8, 3), grad=False), Arg((3, 4), "int:8"), Arg((3, 4))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_scale_grad_by_freq_divides_by_each_index_count(device):
    """PyTorch's documented rule (its CPU embedding_bag kernel divides some rows by another
    index's count: see docs/differences.md)."""
    weight = mt.zeros(4, 2, device=device, requires_grad=True)
    indices = mt.tensor([1, 1, 2, 1, 3], device=device)
    out = mF.embedding_bag(indices, weight, mt.tensor([0, 3], device=device), mode="sum",
                           scale_grad_by_freq=True)
    out.backward(mt.tensor([[1.0, 2.0], [10.0, 20.0]], device=device))
    # row 1: (1 + 1 + 10) / 3 occurrences; row 2: 1 / 1; row 3: 10 / 1
    np.testing.assert_allclose(weight.grad.cpu().numpy(),
                               [[0, 0], [4.0, 8.0], [1.0, 2.0], [10.0, 20.0]])


SHORT_END = Case("include_last_offset_short", _bag("sum", [0, 3, 7], include_last_offset=True),
                 [W, I1])


def test_a_last_offset_before_the_end_ends_the_last_bag(device, torch_ref):
    """Indices after it are in no bag, as in PyTorch's float32 kernel (its float64 kernel
    reads on to the end, and its backward returns garbage here: values only)."""
    check_gradients(SHORT_END, device)
    check_meta(SHORT_END)
    weight, indices = SHORT_END.arrays()
    weight = weight.astype(np.float32)
    out = SHORT_END.fn(mt, mF, mt.tensor(weight, device=device), mt.tensor(indices,
                                                                           device=device))
    ref = SHORT_END.fn(torch_ref, torch_ref.nn.functional, torch_ref.tensor(weight),
                       torch_ref.tensor(indices))
    np.testing.assert_allclose(out.cpu().numpy(), ref.numpy(), rtol=1e-6)
    np.testing.assert_allclose(out.cpu().numpy()[1], weight[indices[3:7]].sum(0), rtol=1e-6)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_no_offsets_make_no_bags(mode, device):
    """(PyTorch 2.13's CPU backward crashes on this one, so no comparison.)"""
    weight = mt.ones(4, 2, device=device, requires_grad=True)
    out = mF.embedding_bag(mt.tensor([1, 2, 3], device=device), weight,
                           mt.tensor([], dtype=mt.int64, device=device), mode=mode)
    assert out.shape == (0, 2)
    out.sum().backward()
    assert weight.grad.tolist() == [[0.0, 0.0]] * 4


def test_max_of_an_empty_bag_is_zero_and_gets_no_gradient(device):
    weight = mt.tensor([[-1.0, -2.0], [-3.0, -4.0]], device=device, requires_grad=True)
    out = mF.embedding_bag(mt.tensor([1, 0], device=device), weight,
                           mt.tensor([0, 0, 1], device=device), mode="max")
    assert out.tolist() == [[0.0, 0.0], [-3.0, -4.0], [-1.0, -2.0]]
    out.sum().backward()
    assert weight.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("args", [
    (10, 3), (10, 3, None, 2.0, False, "sum"), (5, 2, None, 3.0, True, "mean"),
])
def test_module_repr_matches_torch(args, torch_ref):
    assert repr(mt.nn.EmbeddingBag(*args)) == repr(torch_ref.nn.EmbeddingBag(*args))
    kwargs = dict(mode="max", padding_idx=-1, include_last_offset=True)
    assert repr(mt.nn.EmbeddingBag(7, 2, **kwargs)) == repr(torch_ref.nn.EmbeddingBag(7, 2,
                                                                                     **kwargs))


def test_module_weight_is_normal_with_a_zero_padding_row():
    bag = mt.nn.EmbeddingBag(50, 4, padding_idx=3)
    assert bag.weight.shape == (50, 4) and bag.weight.requires_grad
    assert bag.weight[3].tolist() == [0.0] * 4
    assert 0.5 < bag.weight.std().item() < 1.5


def _call(T, device, indices, offsets=None, weight_shape=(10, 3), **options):
    weight = T.ones(*weight_shape, device=device)
    i = T.tensor(indices, device=device) if isinstance(indices, list) else indices(T, device)
    o = None if offsets is None else T.tensor(offsets, device=device)
    return T.nn.functional.embedding_bag(i, weight, o, **options)


PYTHON_ERRORS = [
    (dict(indices=[[1, 2]], offsets=[0]), ValueError, "if input is 2D, then offsets has to be "
     "None, as input is treated is a mini-batch of fixed length sequences. However, found "
     "offsets of type {type}"),
    (dict(indices=[1, 2]), ValueError, "offsets has to be a 1D Tensor but got None"),
    (dict(indices=[1, 2], offsets=[[0]]), ValueError, "offsets has to be a 1D Tensor"),
    (dict(indices=lambda T, d: T.zeros(1, 1, 1, dtype=T.int64, device=d)), ValueError,
     "input has to be 1D or 2D Tensor, but got Tensor of dimension 3"),
    (dict(indices=[1], offsets=[0], weight_shape=(10,)), ValueError,
     "weight has to be a 2D Tensor, but got Tensor of dimension 1"),
    (dict(indices=[1], offsets=[0], mode="median"), ValueError,
     "mode has to be one of sum, mean or max"),
    (dict(indices=[1], offsets=[0], mode="max", scale_grad_by_freq=True), ValueError,
     "max mode does not support scaling the gradient by the frequency"),
]


@pytest.mark.parametrize("options, error, message", PYTHON_ERRORS)
def test_argument_errors_match_torch_on_cpu_and_meta(options, error, message, torch_ref):
    for T, device in ((mt, "cpu"), (mt, "meta"), (torch_ref, "cpu")):
        with pytest.raises(error) as info:
            _call(T, device, **options)
        assert str(info.value) == message.format(type=T.Tensor), (T.__name__, device)


def test_per_sample_weights_need_sum_mode_and_the_input_shape(torch_ref):
    for T in (mt, torch_ref):
        weights = T.ones(2)
        with pytest.raises(NotImplementedError, match="per_sample_weights is only supported "
                                                      "for mode='sum' \\(got mode='mean'\\)"):
            _call(T, "cpu", [1, 2], [0], per_sample_weights=weights)
        with pytest.raises(ValueError, match="it must have the same shape as the input"):
            _call(T, "cpu", [1, 2], [0], mode="sum", per_sample_weights=T.ones(3))


@pytest.mark.parametrize("options, message", [
    (dict(indices=[1, 2], offsets=[1]), "offsets[0] has to be 0"),
    (dict(indices=[1, 2], offsets=[0, 3]), "offsets[-1] can not be greater than input's length "
                                           "2 but got offsets[-1] of 3"),
    (dict(indices=[1, 12], offsets=[0]), "Index 1 of input takes value 12 which is not in the "
                                         "valid range [0, 10)"),
    (dict(indices=[-1, 2], offsets=[0]), "Index 0 of input takes value -1 which is not in the "
                                         "valid range [0, 10)"),
    (dict(indices=[1], offsets=[0], padding_idx=10), "padding_idx must be within the number "
                                                     "of embeddings, -10 through 9, but got 10"),
])
def test_value_errors_match_torch(options, message, device, torch_ref):
    for T, where in ((mt, device), (torch_ref, "cpu")):
        with pytest.raises(RuntimeError) as info:
            _call(T, where, **options)
        assert message in str(info.value), T.__name__


def test_dtype_errors_match_torch_on_cpu_and_meta(torch_ref):
    for T, device in ((mt, "cpu"), (mt, "meta"), (torch_ref, "cpu")):
        weight = T.ones(4, 2, device=device)
        offsets = T.tensor([0], device=device)
        with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar "
                                               "types: Long, Int; but got torch.FloatTensor"):
            T.nn.functional.embedding_bag(T.ones(2, device=device), weight, offsets)
        with pytest.raises(RuntimeError, match="'weight' to have one of the following scalar "
                                               "types"):
            T.nn.functional.embedding_bag(T.tensor([1], device=device), weight.int(), offsets)
        with pytest.raises(RuntimeError, match="to have the same type as tensor for argument "
                                               "#1 'per_sample_weights'"):
            T.nn.functional.embedding_bag(T.tensor([1], device=device), weight, offsets,
                                          mode="sum", per_sample_weights=T.ones(
                                              1, dtype=T.float64, device=device))


def test_unsupported_options_say_so():
    with pytest.raises(NotImplementedError, match="sparse"):
        mF.embedding_bag(mt.tensor([1]), mt.ones(4, 2), mt.tensor([0]), sparse=True)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_output_keeps_the_weight_dtype(dtype, device):
    weight = mt.ones(4, 2, dtype=getattr(mt, dtype), device=device)
    for mode in ("sum", "mean", "max"):
        out = mF.embedding_bag(mt.tensor([[1, 2]], device=device), weight, mode=mode)
        assert out.dtype is weight.dtype and out.tolist() == [[float(mode == "sum") + 1] * 2]
