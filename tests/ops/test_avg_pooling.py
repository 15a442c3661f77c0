"""avg_pool2d and adaptive_avg_pool2d: divisors, ceil_mode, layouts, windows; vs PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, three_way_tests


def avg(*args, **kw):
    return lambda T, F, x: F.avg_pool2d(x, *args, **kw)


def adaptive(output_size):
    return lambda T, F, x: F.adaptive_avg_pool2d(x, output_size)


def after_conv(pool):
    """``pool`` of a convolution's output: ours is an NCHW view of channels-last storage."""
    return lambda T, F, x, w: pool(T, F, F.conv2d(x, w, padding=1))


X = Arg((2, 3, 7, 6))
CONV_X, CONV_W = Arg((2, 3, 8, 7)), Arg((5, 3, 3, 3))
CASES = [
    Case("k2", avg(2), [X]),
    Case("k3_s1", avg(3, 1), [X]),
    Case("k_pair_stride_pair", avg((3, 2), (2, 1)), [X]),
    Case("padding", avg(3, 2, 1), [X]),
    Case("padding_pair", avg((2, 3), 1, (1, 1)), [X]),
    Case("padding_without_count_include_pad", avg(3, 2, 1, count_include_pad=False), [X]),
    Case("ceil_mode", avg(2, ceil_mode=True), [X]),
    Case("ceil_mode_k3_s2", avg(3, 2, ceil_mode=True), [Arg((1, 2, 6, 6))]),
    Case("ceil_mode_padding", avg(3, 2, 1, ceil_mode=True), [Arg((1, 2, 6, 5))]),
    Case("ceil_mode_padding_without_count_include_pad",
         avg(3, 2, 1, ceil_mode=True, count_include_pad=False), [Arg((1, 2, 6, 5))]),
    Case("divisor_override", avg(2, divisor_override=3), [X]),
    Case("divisor_override_padding_ceil_mode",
         avg(3, 2, 1, ceil_mode=True, divisor_override=2), [X]),
    Case("negative_divisor_override", avg(2, 1, divisor_override=-3), [X]),
    Case("stride_larger_than_kernel", avg(2, 3), [X]),
    Case("kernel_is_the_padded_input", avg((9, 8), padding=1), [X]),
    Case("int_kernel_tuple_stride_kw", avg(kernel_size=2, stride=(1, 2)), [X]),
    Case("unbatched", avg(2), [Arg((3, 5, 5))]),
    Case("unbatched_padding", avg(3, 2, 1, count_include_pad=False), [Arg((2, 5, 4))]),
    Case("channels_last_after_conv", after_conv(avg(2)), [CONV_X, CONV_W]),
    Case("channels_last_after_conv_overlapping", after_conv(avg(3, 1, 1, ceil_mode=True)),
         [CONV_X, CONV_W]),
    Case("adaptive_divisible", adaptive(3), [Arg((2, 3, 6, 9))]),
    Case("adaptive_divisible_pair", adaptive((2, 3)), [Arg((2, 3, 6, 9))]),
    Case("adaptive_global", adaptive(1), [X]),
    Case("adaptive_not_divisible", adaptive((3, 4)), [X]),
    Case("adaptive_one_axis_divisible", adaptive((7, 4)), [X]),
    Case("adaptive_none_keeps_height", adaptive((None, 4)), [X]),
    Case("adaptive_none_keeps_width", adaptive((5, None)), [X]),
    Case("adaptive_both_none", adaptive((None, None)), [X]),
    Case("adaptive_larger_than_input", adaptive((9, 10)), [X]),
    Case("adaptive_much_larger_than_input", adaptive((7, 5)), [Arg((1, 2, 2, 3))]),
    Case("adaptive_unbatched", adaptive((3, 2)), [Arg((3, 5, 5))]),
    Case("adaptive_channels_last_after_conv", after_conv(adaptive((3, 5))),
         [CONV_X, CONV_W]),
    Case("adaptive_channels_last_divisible", after_conv(adaptive((4, 7))), [CONV_X, CONV_W]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, seeds=(0, 1))


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


# -- shape rules, and what is refused ------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(h=st.integers(1, 20), w=st.integers(1, 20),
       kernel=st.tuples(st.integers(0, 6), st.integers(1, 6)),
       stride=st.one_of(st.none(), st.tuples(st.integers(0, 5), st.integers(1, 5))),
       padding=st.tuples(st.integers(-1, 4), st.integers(0, 4)), ceil_mode=st.booleans())
