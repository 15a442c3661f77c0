"""F.pad: constant (any dims, negative pads crop), reflect, replicate, circular; errors."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S3, S4 = (2, 3, 5), (2, 3, 4, 5)


def _pad(pad, mode="constant", value=None):
    return lambda T, F, a: F.pad(a, pad, mode=mode, value=value)


CASES = [
    Case("constant_1d", _pad((1, 2)), [Arg(S3)]),
    Case("constant_2d_value", _pad((2, 0, 1, 3), value=1.5), [Arg(S4)]),
    Case("constant_3d", _pad((1, 1, 0, 2, 1, 0)), [Arg(S4)]),
    Case("constant_all_dims", _pad((1, 0, 0, 1, 2, 1, 1, 1)), [Arg(S4)]),
    Case("constant_crops", _pad((-1, 2, -2, -1)), [Arg(S4)]),
    Case("constant_crop_to_empty", _pad((-3, -2)), [Arg(S3)]),
    Case("constant_positional_mode", lambda T, F, a: F.pad(a, [1, 1], "constant", -2.0),
         [Arg((4,))]),
    Case("constant_0d_no_pad", _pad(()), [Arg(())]),
    Case("constant_int", _pad((1, 1), value=2.7), [Arg(S3, "int:5")]),
    Case("constant_bool", _pad((1, 0), value=1), [Arg(S3, "bool")]),
    Case("constant_empty_dim", _pad((1, 1)), [Arg((2, 0, 3))]),
    Case("reflect_1d", _pad((2, 4), "reflect"), [Arg(S3)]),
    Case("reflect_1d_unbatched", _pad((3, 1), "reflect"), [Arg((3, 4))]),
    Case("reflect_2d", _pad((1, 4, 3, 2), "reflect"), [Arg(S4)]),
    Case("reflect_2d_unbatched", _pad((2, 2, 1, 1), "reflect"), [Arg((3, 4, 5))]),
    Case("reflect_negative", _pad((-1, 3, 2, -2), "reflect"), [Arg(S4)]),
    Case("reflect_3d", _pad((1, 2, 0, 3, 2, 1), "reflect"), [Arg((1, 2, 3, 4, 5))]),
    Case("reflect_int", _pad((1, 2), "reflect"), [Arg(S3, "int:9")]),
    Case("replicate_1d", _pad((3, 7), "replicate"), [Arg(S3)]),
    Case("replicate_2d", _pad((4, 1, 0, 6), "replicate"), [Arg(S4)]),
    Case("replicate_negative", _pad((-4, 2, 1, -3), "replicate"), [Arg(S4)]),
    Case("replicate_one_empty_dim", _pad((0, 0, -4, 0), "replicate"), [Arg(S4)]),
    Case("replicate_3d_unbatched", _pad((1, 1, 2, 0, 0, 3), "replicate"), [Arg((2, 3, 4, 2))]),
    Case("replicate_empty_batch", _pad((1, 2), "replicate"), [Arg((0, 3, 4))]),
    Case("circular_1d", _pad((2, 5), "circular"), [Arg(S3)]),
    Case("circular_2d", _pad((5, 5, 4, 1), "circular"), [Arg(S4)]),
    Case("circular_crop_then_wrap", _pad((-1, 2, 1, -2), "circular"), [Arg(S4)]),
    Case("circular_3d", _pad((1, 0, 2, 1, 1, 2), "circular"), [Arg((1, 2, 3, 4, 5))]),
    Case("circular_bool", _pad((1, 2), "circular"), [Arg(S3, "bool")]),
    Case("pad_then_sum_of_squares", lambda T, F, a: (F.pad(a, (1, 2, 2, 1), "reflect") ** 2).sum(),
         [Arg(S4)]),
]
# PyTorch's circular padding is a chain of in-place slice copies: its node is
# ``torch::autograd::CopySlices``; ours is named ``CopySlices`` (what its repr shows).
CIRCULAR = [c.id for c in CASES if c.id.startswith("circular")]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES,
                                                                        name_differs=CIRCULAR)


def test_values_by_hand(device):
    x = mt.arange(4.0, device=device).reshape(1, 1, 4)
    F = mt.nn.functional
    assert F.pad(x, (2, 1), "reflect").tolist() == [[[2, 1, 0, 1, 2, 3, 2]]]
    assert F.pad(x, (2, 1), "replicate").tolist() == [[[0, 0, 0, 1, 2, 3, 3]]]
    assert F.pad(x, (2, 1), "circular").tolist() == [[[2, 3, 0, 1, 2, 3, 0]]]
    assert F.pad(x, (-1, 2), "circular").tolist() == [[[1, 2, 3, 1, 2]]]  # wraps the crop
    assert F.pad(x, (1, -2), value=9.0).tolist() == [[[9, 0, 1]]]


def test_reflected_positions_accumulate_their_gradients(device):
    x = mt.ones(1, 1, 3, device=device, requires_grad=True)
    mt.nn.functional.pad(x, (2, 2), "reflect").sum().backward()
    # [2, 1, | 0, 1, 2 |, 1, 0]: the middle element is read three times, the ends twice
    assert x.grad.tolist() == [[[2.0, 3.0, 2.0]]]


def test_grad_fn_names_and_dtypes():
    F = mt.nn.functional
    x = mt.rand(1, 2, 4, 4, requires_grad=True, dtype=mt.float64)
    assert F.pad(x, (1, 1)).grad_fn.name() == "ConstantPadNdBackward0"
    assert F.pad(x[0], (1, 1), "reflect").grad_fn.name() == "ReflectionPad1DBackward0"
    assert F.pad(x, (1, 1, 1, 1), "replicate").grad_fn.name() == "ReplicationPad2DBackward0"
    assert F.pad(x, (1, 1, 1, 1, 1, 1), "reflect").grad_fn.name() == "ReflectionPad3DBackward0"
    assert F.pad(x, (1, 1, 0, 0), "circular").grad_fn.name() == "CopySlices"
    assert F.pad(x, (1, 1, 0, 0), "reflect").dtype is mt.float64
    assert F.pad(mt.zeros(2, 2, dtype=mt.uint8), (1, 1), value=255).tolist()[0] == [255, 0, 0,
                                                                                    255]


def test_a_huge_meta_tensor_is_padded_without_data():
    x = mt.empty(2**20, 2**10, 2**10, 2**10, device="meta", requires_grad=True)
    F = mt.nn.functional
    F.pad(x, (1, 1, 1, 1), "reflect")  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        outs = [F.pad(x, (1, 2, 3, 4), mode) for mode in ("constant", "reflect", "replicate",
                                                           "circular")]
        sum(o.sum() for o in outs).backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert all(o.shape == (2**20, 2**10, 2**10 + 7, 2**10 + 3) for o in outs)
    assert x.grad.is_meta and x.grad.shape == x.shape
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


def _p(*args, **kwargs):
    return lambda x: mt.nn.functional.pad(x, *args, **kwargs)


@pytest.mark.parametrize("call, error, message", [
    (_p((1, 2, 3)), RuntimeError,
     "Padding length must be divisible by 2, but got padding (1, 2, 3) of length 3"),
    (_p((1,) * 8), RuntimeError,
     "Padding length should be less than or equal to two times the input dimension but got "
     "padding length 8 and input of dimension 3"),
    (_p(2), TypeError, "pad(): argument 'pad' (position 2) must be tuple of ints, not int"),
    (_p((1.5, 1)), TypeError, "pad(): argument 'pad' (position 2) must be tuple of ints, but "
                              "found element of type float at pos 0"),
    (_p((True, 1)), TypeError, "pad(): argument 'pad' (position 2) must be tuple of ints, but "
                               "found element of type bool at pos 0"),  # as PyTorch
    (_p((1, 1), "foo"), NotImplementedError,
     "Unrecognised padding mode foo (expected one of constant, reflect, replicate, circular)"),
    (_p((1, 1), "reflect", 2.0), RuntimeError,
     'Padding mode "reflect" doesn\'t take in value argument'),
    (_p((1, 1, 1, 1, 1, 1), "replicate"), NotImplementedError,
     "Padding size 6 is not supported for 3D input tensor. (mode 'replicate' pads the last k "
     "dims of a (k+1)-D or batched (k+2)-D input, k = 1, 2 or 3)"),
    (_p((4, 0), "reflect"), RuntimeError,
     "Argument #4: Padding size should be less than the corresponding input dimension, but "
     "got: padding (4, 0) at dimension 2 of input [2, 3, 4]"),
    (_p((0, 1, 3, 0), "reflect"), RuntimeError,
     "Argument #6: Padding size should be less than the corresponding input dimension, but "
     "got: padding (3, 0) at dimension 1 of input [2, 3, 4]"),
    (_p((-3, -1), "replicate"), RuntimeError,
     "input (W: 4) is too small. Calculated output W: 0"),
    (_p((-2, -2, -3, 0), "reflect"), RuntimeError,
     "input (H: 3, W: 4) is too small. Calculated output H: 0 W: 0"),
    (_p((-5, 0, 1, 1), "replicate"), RuntimeError,
     "Trying to create tensor with negative dimension -1: [2, 5, -1] (pad: padding "
     "(-5, 0, 1, 1) for input shape (2, 3, 4))"),
    (_p((5, 0), "circular"), RuntimeError,
     "Padding value causes wrapping around more than once. (padding (5, 0) for a dimension of "
     "size 4)"),
    (_p((-3, 2), "circular"), RuntimeError,
     "Padding value causes wrapping around more than once. (padding (-3, 2) wraps around the 1 "
     "element(s) the negative pad leaves of a dimension of size 4)"),
    (_p((-4, -1), "circular"), RuntimeError,
     "Negative padding value is resulting in an empty dimension (padding (-4, -1) for a "
     "dimension of size 4)"),
    (_p((-3, -2)), RuntimeError,
     "narrow(): length must be non-negative. (pad: padding (-3, -2) removes 5 elements from "
     "dimension 2 of size 4, input shape (2, 3, 4))"),
    (lambda x: mt.nn.functional.pad(x.bool(), (1, 1), "reflect"), NotImplementedError,
     "\"reflection_pad1d\" not implemented for 'Bool'"),
    (lambda x: mt.nn.functional.pad(x.long(), (1, 1), value=float("nan")), RuntimeError,
     "pad: value cannot be converted to type torch.int64 without overflow (value=nan)"),
    (lambda x: mt.nn.functional.pad(x.to(mt.uint8), (1, 1), value=-1), RuntimeError,
     "pad: value cannot be converted to type torch.uint8 without overflow (value=-1)"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


@pytest.mark.parametrize("shape", [(3, 0, 4), (2, 3, 0)])
def test_reflect_and_replicate_refuse_empty_non_batch_dims(shape):
    message = (f"Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other "
               f"non-zero dimensions for input, but got: {list(shape)}")
    for mode in ("reflect", "replicate"):
        check_same_error_on_cpu_and_meta(_p((1, 1), mode), RuntimeError, message, shape)


def test_errors_match_torchs_type_and_start():
    torch = pytest.importorskip("torch")
    for pad, mode in [((1, 2, 3), "constant"), ((4, 0), "reflect"), ((5, 0), "circular"),
                      ((1,) * 6, "reflect"), ((-3, -1), "replicate")]:
        data = np.zeros((2, 3, 4), np.float32)
        with pytest.raises(Exception) as theirs:
            torch.nn.functional.pad(torch.tensor(data), pad, mode)
        with pytest.raises(type(theirs.value)) as ours:
            mt.nn.functional.pad(mt.tensor(data), pad, mode)
        expected = str(theirs.value).split("\n")[0].split(" (")[0]
        assert str(ours.value).startswith(expected), (pad, mode)


@pytest.mark.parametrize("mode, numpy_mode", [("reflect", "reflect"), ("circular", "wrap"),
                                              ("replicate", "edge")])
@pytest.mark.parametrize("pad", [(1, 1, 1, 1), (3, 0, 2, 4), (9, 2, 0, 11)])
def test_slice_copies_match_a_gather_and_scatter_add_reference(mode, numpy_mode, pad, device):
    """Forward equals reading every output's input position; backward equals adding each
    output's gradient at its position in row-major output order (np.add.at): the same bits
    for reflect and circular; replicate sums its repeated edges in another order."""
    rng = np.random.default_rng(3)
    shape = (2, 3, 12, 13)
    data = rng.standard_normal(shape).astype(np.float32)
    rows = np.pad(np.arange(shape[2]), pad[2:], mode=numpy_mode)
    cols = np.pad(np.arange(shape[3]), pad[:2], mode=numpy_mode)
    index = (Ellipsis, rows[:, None], cols)
    gy = rng.standard_normal(shape[:2] + (len(rows), len(cols))).astype(np.float32)
    expected_gx = np.zeros(shape, np.float32)
    np.add.at(expected_gx, index, gy)
    x = mt.tensor(data, device=device, requires_grad=True)
    y = mt.nn.functional.pad(x, pad, mode)
    y.backward(mt.tensor(gy, device=device))
    assert y.detach().cpu().numpy().tobytes() == data[index].tobytes()
    if mode == "replicate":
        np.testing.assert_allclose(x.grad.cpu().numpy(), expected_gx, rtol=1e-5, atol=1e-5)
    else:
        assert x.grad.cpu().numpy().tobytes() == expected_gx.tobytes()
