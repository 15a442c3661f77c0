"""conv2d: stride, padding (int, pair, 'same', 'valid'), dilation, bias; shape rule vs PyTorch."""

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

# PyTorch warns that it copies the input for even kernels with padding="same"; not our concern.
pytestmark = pytest.mark.filterwarnings("ignore:Using padding=.same.:UserWarning")


def conv(**kw):
    return lambda T, F, x, w, b=None: F.conv2d(x, w, b, **kw)


X = Arg((2, 3, 6, 5))
W = Arg((4, 3, 3, 2))
B = Arg((4,))
CASES = [
    Case("basic", conv(), [X, W, B]),
    Case("no_bias", conv(), [X, W]),
    Case("stride", conv(stride=2), [X, W, B]),
    Case("stride_pair", conv(stride=(2, 1)), [X, W, B]),
    Case("padding_int", conv(padding=1), [X, W, B]),
    Case("padding_pair", conv(padding=(2, 0)), [X, W]),
    Case("padding_same_odd", conv(padding="same"), [X, Arg((4, 3, 3, 3)), B]),
    Case("padding_same_even", conv(padding="same"), [X, Arg((4, 3, 2, 4)), B]),
    Case("padding_same_dilated", conv(padding="same", dilation=2), [X, Arg((2, 3, 2, 3))]),
    Case("padding_valid", conv(padding="valid"), [X, W, B]),
    Case("dilation", conv(dilation=2), [Arg((1, 2, 7, 7)), Arg((3, 2, 3, 3)), Arg((3,))]),
    Case("dilation_pair_stride_padding", conv(dilation=(1, 2), stride=(1, 2), padding=(1, 2)),
         [Arg((2, 2, 5, 6)), Arg((3, 2, 2, 3)), Arg((3,))]),
    Case("kernel_1x1", conv(), [X, Arg((2, 3, 1, 1)), Arg((2,))]),
    Case("kernel_whole_input", conv(), [Arg((2, 2, 3, 4)), Arg((3, 2, 3, 4))]),
    Case("stride_larger_than_kernel", conv(stride=3), [Arg((1, 2, 7, 8)), Arg((2, 2, 2, 2))]),
    Case("weight_only_grad", conv(stride=2, padding=1), [Arg(X.shape, grad=False), W, B]),
    Case("unbatched", conv(padding=1), [Arg((3, 5, 5)), W, B]),
    # Few filters: neighbouring outputs share an im2col row (output_block > 1).
    Case("blocked_lenet_like", conv(), [Arg((2, 3, 12, 12)), Arg((6, 3, 5, 5)), Arg((6,))]),
    Case("blocked_strided_padded", conv(stride=(1, 2), padding=2),
         [Arg((2, 2, 9, 13)), Arg((3, 2, 3, 3)), Arg((3,))]),
    Case("blocked_dilated_padded", conv(dilation=(1, 2), padding=2),
         [Arg((2, 2, 9, 12)), Arg((3, 2, 3, 3)), Arg((3,))]),
    Case("blocked_no_bias", conv(padding=1), [Arg((1, 2, 7, 8)), Arg((5, 2, 3, 3))]),
    # One input channel: im2col is built transposed (runs of output pixels).
    Case("one_channel", conv(), [Arg((2, 1, 6, 7)), Arg((3, 1, 3, 2)), Arg((3,))]),
    Case("one_channel_no_bias_strided_dilated_padded", conv(stride=2, dilation=2, padding=1),
         [Arg((2, 1, 7, 6)), Arg((2, 1, 2, 3))]),
]


test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, seeds=(0, 1), atol=1e-4)


