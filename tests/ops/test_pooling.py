"""max_pool2d: kernel, stride, padding, dilation, ceil_mode, indices; shape rule vs PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import (
    Arg,
    Case,
    three_way_tests,
)


def pool(*args, **kw):
    return lambda T, F, x: F.max_pool2d(x, *args, **kw)


X = Arg((2, 2, 7, 6), "distinct")
CASES = [
    Case("k2", pool(2), [X]),
    Case("k3_s1", pool(3, 1), [X]),
    Case("k_pair_stride_pair", pool((3, 2), (2, 1)), [X]),
    Case("padding", pool(3, 2, 1), [X]),
    Case("padding_pair", pool((2, 3), 1, (1, 1)), [X]),
    Case("dilation", pool(2, 1, 0, 2), [X]),
    Case("dilation_padding", pool(3, 2, 1, (2, 1)), [X]),
    Case("ceil_mode", pool(2, ceil_mode=True), [X]),
    Case("ceil_mode_k3_s2", pool(3, 2, ceil_mode=True), [Arg((1, 1, 6, 6), "distinct")]),
    Case("ceil_mode_padding", pool(3, 2, 1, ceil_mode=True), [Arg((1, 2, 6, 5), "distinct")]),
    Case("ceil_mode_dilation", pool(2, 2, 0, 2, ceil_mode=True), [X]),
    Case("return_indices", pool(2, return_indices=True), [X]),
    Case("stride_larger_than_kernel", pool(2, 3), [X]),
    Case("unbatched", pool(2), [Arg((2, 5, 5), "distinct")]),
    Case("negative_values_with_padding", lambda T, F, x: F.max_pool2d(x - 100.0, 3, 2, 1),
         [X]),
    Case("int_kernel_tuple_stride_kw", pool(kernel_size=2, stride=(1, 2)), [X]),
]


test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, seeds=(0, 1), name_differs=("unbatched",))


def _random_configs(count, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        h, w = (int(v) for v in rng.integers(1, 10, 2))
        kernel = tuple(int(v) for v in rng.integers(1, 5, 2))
        stride = tuple(int(v) for v in rng.integers(1, 4, 2))
        dilation = tuple(int(v) for v in rng.integers(1, 3, 2))
        padding = tuple(int(v) for v in rng.integers(0, 3, 2))
        yield (1, 2, h, w), kernel, stride, padding, dilation, bool(rng.integers(0, 2))


@pytest.mark.parametrize("config", list(_random_configs(60)), ids=lambda c: str(c))
def test_random_configurations_against_torch(config):
    """Values, indices and gradients equal PyTorch's; what PyTorch refuses, we refuse."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    shape, kernel, stride, padding, dilation, ceil_mode = config
    x = np.random.default_rng(2).permutation(int(np.prod(shape))).reshape(shape)
    x = x.astype(np.float32) - 10
    kw = dict(kernel_size=kernel, stride=stride, padding=padding, dilation=dilation,
              ceil_mode=ceil_mode, return_indices=True)
    tx = torch.tensor(x, requires_grad=True)
    try:
        ref, ref_indices = torch.nn.functional.max_pool2d(tx, **kw)
    except RuntimeError:
        with pytest.raises(mt.ShapeError):
            mF.max_pool2d(mt.tensor(x), **kw)
        with pytest.raises(mt.ShapeError):
            mF.max_pool2d(mt.empty(shape, device="meta"), **kw)
        return
    ox = mt.tensor(x, requires_grad=True)
    out, indices = mF.max_pool2d(ox, **kw)
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), ref_indices.numpy())
    gy = np.random.default_rng(3).standard_normal(tuple(ref.shape)).astype(np.float32)
    ref.backward(torch.tensor(gy))
    out.backward(mt.tensor(gy))
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    meta, meta_indices = mF.max_pool2d(mt.empty(shape, device="meta"), **kw)
    assert meta.shape == out.shape and meta_indices.shape == out.shape
    assert meta_indices.dtype is mt.int64


