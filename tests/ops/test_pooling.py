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


# -- the kernels' paths: layouts, chunks, ties, NaN, integers, wide kernels --------------
#
# Forward keeps each window's winning tap (uint8) for backward, in the input's layout, a
# cache-sized chunk of samples at a time; backward scatters a chunk at a time on the
# padded plane. The tests below pin those paths to PyTorch and to a loop-by-loop reference.

def _stored(x_nchw, channels_last):
    """``x_nchw`` as a contiguous NCHW array, or as an NCHW view of NHWC storage."""
    if channels_last:
        return np.ascontiguousarray(x_nchw.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    return np.ascontiguousarray(x_nchw)


def _is_channels_last(a):
    return a.strides[1] < min(a.strides[2:])


@pytest.fixture(params=["whole", "chunked"])
def chunking(request, monkeypatch):
    """Default chunk sizes, or 2100 bytes: one or two of these samples per chunk, so there
    are several chunks, often with a shorter last one."""
    if request.param == "chunked":
        from minitorch_meta.backends import xp_pooling

        monkeypatch.setattr(xp_pooling, "POOL_CHUNK_BYTES", 2100)
        monkeypatch.setattr(xp_pooling, "POOL_BACKWARD_CHUNK_BYTES", 2100)
    return request.param


def _cpu():
    from minitorch_meta.backends.registry import get_backend

    return get_backend(mt.device("cpu"))


GEOMETRIES = [
    ((8, 4, 8, 8), dict(kernel_size=2)),                       # windows tile the input
    ((7, 4, 9, 9), dict(kernel_size=3)),
    ((7, 4, 9, 7), dict(kernel_size=2)),                       # a row and a column left over
    ((5, 3, 8, 9), dict(kernel_size=(2, 3), stride=(2, 3))),
    ((5, 3, 8, 8), dict(kernel_size=3, stride=2, padding=1)),  # overlapping and padded
    ((5, 3, 8, 8), dict(kernel_size=2, stride=1)),             # overlapping
    ((5, 3, 8, 8), dict(kernel_size=2, stride=3)),             # gaps between windows
    ((5, 3, 9, 9), dict(kernel_size=2, dilation=2)),
    ((5, 3, 7, 7), dict(kernel_size=2, ceil_mode=True)),       # last windows hang over
]


@pytest.mark.parametrize("shape, kw", GEOMETRIES, ids=lambda v: str(v))
@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
@pytest.mark.parametrize("gy_channels_last", [False, True], ids=["gy_nchw", "gy_cl"])
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_layouts_chunks_and_ties_against_torch(shape, kw, channels_last, gy_channels_last,
                                               ties, chunking):
    """Values, indices and gradients equal PyTorch's whatever the layouts of x and of the
    incoming gradient; with ties, the first maximum in row-major window order wins and
    alone receives the gradient."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    rng = np.random.default_rng(0)
    if ties:  # few distinct values: most windows hold their maximum several times
        x = rng.integers(-2, 3, shape).astype(np.float32)
    else:
        x = rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    ref, ref_indices = torch.nn.functional.max_pool2d(tx, return_indices=True, **kw)
    gy = rng.standard_normal(tuple(ref.shape)).astype(np.float32)
    ref.backward(torch.tensor(gy))

    ox = mt.from_numpy(_stored(x, channels_last)).requires_grad_()
    out, indices = mF.max_pool2d(ox, return_indices=True, **kw)
    out.backward(mt.from_numpy(_stored(gy, gy_channels_last)))
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), ref_indices.numpy())
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
@pytest.mark.parametrize("kernel, stride, padding, out_hw", [
    ((3, 3), (3, 3), (0, 0), (3, 2)), ((2, 2), (1, 1), (1, 1), (10, 8)),
    ((9, 7), (9, 7), (0, 0), (1, 1))], ids=["tiling", "overlapping", "global"])
def test_outputs_taps_and_gradient_keep_the_input_layout(channels_last, kernel, stride,
                                                         padding, out_hw):
    """A channels-last input gives channels-last outputs, taps, indices and gradient (the
    next convolution's backward reads them that way); a contiguous one stays contiguous."""
    backend = _cpu()
    x = _stored(np.random.default_rng(1).standard_normal((2, 5, 9, 7)).astype(np.float32),
                channels_last)
    y, argmax = backend.max_pool2d(x, kernel, stride, padding, (1, 1), out_hw)
    indices = backend.max_pool2d_indices(argmax, x.shape, kernel, stride, padding, (1, 1))
    gx = backend.max_pool2d_backward(np.ones_like(y), argmax, x.shape, kernel, stride,
                                     padding, (1, 1))
    assert argmax.dtype == np.uint8 and indices.dtype == np.int64
    assert y.shape == argmax.shape == indices.shape == (2, 5) + out_hw
    for a in (y, argmax, indices, gx):
        assert _is_channels_last(a) == channels_last
        assert a.transpose((0, 2, 3, 1) if channels_last else (0, 1, 2, 3)).flags.c_contiguous
    ref = mF.max_pool2d(mt.tensor(np.ascontiguousarray(x)), kernel, stride, padding,
                        return_indices=True)
    np.testing.assert_array_equal(y, ref[0].numpy())
    np.testing.assert_array_equal(indices, ref[1].numpy())


def test_backward_keeps_only_one_byte_per_output():
    """Recording saves the uint8 winning taps, not int64 indices; inference saves nothing."""
    x = mt.randn(2, 3, 8, 8, requires_grad=True)
    y = mF.max_pool2d(x, 2)
    assert y.grad_fn.argmax.dtype == np.uint8 and y.grad_fn.argmax.shape == (2, 3, 4, 4)
    values, indices = mF.max_pool2d(x, 2, return_indices=True)
    assert indices.dtype is mt.int64 and values.grad_fn.argmax.dtype == np.uint8
    with mt.no_grad():
        values, indices = mF.max_pool2d(x, 2, return_indices=True)
    assert indices.dtype is mt.int64 and values.grad_fn is None


@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
@pytest.mark.parametrize("kernel, stride, padding, out_hw", [
    ((2, 2), (2, 2), (0, 0), (3, 3)), ((3, 3), (1, 1), (1, 1), (6, 6))],
    ids=["tiling", "overlapping"])
def test_nan_is_the_maximum_and_the_last_nan_wins(channels_last, kernel, stride, padding,
                                                  out_hw):
    """NaN is picked as the maximum. Of several NaN in one window the last (row-major) is
    the index and gets the gradient, as in PyTorch's CPU kernel."""
    x = np.arange(2 * 3 * 6 * 6, dtype=np.float32).reshape(2, 3, 6, 6)
    x[0, 1, 0, 1] = x[0, 1, 1, 0] = np.nan  # two NaN in the first window of plane (0, 1)
    x[1, 2, 5, 5] = np.nan
    gy = np.random.default_rng(6).standard_normal((2, 3) + out_hw).astype(np.float32)
    ref_y, ref_indices, ref_gx = _reference_max_pool(x, gy, kernel, stride, padding, (1, 1),
                                                     out_hw)
    ox = mt.from_numpy(_stored(x, channels_last)).requires_grad_()
    out, indices = mF.max_pool2d(ox, kernel, stride, padding, return_indices=True)
    out.backward(mt.tensor(gy))
    assert np.isnan(out.detach().numpy()[0, 1, 0, 0]) and indices.numpy()[0, 1, 0, 0] == 6
    np.testing.assert_array_equal(out.detach().numpy(), ref_y)
    np.testing.assert_array_equal(indices.numpy(), ref_indices)
    np.testing.assert_allclose(ox.grad.numpy(), ref_gx, rtol=1e-6)
    with mt.no_grad():  # the inference path agrees on which outputs are NaN
        np.testing.assert_array_equal(mF.max_pool2d(ox, kernel, stride, padding).numpy(), ref_y)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=2, stride=2, ceil_mode=True)],
                         ids=["tiling", "padded", "ceil_mode"])
