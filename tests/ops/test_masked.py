"""masked_fill and masked_fill_: values, gradients (input and value), dtypes, in-place rules."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

S = (3, 4)
CASES = [
    Case("masked_fill", lambda T, F, a, m: a.masked_fill(m, 0.5), [Arg(S), Arg(S, "bool")]),
    Case("masked_fill_function", lambda T, F, a, m: T.masked_fill(a, m, -10) * 2,
         [Arg(S), Arg(S, "bool")]),
    Case("masked_fill_row_mask", lambda T, F, a, m: a.masked_fill(m, 3),
         [Arg(S), Arg((4,), "bool")]),
    Case("masked_fill_column_mask", lambda T, F, a, m: a.masked_fill(m, -2.0),
         [Arg((2, 3, 4)), Arg((3, 1), "bool")]),
    # the input broadcasts too (PyTorch's out-of-place rule): its gradient is summed back
    Case("masked_fill_mask_wider", lambda T, F, a, m: a.masked_fill(m, 1.0),
         [Arg((4,)), Arg(S, "bool")]),
    Case("masked_fill_tensor_value", lambda T, F, a, m, v: a.masked_fill(m, v),
         [Arg(S), Arg(S, "bool"), Arg(())]),
    Case("masked_fill_tensor_value_broadcast", lambda T, F, a, m, v: T.masked_fill(a, m, v),
         [Arg((4,)), Arg(S, "bool"), Arg(())]),
    Case("masked_fill_tensor_value_constant", lambda T, F, a, m, v: a.masked_fill(m, v),
         [Arg(S), Arg(S, "bool"), Arg((), grad=False)]),
    Case("masked_fill_int_truncates", lambda T, F, a, m: a.masked_fill(m, -2.7),
         [Arg(S, "int:5"), Arg(S, "bool")]),
    Case("masked_fill_bool_input", lambda T, F, m, n: m.masked_fill(n, 2),
         [Arg(S, "bool"), Arg(S, "bool")]),
    # (a 0-d mask would reach the harness as a NumPy bool scalar, not an array)
    Case("masked_fill_0d_input", lambda T, F, a, m: a.masked_fill(m, 4.0),
         [Arg(()), Arg((1,), "bool")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


MASK = [[True, False, False, True], [False, False, False, False], [True, True, False, False]]


def test_attention_style_minus_inf_then_softmax_matches_torch(device):
    torch = _torch()
    data = np.random.default_rng(0).standard_normal(S).astype(np.float32)
    x, tx = mt.tensor(data, device=device, requires_grad=True), torch.tensor(data,
                                                                             requires_grad=True)
    out = x.masked_fill(mt.tensor(MASK, device=device), float("-inf")).softmax(-1)
    ref = tx.masked_fill(torch.tensor(MASK), float("-inf")).softmax(-1)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-6)
    weights = np.arange(12.0, dtype=np.float32).reshape(S)
    out.backward(mt.tensor(weights, device=device))
    ref.backward(torch.tensor(weights))
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert (x.grad.cpu().numpy()[np.array(MASK)] == 0).all()


@pytest.mark.parametrize("dtype, value, expected", [
    (mt.uint8, -1, 255), (mt.int32, 7.9, 7), (mt.bool, 0.5, True), (mt.float32, True, 1.0),
    (mt.float64, np.float32(0.25), 0.25), (mt.int64, np.int64(-3), -3),
])
def test_the_value_is_converted_to_the_input_dtype_as_in_torch(dtype, value, expected):
    out = mt.zeros(2, dtype=dtype).masked_fill(mt.tensor([True, False]), value)
    assert out.dtype is dtype and out.tolist() == [expected, 0]


def test_in_place_under_no_grad_matches_torch_and_bumps_the_version():
    torch = _torch()
    data = np.arange(12.0, dtype=np.float32).reshape(S)
    x, tx = mt.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    with mt.no_grad():
        returned = x.masked_fill_(mt.tensor(MASK[0]), -5.0)
    with torch.no_grad():
        tx.masked_fill_(torch.tensor(MASK[0]), -5.0)
    assert returned is x and x._version == 1
    np.testing.assert_array_equal(x.detach().numpy(), tx.detach().numpy())


def test_in_place_on_a_plain_tensor_and_on_meta():
    x = mt.zeros(2, 2)
    x.masked_fill_(mt.tensor([[True, False], [False, True]]), mt.tensor(3.0))
    assert x.tolist() == [[3, 0], [0, 3]]
    meta = mt.empty(2**30, 2**20, device="meta")
    assert meta.masked_fill_(mt.empty(2**20, dtype=mt.bool, device="meta"), 1.0) is meta


def _masked_fills_in_a_graph(lib):
    x = lib.tensor([0.5, 1.5, -2.0], dtype=lib.float64, requires_grad=True)
    value = lib.tensor(3.0, dtype=lib.float64, requires_grad=True)
    mask = lib.tensor([True, False, True])
    scores = x * 2
    scores.masked_fill_(~mask, -1e9)  # the attention idiom, on a tensor in the graph
    plain = lib.zeros(3, dtype=lib.float64)
    plain.masked_fill_(mask, value)
    weights = lib.tensor([1.0, 2.0, 4.0], dtype=lib.float64)
    ((scores.softmax(0) * weights).sum() + (plain * x).sum()).backward()
    return x.grad.tolist(), value.grad.tolist()


def test_in_place_refuses_a_leaf_and_is_recorded_in_a_graph(torch_ref):
    leaf = mt.zeros(3, requires_grad=True)
    mask = mt.tensor([True, False, True])
    with pytest.raises(RuntimeError, match="masked_fill_: a leaf Variable that requires grad is "
                                           "being used in an in-place operation"):
        leaf.masked_fill_(mask, 1.0)
    ours, theirs = _masked_fills_in_a_graph(mt), _masked_fills_in_a_graph(torch_ref)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    assert ours[1] == pytest.approx(theirs[1], rel=1e-12)


def test_in_place_keeps_the_tensor_shape():
    with pytest.raises(mt.ShapeError, match=r"masked_fill_: the result of shape \(2, 3\) cannot "
                                            r"be written in place into a tensor of shape \(3,\)"):
        mt.zeros(3).masked_fill_(mt.ones(2, 3, dtype=mt.bool), 0.0)


def test_saved_mask_changed_in_place_is_detected():
    x = mt.ones(3, requires_grad=True)
    mask = mt.tensor([True, False, True])
    y = x.masked_fill(mask, 0.0)
    mask.fill_(False)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_a_huge_meta_tensor_is_masked_without_data():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    mask = mt.empty(2**20, 1, 2**10, dtype=mt.bool, device="meta")
    value = mt.empty((), device="meta", requires_grad=True)
    x.masked_fill(mask, value)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        out = x.masked_fill(mask, value)
        out.sum().backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.shape == x.shape and out.grad_fn.name() == "MaskedFillBackward1"
    assert x.grad.shape == x.shape and value.grad.shape == () and value.grad.is_meta
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


@pytest.mark.parametrize("call, error, message", [
    (lambda x, m: x.masked_fill(m.int(), 0.0), RuntimeError,
     "masked_fill only supports boolean masks, but got mask with dtype torch.int32; make one "
     "with a comparison (x > 0) or .bool()"),
    (lambda x, m: mt.masked_fill(x, m.float(), 0.0), RuntimeError,
     "masked_fill only supports boolean masks, but got mask with dtype torch.float32"),
    (lambda x, m: x.masked_fill(m, mt.ones(1, device=x.device)), RuntimeError,
     "masked_fill only supports a 0-dimensional value tensor, but got tensor with 1 "
     "dimension(s)."),
    (lambda x, m: x.masked_fill(m[:, :2], 0.0), mt.ShapeError,
     "masked_fill: mask of shape (2, 2) cannot be broadcast with the input of shape (2, 3): "
     "trailing dimensions must be equal or 1"),
    (lambda x, m: x.masked_fill(m, "a"), TypeError,
     "masked_fill(): argument 'value' must be a number or a 0-dimensional Tensor, but got str"),
    (lambda x, m: x.masked_fill(m, None), TypeError,
     "masked_fill(): argument 'value' must be a number or a 0-dimensional Tensor, but got "
     "NoneType"),
    (lambda x, m: x.to(mt.uint8).masked_fill(m, 300), RuntimeError,
     "masked_fill: value cannot be converted to type torch.uint8 without overflow "
     "(value=300)"),
    (lambda x, m: x.long().masked_fill(m, float("nan")), RuntimeError,
     "masked_fill: value cannot be converted to type torch.int64 without overflow "
     "(value=nan)"),
    (lambda x, m: x.masked_fill_(m.int(), 0.0), RuntimeError,
     "masked_fill only supports boolean masks, but got mask with dtype torch.int32"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    for device in ("cpu", "meta"):
        x = mt.ones(2, 3, device=device)
        m = mt.ones(2, 3, dtype=mt.bool, device=device)
        with pytest.raises(error) as info:
            call(x, m)
        assert str(info.value).startswith(message), (device, str(info.value))
