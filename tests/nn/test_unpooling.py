"""F.max_pool1d/2d_with_indices, F.max_unpool1d/2d with MaxUnpool1d/2d, and F.lp_pool1d/2d
with LPPool1d/2d: values, gradients, meta shapes and grad_fn names against PyTorch, reprs
and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, three_way_tests

X2 = Arg((2, 3, 6, 8), "distinct")
X1 = Arg((2, 3, 10), "distinct")


def _round_trip_2d(F, x, kernel, stride=None, padding=0, **unpool):
    y, indices = F.max_pool2d(x, kernel, stride, padding, return_indices=True)
    return F.max_unpool2d(y, indices, kernel, stride, padding, **unpool)


def _round_trip_1d(F, x, kernel, stride=None, padding=0, **unpool):
    y, indices = F.max_pool1d(x, kernel, stride, padding, return_indices=True)
    return F.max_unpool1d(y, indices, kernel, stride, padding, **unpool)


CASES = [
    Case("with_indices_2d", lambda T, F, x: F.max_pool2d_with_indices(x, 2), [X2]),
    Case("with_indices_2d_flag_ignored",
         lambda T, F, x: F.max_pool2d_with_indices(x, 3, 2, 1, 1, True, False), [X2]),
    Case("with_indices_1d", lambda T, F, x: F.max_pool1d_with_indices(x, 3, 2), [X1]),
    Case("unpool2d", lambda T, F, x: _round_trip_2d(F, x, 2), [X2]),
    Case("unpool2d_stride_padding",
         lambda T, F, x: _round_trip_2d(F, x, 3, 3, 1, output_size=x.shape[-2:]), [X2]),
    Case("unpool2d_output_size", lambda T, F, x: _round_trip_2d(F, x, 2, output_size=(7, 9)),
         [Arg((2, 3, 7, 9), "distinct")]),
    Case("unpool2d_full_output_size",
         lambda T, F, x: _round_trip_2d(F, x, 2, output_size=[2, 3, 7, 8]),
         [Arg((2, 3, 7, 8), "distinct")]),
    Case("unpool2d_unbatched", lambda T, F, x: _round_trip_2d(F, x, (2, 3)),
         [Arg((3, 4, 9), "distinct")]),
    Case("unpool2d_empty_batch", lambda T, F, x: _round_trip_2d(F, x, 2), [Arg((0, 2, 4, 4))]),
    Case("unpool2d_module",
         lambda T, F, x: T.nn.MaxUnpool2d(2)(*T.nn.MaxPool2d(2, return_indices=True)(x)),
         [X2]),
    Case("unpool2d_module_output_size",
         lambda T, F, x: T.nn.MaxUnpool2d(2)(*F.max_pool2d(x, 2, return_indices=True),
                                             output_size=x.size()),
         [Arg((1, 2, 5, 5), "distinct")]),
    Case("unpool1d", lambda T, F, x: _round_trip_1d(F, x, 2), [X1]),
    Case("unpool1d_stride_padding", lambda T, F, x: _round_trip_1d(F, x, 4, 4, 2, output_size=[10]),
         [X1]),
    Case("unpool1d_output_size", lambda T, F, x: _round_trip_1d(F, x, 3, output_size=[11]),
         [Arg((2, 3, 11), "distinct")]),
    Case("unpool1d_unbatched", lambda T, F, x: _round_trip_1d(F, x, 2), [Arg((3, 8), "distinct")]),
    Case("unpool1d_module",
         lambda T, F, x: T.nn.MaxUnpool1d(2)(*T.nn.MaxPool1d(2, return_indices=True)(x)),
         [X1]),
    Case("lp2d_p2", lambda T, F, x: F.lp_pool2d(x, 2, 2), [Arg((2, 3, 6, 8))]),
    Case("lp2d_odd_power", lambda T, F, x: F.lp_pool2d(x, 3, (2, 3), 1),
         [Arg((2, 2, 5, 6), "positive")]),
    Case("lp2d_fractional", lambda T, F, x: F.lp_pool2d(x, 1.5, 3, 2, ceil_mode=True),
         [Arg((2, 2, 7, 8), "positive")]),
    Case("lp2d_unbatched", lambda T, F, x: F.lp_pool2d(x, 2, 2), [Arg((3, 4, 4))]),
    Case("lp2d_inf", lambda T, F, x: F.lp_pool2d(x, math.inf, 2), [Arg((2, 3, 6, 8), "away0")]),
    Case("lp2d_minus_inf", lambda T, F, x: F.lp_pool2d(x, -math.inf, 3, 2),
         [Arg((2, 3, 7, 7), "away0")]),
    Case("lp2d_module", lambda T, F, x: T.nn.LPPool2d(2, 3, 2)(x), [Arg((2, 3, 7, 7))]),
    Case("lp1d_p2", lambda T, F, x: F.lp_pool1d(x, 2, 3), [Arg((2, 3, 9))]),
    Case("lp1d_stride_ceil", lambda T, F, x: F.lp_pool1d(x, 1.5, 3, 2, True),
         [Arg((2, 3, 10), "positive")]),
    Case("lp1d_inf", lambda T, F, x: F.lp_pool1d(x, math.inf, 2), [Arg((2, 3, 10), "away0")]),
    Case("lp1d_module", lambda T, F, x: T.nn.LPPool1d(3, 2)(x), [Arg((3, 8), "positive")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_unpool_values_are_zero_but_at_the_maxima(device):
    x = mt.tensor([[[[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 8.0, 7.0]]]], device=device)
    y, indices = mF.max_pool2d_with_indices(x, 2)
    assert indices.tolist() == [[[[1, 6]]]]
    out = mF.max_unpool2d(y, indices, 2)
    assert out.tolist() == [[[[0.0, 5.0, 0.0, 0.0], [0.0, 0.0, 8.0, 0.0]]]]


def test_overlapping_windows_match_torch(device, torch_ref):
    """Overlapping windows name one position several times: it keeps the (equal) value,
    and each naming output sends its gradient back, as in PyTorch (so no gradcheck)."""
    data = np.random.default_rng(0).permutation(48).reshape(1, 3, 4, 4).astype(np.float32)
    x = mt.tensor(data, device=device, requires_grad=True)
    tx = torch_ref.tensor(data, requires_grad=True)
    out = _round_trip_2d(mF, x, 3, 1, output_size=(4, 4))
    ref = _round_trip_2d(torch_ref.nn.functional, tx, 3, 1, output_size=(4, 4))
    np.testing.assert_array_equal(out.detach().cpu().numpy(), ref.detach().numpy())
    weights = np.arange(48.0, dtype=np.float32).reshape(1, 3, 4, 4)
    out.backward(mt.tensor(weights, device=device))
    ref.backward(torch_ref.tensor(weights))
    np.testing.assert_array_equal(x.grad.cpu().numpy(), tx.grad.numpy())


def test_module_reprs_match_torch(torch_ref):
    for args in [(2,), ((2, 3), 1, 1), (3, None, 1)]:
        assert repr(mt.nn.MaxUnpool2d(*args)) == repr(torch_ref.nn.MaxUnpool2d(*args))
    for args in [(2,), (3, 1, 1)]:
        assert repr(mt.nn.MaxUnpool1d(*args)) == repr(torch_ref.nn.MaxUnpool1d(*args))
    for args in [(2, 3), (1.5, (2, 3), 1, True)]:
        assert repr(mt.nn.LPPool2d(*args)) == repr(torch_ref.nn.LPPool2d(*args))
    assert repr(mt.nn.LPPool1d(2, 3, 2)) == repr(torch_ref.nn.LPPool1d(2, 3, 2))


def test_lp_pool_of_zero_windows_has_zero_gradient_as_in_torch(device, torch_ref):
    data = np.zeros((1, 1, 4, 4))
    data[0, 0, 2:, 2:] = [[1.0, -2.0], [0.5, 3.0]]
    x = mt.tensor(data, device=device, requires_grad=True)
    tx = torch_ref.tensor(data, requires_grad=True)
    mF.lp_pool2d(x, 2, 2).sum().backward()
    torch_ref.nn.functional.lp_pool2d(tx, 2, 2).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy())
    assert not np.isnan(x.grad.cpu().numpy()).any()


def _indices(shape, device="cpu", dtype=mt.int64):
    return mt.zeros(*shape, dtype=dtype, device=device)


@pytest.mark.parametrize("call, error, message", [
    (lambda T, d: T.nn.functional.max_unpool2d(T.ones(1, 2, 2, 2, device=d),
                                                _i(T, (1, 2, 2, 2), d), 2, output_size=(9, 9)),
     ValueError, 'invalid output_size "(9, 9)" (dim 0 must be between 2 and 6)'),
    (lambda T, d: T.nn.functional.max_unpool2d(T.ones(1, 2, 2, 2, device=d),
                                                _i(T, (1, 2, 2, 2), d), 2, output_size=(4, 2)),
     ValueError, 'invalid output_size "(4, 2)" (dim 1 must be between 2 and 6)'),
    (lambda T, d: T.nn.functional.max_unpool2d(T.ones(1, 2, 2, 2, device=d),
                                                _i(T, (1, 2, 2, 2), d), 2, output_size=(6, 4)),
     ValueError, 'invalid output_size "(6, 4)" (dim 0 must be between 2 and 6)'),
    (lambda T, d: T.nn.functional.max_unpool2d(T.ones(1, 2, 2, 2, device=d),
                                                _i(T, (1, 2, 2, 2), d), 2,
                                                output_size=[1, 2, 9, 4]),
     ValueError, 'invalid output_size "[9, 4]" (dim 0 must be between 2 and 6)'),
    (lambda T, d: T.nn.functional.max_unpool2d(T.ones(1, 2, 2, 2, device=d),
                                                _i(T, (1, 2, 2, 2), d), 2, output_size=(1, 2, 3)),
     ValueError, "output_size should be a sequence containing 2 or 4 elements, but it has a "
                 "length of '3'"),
    (lambda T, d: T.nn.functional.max_unpool1d(T.ones(1, 2, 3, device=d),
                                                _i(T, (1, 2, 3), d), 2, output_size=[3]),
     ValueError, 'invalid output_size "[3]" (dim 0 must be between 4 and 8)'),
    (lambda T, d: T.nn.functional.max_unpool2d(T.ones(1, 2, 2, 2, device=d),
                                                _i(T, (1, 2, 2, 2), d), 2, padding=3),
     ValueError, "max_unpooling: output_size must contain non-negative spatial dimensions, "
                 "but got output_size[0]=-2"),
])
def test_python_side_errors_match_torch(call, error, message, torch_ref):
    for T, device in ((mt, "cpu"), (mt, "meta"), (torch_ref, "cpu")):
        with pytest.raises(error) as info:
            call(T, device)
        assert str(info.value) == message, (T.__name__, device)


def _i(T, shape, device, dtype=None):
    return T.zeros(*shape, dtype=dtype or T.int64, device=device)


@pytest.mark.parametrize("x_shape, i_shape, i_dtype, error, words", [
    ((2, 2), (2, 2), "int64", RuntimeError, "should be a 3d or 4d Tensor, but got a tensor "
                                            "with 2 dimensions"),
    ((1, 2, 2, 2), (1, 2, 2, 2), "int32", RuntimeError, "indices should be type int64"),
    ((1, 2, 2, 2), (1, 2, 2, 3), "int64", RuntimeError, "Expected shape of indices to be same "
                                                        "as that of the input tensor"),
    ((1, 0, 2, 2), (1, 0, 2, 2), "int64", RuntimeError, "with dimension 1 being empty"),
])
def test_op_errors_match_torch_on_cpu_and_meta(x_shape, i_shape, i_dtype, error, words,
                                               torch_ref):
    for T, device in ((mt, "cpu"), (mt, "meta"), (torch_ref, "cpu")):
        x = T.ones(*x_shape, device=device)
        indices = _i(T, i_shape, device, getattr(T, i_dtype))
        with pytest.raises(error, match=words):
            T.nn.functional.max_unpool2d(x, indices, 2)


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_non_float_inputs_are_refused_as_in_torch(dtype, torch_ref):
    for T, device in ((mt, "cpu"), (mt, "meta"), (torch_ref, "cpu")):
        x = T.ones(1, 2, 2, 2, dtype=getattr(T, dtype), device=device)
        with pytest.raises(NotImplementedError, match='"max_unpool2d" not implemented'):
            T.nn.functional.max_unpool2d(x, _i(T, (1, 2, 2, 2), device), 2)


@pytest.mark.parametrize("value", [16, -1])
def test_an_index_outside_the_plane_raises_on_data_backends(value, device, torch_ref):
    message = f"Found an invalid max index: {value} (output volumes are of size 4x4)"
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        mF.max_unpool2d(mt.ones(1, 2, 2, 2, device=device),
                        mt.full((1, 2, 2, 2), value, dtype=mt.int64, device=device), 2)
    with pytest.raises(RuntimeError, match="invalid max index"):
        torch_ref.nn.functional.max_unpool2d(torch_ref.ones(1, 2, 2, 2),
                                             torch_ref.full((1, 2, 2, 2), value), 2)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_unpool_keeps_the_dtype(dtype, device):
    x = mt.ones(1, 1, 2, 2, dtype=getattr(mt, dtype), device=device)
    out = mF.max_unpool2d(x, _indices((1, 1, 2, 2), device), 2)
    assert out.dtype is x.dtype and out.shape == (1, 1, 4, 4)