def test_integer_inputs_against_torch(dtype, channels_last, kw):
    """Integers pool exactly, padding with the dtype's lowest value (ties: first wins)."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    x = np.random.default_rng(2).integers(0, 5, (2, 3, 7, 7)).astype(dtype)
    ref, ref_indices = torch.nn.functional.max_pool2d(torch.tensor(x), return_indices=True,
                                                      **kw)
    out, indices = mF.max_pool2d(mt.from_numpy(_stored(x, channels_last)),
                                 return_indices=True, **kw)
    assert out.numpy().dtype == dtype
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    np.testing.assert_array_equal(indices.numpy(), ref_indices.numpy())


def test_non_finite_output_gradients_reach_only_the_winners():
    """inf and NaN in the incoming gradient land on the winning inputs only; every other
    input gets exactly zero (no inf * 0 = NaN leaking into them)."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    gy = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
    gy[0, 0, 0, 0], gy[1, 3, 2, 1], gy[0, 2, 1, 1] = np.inf, np.nan, -np.inf
    for channels_last in (False, True):
        tx = torch.tensor(x, requires_grad=True)
        torch.nn.functional.max_pool2d(tx, 2).backward(torch.tensor(gy))
        ox = mt.from_numpy(_stored(x, channels_last)).requires_grad_()
        mF.max_pool2d(ox, 2).backward(mt.tensor(gy))
        np.testing.assert_array_equal(ox.grad.numpy(), tx.grad.numpy())
        assert np.isnan(ox.grad.numpy()).sum() == 1 and np.isinf(ox.grad.numpy()).sum() == 2