def test_shape_rule_matches_torch(h, w, kernel, stride, padding, ceil_mode):
    """Our rule accepts exactly what PyTorch accepts, with the same output shape."""
    torch = _torch()
    kw = dict(kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode)
    try:
        expected = tuple(torch.nn.functional.avg_pool2d(torch.zeros(1, 2, h, w), **kw).shape)
    except RuntimeError:
        expected = None
    try:
        got = tuple(mF.avg_pool2d(mt.empty(1, 2, h, w, device="meta"), **kw).shape)
    except mt.ShapeError:
        got = None
    assert got == expected


@settings(max_examples=150, deadline=None)
@given(h=st.integers(0, 12), w=st.integers(1, 12),
       output_size=st.tuples(st.one_of(st.none(), st.integers(-1, 14)),
                             st.one_of(st.none(), st.integers(0, 14))),
       unbatched=st.booleans())
def test_adaptive_shape_rule_matches_torch(h, w, output_size, unbatched):
    torch = _torch()
    shape = (2, h, w) if unbatched else (1, 2, h, w)
    try:
        expected = tuple(torch.nn.functional.adaptive_avg_pool2d(torch.zeros(shape),
                                                                 output_size).shape)
    except RuntimeError:
        expected = None
    try:
        got = tuple(mF.adaptive_avg_pool2d(mt.empty(shape, device="meta"), output_size).shape)
    except mt.ShapeError:
        got = None
    assert got == expected


AVG_ERRORS = [
    ({"kernel_size": 5}, (1, 3, 4, 4),
     "avg_pool2d: Given input size: (3x4x4). Calculated output size: (3x0x0). Output size is "
     "too small (input shape (1, 3, 4, 4), kernel_size=(5, 5), stride=(5, 5), "
     "padding=(0, 0))"),
    ({"kernel_size": 7, "padding": 1, "stride": 1}, (2, 4, 4),  # larger than the padded input
     "avg_pool2d: Given input size: (2x4x4). Calculated output size: (2x0x0). Output size is "
     "too small (input shape (2, 4, 4), kernel_size=(7, 7), stride=(1, 1), padding=(1, 1))"),
    ({"kernel_size": 2, "padding": 2}, (1, 1, 4, 4),
     "avg_pool2d: pad should be at most half of effective kernel size, but got pad=2, "
     "kernel_size=2 and dilation=1"),
    ({"kernel_size": (2, 3), "padding": (1, 2)}, (1, 1, 4, 4),
     "avg_pool2d: pad should be at most half of effective kernel size, but got pad=2, "
     "kernel_size=3 and dilation=1"),
    ({"kernel_size": 2, "padding": -1}, (1, 1, 4, 4),
     "avg_pool2d: pad must be non-negative, but got pad: -1"),
    ({"kernel_size": 0}, (1, 1, 4, 4), "avg_pool2d: stride should not be zero"),
    ({"kernel_size": 3, "stride": (1, 0)}, (1, 1, 4, 4), "avg_pool2d: stride should not be zero"),
    ({"kernel_size": (1, -1), "stride": 1}, (1, 1, 4, 4),
     "avg_pool2d: kernel size should be greater than zero, but got kH: 1 kW: -1"),
    ({"kernel_size": 2, "stride": -1}, (1, 1, 4, 4),
     "avg_pool2d: stride should be greater than zero, but got dH: -1 dW: -1"),
    ({"kernel_size": 2, "divisor_override": 0, "padding": 5}, (1, 1, 4, 4),
     "avg_pool2d: divisor must be not zero"),
    ({"kernel_size": 2}, (1, 0, 4, 4),
     "avg_pool2d: expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
     "input, but got input shape (1, 0, 4, 4)"),
    ({"kernel_size": 2}, (4, 4),
     "avg_pool2d: expected a 3-D (unbatched) or 4-D (batched) input (N, C, H, W), but got a "
     "2-D input of shape (4, 4)"),
    ({"kernel_size": 2}, (2, 1, 1, 4, 4),
     "avg_pool2d: expected a 3-D (unbatched) or 4-D (batched) input (N, C, H, W), but got a "
     "5-D input of shape (2, 1, 1, 4, 4)"),
]