def _random_configs(count, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n, c, o = rng.integers(1, 3), rng.integers(1, 4), rng.integers(1, 4)
        h, w = rng.integers(1, 9, 2)
        kh, kw = rng.integers(1, 5, 2)
        stride = tuple(int(s) for s in rng.integers(1, 4, 2))
        dilation = tuple(int(d) for d in rng.integers(1, 3, 2))
        choice = rng.integers(0, 4)
        if choice == 0:
            padding = int(rng.integers(0, 3))
        elif choice == 1:
            padding = tuple(int(p) for p in rng.integers(0, 3, 2))
        else:
            padding = "same" if choice == 2 else "valid"
            if padding == "same":
                stride = (1, 1)
        yield ((int(n), int(c), int(h), int(w)), (int(o), int(c), int(kh), int(kw)), stride,
               padding, dilation, bool(rng.integers(0, 2)))


@pytest.mark.parametrize("config", list(_random_configs(40)), ids=lambda c: str(c))
def test_random_configurations_against_torch(config):
    """Values and gradients equal PyTorch's; what PyTorch refuses, we refuse."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    x_shape, w_shape, stride, padding, dilation, bias = config
    rng = np.random.default_rng(1)
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    b = rng.standard_normal(w_shape[0]).astype(np.float32) if bias else None
    kw = dict(stride=stride, padding=padding, dilation=dilation)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True) if bias else None
    try:
        ref = torch.nn.functional.conv2d(tx, tw, tb, **kw)
    except RuntimeError:
        with pytest.raises(mt.ShapeError):
            mF.conv2d(mt.tensor(x), mt.tensor(w), mt.tensor(b) if bias else None, **kw)
        with pytest.raises(mt.ShapeError):
            mF.conv2d(mt.empty(x_shape, device="meta"), mt.empty(w_shape, device="meta"), **kw)
        return
    ox, ow = mt.tensor(x, requires_grad=True), mt.tensor(w, requires_grad=True)
    ob = mt.tensor(b, requires_grad=True) if bias else None
    out = mF.conv2d(ox, ow, ob, **kw)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-4)
    gy = rng.standard_normal(tuple(ref.shape)).astype(np.float32)
    ref.backward(torch.tensor(gy))
    out.backward(mt.tensor(gy))
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ow.grad.numpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-4)
    if bias:
        np.testing.assert_allclose(ob.grad.numpy(), tb.grad.numpy(), rtol=1e-4, atol=1e-4)
    meta = mF.conv2d(mt.empty(x_shape, device="meta"), mt.empty(w_shape, device="meta"), **kw)
    assert tuple(meta.shape) == tuple(ref.shape)


_padding = st.one_of(st.integers(0, 4), st.tuples(st.integers(0, 4), st.integers(0, 4)),
                     st.sampled_from(["same", "valid"]))


@settings(max_examples=150, deadline=None)
@given(h=st.integers(1, 40), w=st.integers(1, 40), kh=st.integers(1, 9), kw=st.integers(1, 9),
       stride=st.tuples(st.integers(1, 5), st.integers(1, 5)),
       dilation=st.tuples(st.integers(1, 4), st.integers(1, 4)), padding=_padding)
def test_shape_rule_matches_torch_meta(h, w, kh, kw, stride, dilation, padding):
    """Our shape rule accepts exactly what PyTorch accepts, with the same output shape."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    kwargs = dict(stride=stride, padding=padding, dilation=dilation)
    try:
        expected = tuple(torch.nn.functional.conv2d(
            torch.empty(2, 3, h, w, device="meta"), torch.empty(4, 3, kh, kw, device="meta"),
            **kwargs).shape)
    except (RuntimeError, ValueError):
        expected = None
    try:
        got = tuple(mF.conv2d(mt.empty(2, 3, h, w, device="meta"),
                              mt.empty(4, 3, kh, kw, device="meta"), **kwargs).shape)
    except (mt.ShapeError, ValueError):
        got = None
    assert got == expected


@pytest.mark.parametrize("kwargs, x_shape, w_shape, message", [
    ({}, (2, 4, 32, 32), (6, 3, 5, 5),
     "conv2d: input has 4 channels but weight expects 3 (weight shape (6, 3, 5, 5)); input "
     "shape (2, 4, 32, 32)"),
    ({}, (2, 3, 4, 4), (6, 3, 5, 5),
     "conv2d: calculated padded input size per channel: (4 x 4); kernel size: (5 x 5). Kernel "
     "size can't be greater than actual input size (input shape (2, 3, 4, 4), weight shape "
     "(6, 3, 5, 5))"),
    ({"padding": 1}, (2, 3, 3, 3), (6, 3, 3, 6),
     "conv2d: calculated padded input size per channel: (5 x 5); kernel size: (3 x 6). Kernel "
     "size can't be greater than actual input size (input shape (2, 3, 3, 3), weight shape "
     "(6, 3, 3, 6))"),
    ({"stride": 0}, (2, 3, 8, 8), (6, 3, 3, 3),
     "conv2d: stride should be greater than zero, got (0, 0)"),
    ({"dilation": (1, 0)}, (2, 3, 8, 8), (6, 3, 3, 3),
     "conv2d: dilation should be greater than zero, got (1, 0)"),
    ({"padding": -1}, (2, 3, 8, 8), (6, 3, 3, 3),
     "conv2d: negative padding is not supported, got -1"),
    ({}, (2, 3, 8, 8), (6, 3, 3),
     "conv2d: expected weight to be 4-D (out_channels, in_channels, kH, kW), but got a 3-D "
     "weight of shape (6, 3, 3)"),
    ({}, (8, 8), (6, 3, 3, 3),
     "conv2d: expected a 3-D (unbatched) or 4-D (batched) input (N, C, H, W), but got a 2-D "
     "input of shape (8, 8)"),
])
def test_shape_errors_same_on_cpu_and_meta(kwargs, x_shape, w_shape, message):
    for device in ("cpu", "meta"):
        with pytest.raises(mt.ShapeError) as info:
            mF.conv2d(mt.ones(x_shape, device=device), mt.ones(w_shape, device=device), **kwargs)
        assert str(info.value) == message, device
        assert isinstance(info.value, ValueError) and info.value.op == "conv2d"


def test_bias_shape_error():
    with pytest.raises(mt.ShapeError, match=r"conv2d: bias should have shape \(6,\) to match "
                                            r"the 6 output channels of weight \(6, 3, 3, 3\), "
                                            r"but has shape \(5,\)"):
        mF.conv2d(mt.ones(1, 3, 5, 5), mt.ones(6, 3, 3, 3), mt.ones(5))


def test_padding_errors():
    x, w = mt.ones(1, 3, 5, 5), mt.ones(2, 3, 3, 3)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided "
                                         "convolutions"):
        mF.conv2d(x, w, stride=2, padding="same")
    with pytest.raises(ValueError, match="padding must be an int, a pair, 'same' or 'valid', "
                                         "got 'full'"):
        mF.conv2d(x, w, padding="full")
    with pytest.raises(TypeError, match=r"padding must be an int or a pair of ints, got "
                                        r"\(1, 2, 3\)"):
        mF.conv2d(x, w, padding=(1, 2, 3))


