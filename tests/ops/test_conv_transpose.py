"""conv_transpose2d and conv_transpose1d: conv2d's input gradient as an op, and a convolution
as its backward; values, gradients, shapes and errors against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests


def t2(**kw):
    return lambda T, F, x, w, b=None: F.conv_transpose2d(x, w, b, **kw)


def t1(**kw):
    return lambda T, F, x, w, b=None: F.conv_transpose1d(x, w, b, **kw)


X, W, B = Arg((2, 3, 4, 5)), Arg((3, 4, 3, 2)), Arg((4,))
X1, W1 = Arg((2, 3, 6)), Arg((3, 4, 3))
CASES = [
    Case("2d_basic", t2(), [X, W, B]),
    Case("2d_no_bias", t2(), [X, W]),
    Case("2d_stride", t2(stride=2), [X, W, B]),
    Case("2d_stride_padding_output_padding", t2(stride=2, padding=1, output_padding=1),
         [X, W, B]),
    Case("2d_pairs", t2(stride=(2, 3), padding=(1, 0), output_padding=(0, 2), dilation=(1, 2)),
         [X, W, B]),
    # output_padding >= stride but < dilation: rows past the windows' reach get only the bias
    Case("2d_output_padding_under_dilation", t2(dilation=2, output_padding=1), [X, W, B]),
    Case("2d_padding_trims_to_one_row", t2(padding=(1, 0)), [Arg((1, 3, 1, 2)), W, B]),
    Case("2d_kernel_1x1", t2(stride=2), [X, Arg((3, 2, 1, 1)), Arg((2,))]),
    Case("2d_many_filters", t2(), [Arg((1, 2, 3, 3)), Arg((2, 50, 2, 2)), Arg((50,))]),
    Case("2d_one_output_channel", t2(stride=2), [X, Arg((3, 1, 3, 3)), Arg((1,))]),
    Case("2d_input_only_grad", t2(stride=2), [X, Arg(W.shape, grad=False), Arg((4,), grad=False)]),
    Case("2d_weight_only_grad", t2(stride=2), [Arg(X.shape, grad=False), W, B]),
    Case("2d_unbatched", t2(stride=2, padding=1), [Arg((3, 4, 5)), W, B]),
    Case("2d_empty_batch", t2(), [Arg((0, 3, 4, 5)), W, B]),
    Case("1d_basic", t1(), [X1, W1, Arg((4,))]),
    Case("1d_stride_padding_output_padding", t1(stride=3, padding=1, output_padding=2),
         [X1, W1, Arg((4,))]),
    Case("1d_dilation", t1(dilation=3, output_padding=2), [X1, W1]),
    Case("1d_unbatched", t1(stride=2), [Arg((3, 6)), W1, Arg((4,))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, atol=1e-4)


def test_grad_fn_names_match_torch(device):
    x = mt.randn(2, 3, 4, 4, device=device, requires_grad=True)
    w = mt.randn(3, 2, 3, 3, device=device)
    assert mF.conv_transpose2d(x, w).grad_fn.name() == "ConvolutionBackward0"
    assert mF.conv_transpose2d(x[0], w).grad_fn.name() == "SqueezeBackward1"
    assert mF.conv_transpose1d(x[:, :, 0], w[..., 0]).grad_fn.name() == "ConvolutionBackward0"


def test_is_the_input_gradient_of_conv2d(device):
    """The defining property: <conv_transpose2d(y, w), x> == <y, conv2d(x, w)>."""
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal((2, 4, 9, 8)), device=device)
    w = mt.tensor(rng.standard_normal((3, 4, 3, 2)), device=device)
    kw = dict(stride=2, padding=1, dilation=(1, 2))
    y = mF.conv2d(x, w, **kw)
    g = mt.tensor(rng.standard_normal(tuple(y.shape)), device=device)
    back = mF.conv_transpose2d(g, w, output_padding=(0, 1), **kw)
    assert back.shape == x.shape
    np.testing.assert_allclose((back * x).sum().item(), (g * y).sum().item(), rtol=1e-10)


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_dtype_is_kept(dtype, device):
    x = mt.randn(1, 2, 3, 3, dtype=dtype, device=device, requires_grad=True)
    w = mt.randn(2, 3, 2, 2, dtype=dtype, device=device, requires_grad=True)
    b = mt.zeros(3, dtype=dtype, device=device, requires_grad=True)
    y = mF.conv_transpose2d(x, w, b, stride=2)
    y.sum().backward()
    assert y.dtype is dtype
    assert x.grad.dtype is dtype and w.grad.dtype is dtype and b.grad.dtype is dtype


def test_shape_rule_agrees_with_torch_on_random_geometries():
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    rng = np.random.default_rng(1)
    for _ in range(300):
        size, k = int(rng.integers(1, 7)), int(rng.integers(1, 5))
        kw = dict(stride=int(rng.integers(1, 4)), padding=int(rng.integers(0, 4)),
                  output_padding=int(rng.integers(0, 3)), dilation=int(rng.integers(1, 3)))
        length = ((size - 1) * kw["stride"] - 2 * kw["padding"] + kw["dilation"] * (k - 1)
                  + kw["output_padding"] + 1)
        if length == 0:
            continue  # PyTorch's CPU kernels return an empty output or refuse, by path
        try:
            # on the CPU: PyTorch's meta kernel skips the output_padding check
            expected = tuple(torch.nn.functional.conv_transpose1d(
                torch.zeros(2, 3, size), torch.zeros(3, 4, k), **kw).shape)
        except RuntimeError:
            expected = None
        try:
            got = tuple(mF.conv_transpose1d(mt.empty(2, 3, size, device="meta"),
                                            mt.empty(3, 4, k, device="meta"), **kw).shape)
        except mt.ShapeError:
            got = None
        assert got == expected, (size, k, kw)


def _w(x):
    return mt.ones(3, 4, 3, 3, device=x.device)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mF.conv_transpose2d(x, _w(x), stride=2, output_padding=2), mt.ShapeError,
     "conv_transpose2d: output padding must be smaller than either stride or dilation, but got "
     "output_padding=(2, 2), stride=(2, 2), dilation=(1, 1)"),
    (lambda x: mF.conv_transpose2d(x, mt.ones(2, 4, 3, 3, device=x.device)), mt.ShapeError,
     "conv_transpose2d: input has 3 channels but weight expects 2 (weight shape (2, 4, 3, 3), "
     "laid out (in_channels, out_channels, kH, kW)); input shape (2, 3, 4, 5)"),
    (lambda x: mF.conv_transpose2d(x, _w(x), mt.ones(3, device=x.device)), mt.ShapeError,
     "conv_transpose2d: bias should have shape (4,) to match the 4 output channels of weight "
     "(3, 4, 3, 3) (its dimension 1), but has shape (3,)"),
    (lambda x: mF.conv_transpose2d(x, _w(x), padding=4), mt.ShapeError,
     "conv_transpose2d: Given input size per channel: [4, 5]. Calculated output size per "
     "channel: [-2, -1]. Output size is too small (padding=(4, 4), weight shape (3, 4, 3, 3))"),
    (lambda x: mF.conv_transpose2d(x[:, :, :0], _w(x)), mt.ShapeError,
     "conv_transpose2d: only zero batch or zero channel inputs are supported, but got input "
     "shape (2, 3, 0, 5)"),
    (lambda x: mF.conv_transpose2d(x[0, 0], _w(x)), mt.ShapeError,
     "conv_transpose2d: expected a 3-D (unbatched) or 4-D (batched) input (N, C, H, W), but "
     "got a 2-D input of shape (4, 5)"),
    (lambda x: mF.conv_transpose2d(x, _w(x)[0]), mt.ShapeError,
     "conv_transpose2d: expected weight to be 4-D (in_channels, out_channels, kH, kW), but got "
     "a 3-D weight of shape (4, 3, 3)"),
    (lambda x: mF.conv_transpose2d(x, _w(x), stride=0), mt.ShapeError,
     "conv_transpose2d: stride should be greater than zero, got (0, 0)"),
    (lambda x: mF.conv_transpose2d(x, _w(x), dilation=(1, 0)), mt.ShapeError,
     "conv_transpose2d: dilation should be greater than zero, got (1, 0)"),
    (lambda x: mF.conv_transpose2d(x, _w(x), padding=-1), mt.ShapeError,
     "conv_transpose2d: negative padding is not supported, got -1"),
    (lambda x: mF.conv_transpose2d(x, _w(x), padding="same"), TypeError,
     "conv_transpose2d: padding must be an int or a tuple of ints, got 'same' ('same' and "
     "'valid' are for convolutions only)"),
    (lambda x: mF.conv_transpose2d(x, _w(x), groups=2), mt.ShapeError,
     "conv_transpose2d: Given groups=2, expected weight to be divisible by 2 at dimension 0, "
     "but got weight of shape (3, 4, 3, 3) (3 is not a multiple of 2)"),
    (lambda x: mF.conv_transpose1d(x[:, :, 0], _w(x)[..., 0], output_padding=1), mt.ShapeError,
     "conv_transpose1d: output padding must be smaller than either stride or dilation, but got "
     "output_padding=(1,), stride=(1,), dilation=(1,)"),
    (lambda x: mF.conv_transpose1d(x, _w(x)), mt.ShapeError,
     "conv_transpose1d: expected a 2-D (unbatched) or 3-D (batched) input (N, C, L), but got a "
     "4-D input of shape (2, 3, 4, 5)"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message, shape=(2, 3, 4, 5))


def test_dtype_mismatch_is_refused():
    with pytest.raises(TypeError, match="conv_transpose2d: expected input and bias to have the "
                                        "same dtype"):
        mF.conv_transpose2d(mt.ones(1, 2, 3, 3), mt.ones(2, 3, 2, 2),
                            mt.ones(3, dtype=mt.float64))