ADAPTIVE_ERRORS = [
    (-1, (1, 1, 4, 4), "adaptive_avg_pool2d: elements of output_size must be greater than or "
                       "equal to 0 but received {-1, -1}"),
    ((-1, 2), (1, 1, 4, 4), "adaptive_avg_pool2d: elements of output_size must be greater "
                            "than or equal to 0 but received {-1, 2}"),
    ((1, 2, 3), (1, 1, 4, 4), "adaptive_avg_pool2d: output_size must be 2, got (1, 2, 3)"),
    (2, (1, 1, 0, 4), "adaptive_avg_pool2d: Expected input to have non-zero size for "
                      "non-batch dimensions, but input has sizes (1, 1, 0, 4) with dimension 2 "
                      "being empty"),
    (2, (1, 0, 4), "adaptive_avg_pool2d: Expected input to have non-zero size for non-batch "
                   "dimensions, but input has sizes (1, 0, 4) with dimension 1 being empty"),
    (2, (4, 4), "adaptive_avg_pool2d: expected a 3-D (unbatched) or 4-D (batched) input "
                "(N, C, H, W), but got a 2-D input of shape (4, 4)"),
]


@pytest.mark.parametrize("kwargs, shape, message", AVG_ERRORS)
def test_avg_pool2d_errors_same_on_cpu_and_meta(kwargs, shape, message):
    for device in ("cpu", "meta"):
        with pytest.raises(mt.ShapeError) as info:
            mF.avg_pool2d(mt.zeros(shape, device=device), **kwargs)
        assert str(info.value) == message


@pytest.mark.parametrize("kwargs, shape, message", AVG_ERRORS)
def test_pytorch_refuses_the_same_in_the_same_words(kwargs, shape, message):
    """PyTorch refuses these too; where it words the mistake per dimension, our text is its
    text (after the op's name), with the arguments added for the output-size error."""
    torch = _torch()
    with pytest.raises((RuntimeError, IndexError)) as info:
        torch.nn.functional.avg_pool2d(torch.zeros(shape), **kwargs)
    if "3-D (unbatched)" not in message and "batch mode" not in message:
        assert message.split(": ", 1)[1].startswith(str(info.value))


@pytest.mark.parametrize("output_size, shape, message", ADAPTIVE_ERRORS)
def test_adaptive_avg_pool2d_errors_same_on_cpu_and_meta(output_size, shape, message):
    for device in ("cpu", "meta"):
        with pytest.raises(mt.ShapeError) as info:
            mF.adaptive_avg_pool2d(mt.zeros(shape, device=device), output_size)
        assert str(info.value) == message


@pytest.mark.parametrize("output_size", [None, "3", 2.0, (2.0, 3)])
def test_adaptive_output_size_of_the_wrong_type(output_size):
    with pytest.raises(TypeError, match="output_size must be an int or a pair of ints"):
        mF.adaptive_avg_pool2d(mt.zeros(1, 1, 4, 4), output_size)


@pytest.mark.parametrize("dtype, name", [(mt.int32, "Int"), (mt.uint8, "Byte"),
                                         (mt.bool, "Bool")])
def test_integer_dtypes_pytorch_refuses(dtype, name):
    for device in ("cpu", "meta"):
        with pytest.raises(NotImplementedError, match=f"\"avg_pool2d\" not implemented for "
                                                      f"'{name}'"):
            mF.avg_pool2d(mt.zeros(1, 1, 4, 4, dtype=dtype, device=device), 2)
    for refused, refused_name in ((mt.int64, "Long"), (dtype, name)):
        with pytest.raises(NotImplementedError, match=f"\"adaptive_avg_pool2d\" not "
                                                      f"implemented for '{refused_name}'"):
            mF.adaptive_avg_pool2d(mt.zeros(1, 1, 4, 4, dtype=refused), 3)


# -- values and gradients against PyTorch, over many configurations -----------------------