def test_dtype_mismatch():
    with pytest.raises(TypeError, match="conv2d: expected input and weight to have the same "
                                        "dtype"):
        mF.conv2d(mt.ones(1, 3, 5, 5, dtype=mt.float64), mt.ones(2, 3, 3, 3))
    # The bias is added inside the GEMM: a float64 bias must not turn the output float64.
    with pytest.raises(TypeError, match=r"input and bias to have the same dtype"):
        mF.conv2d(mt.ones(1, 3, 5, 5), mt.ones(2, 3, 3, 3), mt.ones(2, dtype=mt.float64))


def test_float32_conv_stays_float32_and_float64_stays_float64():
    for dtype in (mt.float32, mt.float64):
        x = mt.rand(1, 2, 5, 5, dtype=dtype, requires_grad=True)
        w = mt.rand(3, 2, 3, 3, dtype=dtype, requires_grad=True)
        b = mt.rand(3, dtype=dtype, requires_grad=True)
        y = mF.conv2d(x, w, b, padding=1)
        assert y.dtype is dtype
        y.sum().backward()
        assert x.grad.dtype is dtype and w.grad.dtype is dtype and b.grad.dtype is dtype


@pytest.mark.parametrize("kwargs", [{}, {"padding": 2, "stride": 2}, {"dilation": 2},
                                    {"padding": "same"}])