def test_kernels_of_more_than_256_taps_against_torch():
    """Taps no longer fit a byte: they are kept as int64, with the same results."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    x = np.random.default_rng(4).standard_normal((2, 3, 18, 20)).astype(np.float32)
    for kw in (dict(kernel_size=17, stride=1), dict(kernel_size=(17, 16), stride=(1, 4))):
        tx = torch.tensor(x, requires_grad=True)
        ref, ref_indices = torch.nn.functional.max_pool2d(tx, return_indices=True, **kw)
        ref.sum().backward()
        ox = mt.tensor(x, requires_grad=True)
        out, indices = mF.max_pool2d(ox, return_indices=True, **kw)
        assert out.grad_fn.argmax.dtype == np.int64
        out.sum().backward()
        np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
        np.testing.assert_array_equal(indices.numpy(), ref_indices.numpy())
        np.testing.assert_array_equal(ox.grad.numpy(), tx.grad.numpy())


def _reference_max_pool(x, gy, kernel, stride, padding, dilation, out_hw):
    """Loop-by-loop max pooling: first maximum (or last NaN) of each window in row-major
    order, a window of padding (or of values as low) giving its first in-range tap per axis
    as PyTorch; gradients summed in output order."""
    N, C, H, W = x.shape
    y = np.empty((N, C) + out_hw, x.dtype)
    indices = np.empty((N, C) + out_hw, np.int64)
    gx = np.zeros(x.shape, gy.dtype)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    for n, c, oh, ow in np.ndindex(N, C, *out_hw):
        # PyTorch's loop: from the first in-range tap of each axis, over in-range taps, a
        # later tap winning when larger or NaN
        rows = [oh * stride[0] + i * dilation[0] - padding[0] for i in range(kernel[0])]
        cols = [ow * stride[1] + j * dilation[1] - padding[1] for j in range(kernel[1])]
        rows, cols = [r for r in rows if r >= 0], [q for q in cols if q >= 0]
        best = (x.dtype.type(low), rows[0], cols[0])
        for r in rows:
            for q in cols:
                if r < H and q < W and (np.isnan(x[n, c, r, q]) or x[n, c, r, q] > best[0]):
                    best = (x[n, c, r, q], r, q)
        v, r, q = best
        y[n, c, oh, ow], indices[n, c, oh, ow] = v, r * W + q
        if r * W + q < H * W:  # past the plane PyTorch writes out of bounds: dropped here
            gx[n, c].reshape(-1)[r * W + q] += gy[n, c, oh, ow]
    return y, indices, gx


def _reference_configs(count, seed=5):
    from minitorch_meta.ops import shapes

    rng = np.random.default_rng(seed)
    configs = []
    while len(configs) < count:
        h, w = (int(v) for v in rng.integers(1, 10, 2))
        kernel = tuple(int(v) for v in rng.integers(1, 5, 2))
        stride = kernel if rng.random() < 0.4 else tuple(int(v) for v in rng.integers(1, 4, 2))
        dilation = tuple(int(v) for v in rng.integers(1, 3, 2))
        padding = tuple(int(rng.integers(0, k // 2 + 1)) for k in kernel)
        ceil_mode = bool(rng.integers(0, 2))
        out_hw = tuple(shapes.conv_out_size(*a, ceil_mode) for a in
                       zip((h, w), kernel, stride, padding, dilation))
        if min(out_hw) >= 1:
            configs.append(((3, 3, h, w), kernel, stride, padding, dilation, out_hw))
    return configs


@pytest.mark.parametrize("config", _reference_configs(80), ids=lambda c: str(c[1:5]))
def test_against_a_loop_by_loop_reference(config, chunking):
    """Bit-exact against the reference, including ties, NaN, integers, windows lying wholly
    in the padding (their gradient is dropped: PyTorch 2.13 corrupts memory there) and
    overlapping windows (summed in output order, as a scatter-add)."""
    shape, kernel, stride, padding, dilation, out_hw = config
    backend = _cpu()
    rng = np.random.default_rng(abs(hash(config)) % 2**32)
    for dtype, channels_last in (("float32", False), ("float32", True), ("int32", True)):
        x = rng.integers(-3, 4, shape).astype(dtype)  # small range: ties everywhere
        if dtype == "float32":
            x[rng.random(shape) < 0.05] = np.nan
        x = _stored(x, channels_last)
        gy = rng.standard_normal((shape[0], shape[1]) + out_hw).astype(np.float32)
        ref_y, ref_indices, ref_gx = _reference_max_pool(x, gy, kernel, stride, padding,
                                                         dilation, out_hw)
        y, argmax = backend.max_pool2d(x, kernel, stride, padding, dilation, out_hw)
        inferred, _ = backend.max_pool2d(x, kernel, stride, padding, dilation, out_hw,
                                         with_argmax=False)
        indices = backend.max_pool2d_indices(argmax, shape, kernel, stride, padding, dilation)
        gx = backend.max_pool2d_backward(gy, argmax, shape, kernel, stride, padding, dilation)
        np.testing.assert_array_equal(y, ref_y)
        np.testing.assert_array_equal(inferred, ref_y)
        np.testing.assert_array_equal(indices, ref_indices)
        assert gx.tobytes(order="C") == ref_gx.tobytes(order="C")  # bit-exact sums