@pytest.mark.parametrize("size, kernel, stride, padding, dilation", [
    (5, 2, 2, 0, 1), (6, 3, 2, 0, 1), (6, 3, 2, 1, 1), (7, 2, 3, 1, 1), (4, 3, 3, 1, 1),
    (5, 2, 2, 1, 2), (3, 3, 2, 1, 1), (1, 1, 2, 0, 1), (8, 4, 3, 2, 1),
])
def test_ceil_mode_edge_cases_against_torch(size, kernel, stride, padding, dilation):
    """The last window counts only if it starts inside the input or the left padding."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    x = np.arange(size * size, dtype=np.float32).reshape(1, 1, size, size)
    for ceil_mode in (False, True):
        kw = dict(kernel_size=kernel, stride=stride, padding=padding, dilation=dilation,
                  ceil_mode=ceil_mode, return_indices=True)
        ref, ref_indices = torch.nn.functional.max_pool2d(torch.tensor(x), **kw)
        out, indices = mF.max_pool2d(mt.tensor(x), **kw)
        np.testing.assert_array_equal(out.numpy(), ref.numpy())
        np.testing.assert_array_equal(indices.numpy(), ref_indices.numpy())


@settings(max_examples=200, deadline=None)
@given(h=st.integers(1, 30), w=st.integers(1, 30),
       kernel=st.tuples(st.integers(1, 6), st.integers(1, 6)),
       stride=st.one_of(st.none(), st.tuples(st.integers(1, 5), st.integers(1, 5))),
       padding=st.tuples(st.integers(0, 4), st.integers(0, 4)),
       dilation=st.tuples(st.integers(1, 3), st.integers(1, 3)), ceil_mode=st.booleans())
def test_shape_rule_matches_torch(h, w, kernel, stride, padding, dilation, ceil_mode):
    """Our rule accepts exactly what PyTorch accepts, with the same output shape."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    kw = dict(kernel_size=kernel, stride=stride, padding=padding, dilation=dilation,
              ceil_mode=ceil_mode)
    try:
        # Real (tiny) data: PyTorch's meta kernel for pooling skips some of its checks.
        expected = tuple(torch.nn.functional.max_pool2d(torch.zeros(1, 1, h, w), **kw).shape)
    except RuntimeError:
        expected = None
    try:
        got = tuple(mF.max_pool2d(mt.empty(1, 1, h, w, device="meta"), **kw).shape)
    except mt.ShapeError:
        got = None
    assert got == expected


@pytest.mark.parametrize("kwargs, shape, message", [
    ({"kernel_size": 0}, (1, 1, 4, 4),
     "max_pool2d: kernel_size should be greater than zero, got (0, 0)"),
    ({"kernel_size": 2, "stride": 0}, (1, 1, 4, 4),
     "max_pool2d: stride should be greater than zero, got (0, 0)"),
    ({"kernel_size": 2, "dilation": 0}, (1, 1, 4, 4),
     "max_pool2d: dilation should be greater than zero, got (0, 0)"),
    ({"kernel_size": 2, "padding": 2}, (1, 1, 4, 4),
     "max_pool2d: pad should be at most half of kernel size, but got padding=(2, 2) for "
     "kernel_size=(2, 2)"),
    ({"kernel_size": 3, "padding": 2, "dilation": 2}, (1, 1, 9, 9),
     "max_pool2d: pad should be at most half of kernel size, but got padding=(2, 2) for "
     "kernel_size=(3, 3)"),
    ({"kernel_size": 3, "padding": -1}, (1, 1, 9, 9),
     "max_pool2d: padding must be non-negative, got (-1, -1)"),
    ({"kernel_size": 5}, (1, 3, 4, 4),
     "max_pool2d: given input size (3x4x4), the calculated output size (3x0x0) is too small "
     "(input shape (1, 3, 4, 4), kernel_size=(5, 5), stride=(5, 5), padding=(0, 0), "
     "dilation=(1, 1))"),
    ({"kernel_size": 2}, (4, 4),
     "max_pool2d: expected a 3-D (unbatched) or 4-D (batched) input (N, C, H, W), but got a "
     "2-D input of shape (4, 4)"),
])
def test_shape_errors_same_on_cpu_and_meta(kwargs, shape, message):
    for device in ("cpu", "meta"):
        with pytest.raises(mt.ShapeError) as info:
            mF.max_pool2d(mt.ones(shape, device=device), **kwargs)
        assert str(info.value) == message, device


def test_float32_and_int_pooling():
    y = mF.max_pool2d(mt.rand(1, 1, 4, 4), 2)
    assert y.dtype is mt.float32
    x = mt.arange(16).view(1, 1, 4, 4)
    assert mF.max_pool2d(x, 2, padding=1).tolist() == [[[[0, 2, 3], [8, 10, 11],
                                                          [12, 14, 15]]]]


@pytest.mark.parametrize("kwargs", [{"kernel_size": 3}, {"kernel_size": 2, "stride": 1},
                                    {"kernel_size": 3, "padding": 1, "ceil_mode": True},
                                    {"kernel_size": 2, "dilation": 2}])
def test_inference_path_skips_indices_but_gives_the_same_maxima(kwargs):
    x = mt.randn(4, 3, 11, 11, requires_grad=True)
    trained = mF.max_pool2d(x, **kwargs)
    with mt.no_grad():
        inferred = mF.max_pool2d(x, **kwargs)
        values, indices = mF.max_pool2d(x, return_indices=True, **kwargs)
    np.testing.assert_array_equal(inferred.numpy(), trained.detach().numpy())
    np.testing.assert_array_equal(values.numpy(), inferred.numpy())
    assert indices.dtype is mt.int64 and indices.shape == inferred.shape


def test_inference_path_propagates_nan():
    x = mt.zeros(1, 1, 4, 4)
    x[0, 0, 1, 1] = float("nan")
    with mt.no_grad():
        y = mF.max_pool2d(x, 2)
    assert np.isnan(y.numpy()[0, 0, 0, 0]) and not np.isnan(y.numpy()[0, 0, 1, 1])