def test_inference_path_equals_the_training_path(kwargs):
    """Without autograd, conv2d builds im2col in chunks of samples: same numbers."""
    x = mt.randn(40, 3, 32, 32)      # several chunks of IM2COL_CHUNK_BYTES
    w = mt.randn(6, 3, 5, 5, requires_grad=True)
    b = mt.randn(6, requires_grad=True)
    trained = mF.conv2d(x, w, b, **kwargs)
    with mt.no_grad():
        inferred = mF.conv2d(x, w, b, **kwargs)
    np.testing.assert_allclose(inferred.numpy(), trained.detach().numpy(), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("with_bias", [True, False])
def test_weight_gradient_summed_over_row_blocks_matches_torch(with_bias):
    """A tiny weight gradient (few filters, one channel) over > GRADIENT_BLOCK_ROWS im2col
    rows is summed block by block; its values (and the bias gradient that rides in the same
    GEMM) must still equal PyTorch's."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for this check")
    from minitorch_meta.backends.xp_conv import GRADIENT_BLOCK_ROWS

    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((4, 1, 30, 30))
    w_np = rng.standard_normal((4, 1, 5, 5))
    b_np = rng.standard_normal(4)
    assert 4 * 26 * 26 > 2 * GRADIENT_BLOCK_ROWS  # several blocks, and a partial last one
    x = mt.tensor(x_np, requires_grad=True)
    w = mt.tensor(w_np, requires_grad=True)
    b = mt.tensor(b_np, requires_grad=True) if with_bias else None
    tx = torch.tensor(x_np, requires_grad=True)
    tw = torch.tensor(w_np, requires_grad=True)
    tb = torch.tensor(b_np, requires_grad=True) if with_bias else None
    mF.conv2d(x, w, b).pow(2).sum().backward()
    torch.nn.functional.conv2d(tx, tw, tb).pow(2).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    if with_bias:
        np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("grad_mode", ["training", "inference"])
@pytest.mark.parametrize("width, block", [(19, 1), (14, 4)])
def test_one_channel_gemm_in_row_blocks_matches_torch(monkeypatch, grad_mode, width, block):
    """A one-channel im2col is built transposed, plain or with output blocking, and
    multiplied ``transposed_gemm_rows`` rows at a time on the CPU (see ``_matmul_im2col``);
    every block of rows, the partial last one too, must give PyTorch's values."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for this check")
    from minitorch_meta.backends.numpy_backend import NumpyBackend
    from minitorch_meta.backends.xp_conv import output_block

    monkeypatch.setattr(NumpyBackend, "transposed_gemm_rows", 10)
    rng = np.random.default_rng(2)
    x_np = rng.standard_normal((3, 1, 14, width))
    w_np = rng.standard_normal((5, 1, 3, 3))
    b_np = rng.standard_normal(5)
    out_width = width - 2
    assert output_block(5, out_width, 3, 1, 1) == block
    assert 3 * 12 * out_width // block % 10  # several blocks of 10 rows, the last partial
    x, w, b = (mt.tensor(a, requires_grad=True) for a in (x_np, w_np, b_np))
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x_np, w_np, b_np))
    with mt.set_grad_enabled(grad_mode == "training"):
        y = mF.conv2d(x, w, b)
    expected = torch.nn.functional.conv2d(tx, tw, tb)
    np.testing.assert_allclose(y.detach().numpy(), expected.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    if grad_mode == "training":  # the weight gradient reads the same transposed im2col
        y.pow(2).sum().backward()
        expected.pow(2).sum().backward()
        for ours, theirs in ((x, tx), (w, tw), (b, tb)):
            np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10,
                                       atol=1e-12)


@pytest.mark.parametrize("out_channels, out_width, kernel, stride, dilation, expected", [
    (6, 28, 5, 1, 1, 4),    # LeNet's first layer: a span of 8 (6 outputs would fit)
    (16, 10, 5, 1, 1, 5),   # LeNet's second layer: 80 wide
    (32, 24, 5, 1, 1, 3),   # the lecture net's first layer: 96 wide
    (64, 24, 5, 1, 1, 1),   # 64 filters are not few: plain im2col
    (6, 27, 5, 1, 1, 3),    # the largest divisor of the width within the span
    (6, 17, 5, 1, 1, 1),    # a prime width: no block divides it
    (3, 8, 3, 2, 1, 2),     # strided: 2 outputs span 5 columns, 3 would span 7 (over 6)
    (3, 12, 3, 1, 2, 2),    # dilated: the gaps count in the span (2 outputs span 6)
    (6, 28, 2, 2, 1, 1),    # windows do not overlap: nothing to share
    (6, 28, 2, 2, 2, 1),    # dilated windows overlap, but 2 outputs would span 5 columns
    (5, 12, 3, 1, 1, 4),    # test_one_channel_gemm_in_row_blocks_matches_torch's layer
])
def test_output_block_choice(out_channels, out_width, kernel, stride, dilation, expected):
    from minitorch_meta.backends.xp_conv import output_block

    assert output_block(out_channels, out_width, kernel, stride, dilation) == expected