def _stored(x_nchw, channels_last):
    """``x_nchw`` as a contiguous NCHW array, or as an NCHW view of NHWC storage."""
    if channels_last:
        return np.ascontiguousarray(x_nchw.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    return np.ascontiguousarray(x_nchw)


def _is_channels_last(a):
    return a.strides[1] < min(a.strides[2:])


@pytest.fixture(params=["whole", "chunked"])
def chunking(request, monkeypatch):
    """Default chunk sizes, or about one sample per chunk (several chunks, a short last one)."""
    if request.param == "chunked":
        from minitorch_meta.backends import xp_avg_pooling

        monkeypatch.setattr(xp_avg_pooling, "AVG_POOL_CHUNK_BYTES", 700)
        monkeypatch.setattr(xp_avg_pooling, "AVG_POOL_BACKWARD_CHUNK_BYTES", 700)
    return request.param


def _compare(ours_fn, theirs_fn, shape, channels_last, seed, exact=False):
    torch = _torch()
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    try:
        ref = theirs_fn(torch.nn.functional, tx)
    except RuntimeError:
        with pytest.raises(mt.ShapeError):
            ours_fn(mt.tensor(x))
        with pytest.raises(mt.ShapeError):
            ours_fn(mt.empty(shape, device="meta"))
        return None
    gy = rng.standard_normal(tuple(ref.shape)).astype(np.float32)
    ref.backward(torch.tensor(gy))
    ox = mt.from_numpy(_stored(x, channels_last)).requires_grad_()
    out = ours_fn(ox)
    out.backward(mt.from_numpy(_stored(gy, channels_last) if gy.ndim == 4 else gy))
    assert tuple(out.shape) == tuple(ref.shape)
    assert out.grad_fn.name() == ref.grad_fn.name()
    if exact:  # same sums in the same order: the same bits
        np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
        np.testing.assert_array_equal(ox.grad.numpy(), tx.grad.numpy())
    else:
        np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    meta = ours_fn(mt.empty(shape, device="meta"))
    assert meta.shape == out.shape
    return out, ox


def _avg_configs(count, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        h, w = (int(v) for v in rng.integers(1, 11, 2))
        kernel = tuple(int(v) for v in rng.integers(1, 5, 2))
        stride = kernel if rng.random() < 0.3 else tuple(int(v) for v in rng.integers(1, 4, 2))
        padding = tuple(int(rng.integers(0, k // 2 + 1)) for k in kernel)
        divisor = [None, None, None, int(rng.integers(1, 7)), -2][int(rng.integers(0, 5))]
        yield ((3, 4, h, w), kernel, stride, padding, bool(rng.integers(0, 2)),
               bool(rng.integers(0, 2)), divisor)


@pytest.mark.parametrize("config", list(_avg_configs(60)), ids=str)
@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
def test_random_configurations_against_torch(config, channels_last, chunking):
    """Every combination of kernel, stride, padding, ceil_mode, count_include_pad and
    divisor_override, in either layout and chunking: PyTorch's bits, forward and backward."""
    shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor = config
    kw = dict(kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode,
              count_include_pad=count_include_pad, divisor_override=divisor)
    result = _compare(lambda x: mF.avg_pool2d(x, **kw),
                      lambda F, x: F.avg_pool2d(x, **kw), shape, channels_last, seed=1,
                      exact=not channels_last)
    if result is not None:
        out, ox = result
        assert _is_channels_last(out.detach().numpy()) == channels_last


def _adaptive_configs(count, seed=1):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        h, w = (int(v) for v in rng.integers(1, 13, 2))
        size = tuple(None if rng.random() < 0.15 else int(rng.integers(1, 16)) for _ in "hw")
        yield (2, 3, h, w), size


@pytest.mark.parametrize("config", list(_adaptive_configs(60)), ids=str)
@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
def test_adaptive_random_sizes_against_torch(config, channels_last, chunking):
    """Divisible or not, smaller or larger than the input, None kept: PyTorch's windows."""
    shape, output_size = config
    out, ox = _compare(lambda x: mF.adaptive_avg_pool2d(x, output_size),
                       lambda F, x: F.adaptive_avg_pool2d(x, output_size), shape,
                       channels_last, seed=2)
    assert _is_channels_last(out.detach().numpy()) == channels_last or out.shape[1] == 1


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                     count_include_pad=False),
                                dict(kernel_size=2, stride=1, divisor_override=-3)],
                         ids=["tiling", "padded", "ceil_mode_exclude_pad", "negative_divisor"])
@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
def test_int64_inputs_truncate_toward_zero_as_pytorch(kw, channels_last):
    torch = _torch()
    x = np.random.default_rng(3).integers(-9, 10, (2, 3, 7, 7)).astype(np.int64)
    ref = torch.nn.functional.avg_pool2d(torch.tensor(x), **kw)
    out = mF.avg_pool2d(mt.from_numpy(_stored(x, channels_last)), **kw)
    assert out.dtype is mt.int64
    np.testing.assert_array_equal(out.numpy(), ref.numpy())


def test_float64_stays_float64_and_equals_pytorch():
    torch = _torch()
    x = np.random.default_rng(4).standard_normal((2, 3, 9, 8))
    for pool in (lambda F, t: F.avg_pool2d(t, 3, 2, 1, True, False),
                 lambda F, t: F.adaptive_avg_pool2d(t, (4, 5))):
        out = pool(mF, mt.from_numpy(x))
        assert out.dtype is mt.float64
        np.testing.assert_allclose(out.numpy(), pool(torch.nn.functional,
                                                     torch.from_numpy(x)).numpy(), rtol=1e-13)


def test_adaptive_output_size_zero_is_an_empty_output_and_a_zero_gradient():
    torch = _torch()
    for size in (0, (2, 0), (0, 3)):
        x = mt.randn(2, 3, 5, 4, requires_grad=True)
        y = mF.adaptive_avg_pool2d(x, size)
        ref = torch.nn.functional.adaptive_avg_pool2d(torch.zeros(2, 3, 5, 4), size)
        assert tuple(y.shape) == tuple(ref.shape)
        y.sum().backward()
        assert x.grad.shape == x.shape and not x.grad.numpy().any()


def test_empty_batch():
    torch = _torch()
    for ours, theirs in ((lambda x: mF.avg_pool2d(x, 2), lambda x: torch.nn.functional
                          .avg_pool2d(x, 2)),
                         (lambda x: mF.adaptive_avg_pool2d(x, 3), lambda x: torch.nn.functional
                          .adaptive_avg_pool2d(x, 3))):
        x = mt.zeros(0, 2, 7, 6, requires_grad=True)
        y = ours(x)
        assert tuple(y.shape) == tuple(theirs(torch.zeros(0, 2, 7, 6)).shape)
        y.sum().backward()
        assert x.grad.shape == x.shape


def test_non_finite_gradients_stay_inside_their_windows():
    """inf and NaN in the incoming gradient reach their window's inputs only; every other
    input gets an exact zero (no inf * 0 = NaN leaking through a mask)."""
    torch = _torch()
    x = np.random.default_rng(5).standard_normal((1, 2, 6, 6)).astype(np.float32)
    gy = np.ones((1, 2, 3, 3), np.float32)
    gy[0, 0, 0, 0], gy[0, 1, 2, 1] = np.inf, np.nan
    for pool in (lambda F, t: F.avg_pool2d(t, 2), lambda F, t: F.adaptive_avg_pool2d(t, 3),
                 lambda F, t: F.adaptive_avg_pool2d(F.avg_pool2d(t, 1), (3, 3))):
        tx = torch.tensor(x, requires_grad=True)
        pool(torch.nn.functional, tx).backward(torch.tensor(gy))
        ox = mt.tensor(x, requires_grad=True)
        pool(mF, ox).backward(mt.tensor(gy))
        np.testing.assert_array_equal(ox.grad.numpy(), tx.grad.numpy())
    # Non-divisible windows take the gathering path: same rule.
    x = np.random.default_rng(6).standard_normal((1, 1, 5, 5)).astype(np.float32)
    gy = np.ones((1, 1, 3, 3), np.float32)
    gy[0, 0, 1, 1] = np.inf
    tx, ox = torch.tensor(x, requires_grad=True), mt.tensor(x, requires_grad=True)
    torch.nn.functional.adaptive_avg_pool2d(tx, 3).backward(torch.tensor(gy))
    mF.adaptive_avg_pool2d(ox, 3).backward(mt.tensor(gy))
    np.testing.assert_array_equal(np.isinf(ox.grad.numpy()), np.isinf(tx.grad.numpy()))
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-6)


def test_inf_in_the_input_stays_in_its_windows():
    torch = _torch()
    x = np.random.default_rng(7).standard_normal((1, 1, 7, 7)).astype(np.float32)
    x[0, 0, 3, 3] = np.inf
    for ours, size in ((lambda t, s: mF.adaptive_avg_pool2d(t, s), (3, 4)),
                       (lambda t, s: mF.avg_pool2d(t, s, 1, 1), 3)):
        theirs = (torch.nn.functional.adaptive_avg_pool2d if size == (3, 4) else
                  (lambda t, s: torch.nn.functional.avg_pool2d(t, s, 1, 1)))
        # allclose compares inf positions exactly (and the rest to rounding)
        np.testing.assert_allclose(ours(mt.tensor(x), size).numpy(),
                                   theirs(torch.tensor(x), size).numpy(), rtol=1e-6)


# -- kernels: layout kept, fast path taken -------------------------------------------------

def _cpu():
    from minitorch_meta.backends.registry import get_backend

    return get_backend(mt.device("cpu"))


@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
def test_kernels_keep_the_input_layout(channels_last):
    backend = _cpu()
    x = _stored(np.random.default_rng(8).standard_normal((2, 5, 9, 7)).astype(np.float32),
                channels_last)
    order = (0, 2, 3, 1) if channels_last else (0, 1, 2, 3)
    for y, saved, backward in (
            backend.avg_pool2d(x, (3, 3), (2, 2), (1, 1), (5, 4), 9) + (
                backend.avg_pool2d_backward,),
            backend.adaptive_avg_pool2d(x, (4, 5)) + (backend.adaptive_avg_pool2d_backward,),
            backend.adaptive_avg_pool2d(x, (3, 7)) + (backend.adaptive_avg_pool2d_backward,)):
        gx = backward(np.ones_like(y), saved)
        for a in (y, gx):
            assert _is_channels_last(a) == channels_last
            assert a.transpose(order).flags.c_contiguous


def test_divisible_adaptive_sizes_are_plain_average_pooling():
    """kernel = stride = input / output: the strided-view path, bit for bit."""
    x = np.random.default_rng(9).standard_normal((2, 3, 12, 10)).astype(np.float32)
    y, saved = _cpu().adaptive_avg_pool2d(x, (4, 5))
    assert saved[0] == "pooled"
    np.testing.assert_array_equal(y, mF.avg_pool2d(mt.tensor(x), (3, 2)).numpy())
    _, saved = _cpu().adaptive_avg_pool2d(x, (5, 5))
    assert saved[0] == "windows"


def test_adaptive_windows_are_pytorchs():
    from minitorch_meta.backends.xp_avg_pooling import adaptive_windows

    assert adaptive_windows(7, 3) == ([0, 2, 4], [3, 3, 3])  # [0,3) [2,5) [4,7)
    assert adaptive_windows(5, 3) == ([0, 1, 3], [2, 3, 2])  # [0,2) [1,4) [3,5)
    assert adaptive_windows(2, 3) == ([0, 0, 1], [1, 2, 1])  # larger than the input
    assert adaptive_windows(6, 3) == ([0, 2, 4], [2, 2, 2])


def test_inference_keeps_nothing_but_geometry():
    x = mt.randn(2, 3, 8, 8)
    with mt.no_grad():
        assert mF.avg_pool2d(x, 2).grad_fn is None
    y = mF.avg_pool2d(x.requires_grad_(), 2)
    assert not any(hasattr(v, "shape") and getattr(v, "ndim", 0) > 1
                   for v in vars(y.grad_fn).values())


@pytest.mark.parametrize("shape, pool", [
    ((2, 5, 20, 18), lambda F, t: F.avg_pool2d(t, (5, 4))),        # 20 taps, leftover columns
    ((2, 5, 23, 17), lambda F, t: F.avg_pool2d(t, 7, divisor_override=10)),  # leftovers
    ((2, 5, 24, 24), lambda F, t: F.adaptive_avg_pool2d(t, 1)),     # global: MeanBackward1
    ((2, 5, 24, 24), lambda F, t: F.adaptive_avg_pool2d(t, (2, 3))),
], ids=["k5x4", "k7_leftovers", "global", "adaptive_12x8"])
@pytest.mark.parametrize("channels_last", [False, True], ids=["nchw", "channels_last"])
def test_large_tiling_windows_take_one_reduction(shape, pool, channels_last):
    """Tiling windows of more than TAP_LIMIT taps are one reduction over a window view;
    their gradient is broadcast into the window blocks, leftover rows and columns zero."""
    _compare(lambda x: pool(mF, x), pool, shape, channels_last, seed=4)