def test_blocked_and_plain_im2col_give_the_same_convolution(monkeypatch):
    """The blocked path (banded weights) against the plain one, forced with block 1."""
    from minitorch_meta.backends import xp_conv

    rng = np.random.default_rng(1)
    x_np = rng.standard_normal((3, 3, 16, 16))
    w_np = rng.standard_normal((6, 3, 5, 5))
    b_np = rng.standard_normal(6)

    def run():
        x, w, b = (mt.tensor(a, requires_grad=True) for a in (x_np, w_np, b_np))
        y = mF.conv2d(x, w, b, padding=1)
        (y * y).sum().backward()
        return [t.numpy() for t in (y.detach(), x.grad, w.grad, b.grad)]

    blocked = run()
    monkeypatch.setattr(xp_conv, "output_block", lambda *args: 1)
    monkeypatch.setattr(xp_conv, "backward_block", lambda *args: 1)
    plain = run()
    for a, b in zip(blocked, plain):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("out_channels, out_width, kernel, stride, dilation, expected", [
    (16, 10, 5, 1, 1, 5),   # LeNet's second layer: an 80-deep GEMM
    (64, 8, 5, 1, 1, 2),    # the lecture net's second layer
    (128, 8, 5, 1, 1, 1),   # already 128 deep
    (16, 13, 5, 1, 1, 1),   # a prime width: no block divides it
    (16, 10, 2, 2, 1, 1),   # windows do not overlap: nothing to share
    (16, 10, 1, 1, 1, 1),   # 1x1 kernel: nothing to share either
])
def test_backward_block_choice(out_channels, out_width, kernel, stride, dilation, expected):
    from minitorch_meta.backends.xp_conv import backward_block

    assert backward_block(out_channels, out_width, kernel, stride, dilation) == expected


@pytest.mark.parametrize("stride, dilation, padding", [
    ((1, 1), (1, 1), (0, 0)), ((1, 1), (1, 1), (2, 1)), ((2, 1), (1, 2), (1, 1)),
    ((1, 2), (2, 1), (0, 2)), ((1, 3), (1, 1), (1, 0)),
])
def test_input_gradient_equals_torch_for_every_block(stride, dilation, padding):
    """The blocked input gradient (col2im of banded-GEMM patches, passes of blocks far
    enough apart not to overlap) for every block that divides the output width, against
    PyTorch's, in float64; the chunked loop is forced to several chunks."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for this check")
    from minitorch_meta.backends import xp_conv
    from minitorch_meta.backends.numpy_backend import NumpyBackend

    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((3, 2, 11, 17))
    w_np = rng.standard_normal((4, 2, 3, 4))
    tx = torch.tensor(x_np, requires_grad=True)
    ty = torch.nn.functional.conv2d(tx, torch.tensor(w_np), stride=stride, padding=padding,
                                    dilation=dilation)
    gy = rng.standard_normal(tuple(ty.shape))
    ty.backward(torch.tensor(gy))
    N, O, OH, OW = ty.shape
    (top, left), (_, C, H, W) = padding, x_np.shape
    padded_shape = (N, H + 2 * top, W + 2 * left, C)
    gy2 = np.ascontiguousarray(gy.transpose(0, 2, 3, 1)).reshape(-1, O)
    backend = NumpyBackend()
    blocks = [p for p in range(1, OW + 1) if OW % p == 0]
    assert len(blocks) >= 2
    for block in blocks:
        chunk_bytes = OH * (OW // block) * 8 * 8  # less than one sample: a chunk each
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(xp_conv, "IM2COL_CHUNK_BYTES", chunk_bytes)
            gx_pad = backend._input_gradient(gy2, w_np, padded_shape, stride, dilation,
                                             (OH, OW), block=block)
        gx = gx_pad[:, top:top + H, left:left + W, :].transpose(0, 3, 1, 2)
        np.testing.assert_allclose(gx, tx.grad.numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=f"block {block}")
