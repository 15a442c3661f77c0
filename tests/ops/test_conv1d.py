"""conv1d: the 2-D convolution op on inputs of height 1; values, gradients, shapes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

# PyTorch warns that it copies the input for even kernels with padding="same"; not our concern.
pytestmark = pytest.mark.filterwarnings("ignore:Using padding=.same.:UserWarning")


def conv(**kw):
    return lambda T, F, x, w, b=None: F.conv1d(x, w, b, **kw)


X, W, B = Arg((2, 3, 11)), Arg((4, 3, 3)), Arg((4,))
CASES = [
    Case("basic", conv(), [X, W, B]),
    Case("no_bias", conv(), [X, W]),
    Case("stride", conv(stride=2), [X, W, B]),
    Case("stride_tuple", conv(stride=(3,)), [X, W, B]),
    Case("padding", conv(padding=2), [X, W, B]),
    Case("padding_same_even_kernel", conv(padding="same"), [X, Arg((4, 3, 4)), B]),
    Case("padding_same_dilated", conv(padding="same", dilation=2), [X, W]),
    Case("padding_valid", conv(padding="valid"), [X, W, B]),
    Case("dilation_stride_padding", conv(dilation=2, stride=2, padding=1), [X, W, B]),
    Case("kernel_1", conv(), [X, Arg((5, 3, 1)), Arg((5,))]),
    Case("kernel_whole_input", conv(), [Arg((2, 2, 4)), Arg((3, 2, 4)), Arg((3,))]),
    Case("one_channel", conv(padding=1), [Arg((2, 1, 9)), Arg((3, 1, 3)), Arg((3,))]),
    Case("many_filters", conv(), [Arg((1, 2, 8)), Arg((50, 2, 3)), Arg((50,))]),
    Case("weight_only_grad", conv(stride=2), [Arg(X.shape, grad=False), W, B]),
    Case("unbatched", conv(padding=1), [Arg((3, 7)), W, B]),
    Case("empty_batch", conv(), [Arg((0, 3, 6)), W, B]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, atol=1e-4)


def test_grad_fn_names_match_torch(device):
    x = mt.randn(2, 3, 8, device=device, requires_grad=True)
    w = mt.randn(4, 3, 3, device=device)
    assert mF.conv1d(x, w).grad_fn.name() == "ConvolutionBackward0"
    assert mF.conv1d(x[0], w).grad_fn.name() == "SqueezeBackward1"  # PyTorch's too


def test_function_and_torch_namespace_spelling(device):
    x, w = mt.randn(2, 3, 8, device=device), mt.randn(4, 3, 3, device=device)
    assert mt.nn.functional.conv1d(x, w, stride=2).shape == (2, 4, 3)


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_dtype_is_kept(dtype, device):
    x = mt.randn(1, 2, 6, dtype=dtype, device=device, requires_grad=True)
    w = mt.randn(3, 2, 2, dtype=dtype, device=device, requires_grad=True)
    y = mF.conv1d(x, w, mt.zeros(3, dtype=dtype, device=device))
    y.sum().backward()
    assert y.dtype is dtype and x.grad.dtype is dtype and w.grad.dtype is dtype


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mF.conv1d(x, mt.ones(4, 2, 3, device=x.device)), mt.ShapeError,
     "conv1d: input has 3 channels but weight expects 2 (weight shape (4, 2, 3)); input shape "
     "(2, 3, 4)"),
    (lambda x: mF.conv1d(x, mt.ones(4, 3, 5, device=x.device)), mt.ShapeError,
     "conv1d: calculated padded input size per channel: (4); kernel size: (5). Kernel size "
     "can't be greater than actual input size (input shape (2, 3, 4), weight shape (4, 3, 5))"),
    (lambda x: mF.conv1d(x, mt.ones(4, 3, 3, 3, device=x.device)), mt.ShapeError,
     "conv1d: expected weight to be 3-D (out_channels, in_channels, kW), but got a 4-D weight "
     "of shape (4, 3, 3, 3)"),
    (lambda x: mF.conv1d(x.unsqueeze(0), mt.ones(4, 3, 3, device=x.device)), mt.ShapeError,
     "conv1d: expected a 2-D (unbatched) or 3-D (batched) input (N, C, L), but got a 4-D input "
     "of shape (1, 2, 3, 4)"),
    (lambda x: mF.conv1d(x, mt.ones(4, 3, 3, device=x.device), mt.ones(3, device=x.device)),
     mt.ShapeError, "conv1d: bias should have shape (4,) to match the 4 output channels of "
     "weight (4, 3, 3), but has shape (3,)"),
    (lambda x: mF.conv1d(x, mt.ones(4, 3, 3, device=x.device), stride=0), mt.ShapeError,
     "conv1d: stride should be greater than zero, got (0,)"),
    (lambda x: mF.conv1d(x, mt.ones(4, 3, 3, device=x.device), padding=-1), mt.ShapeError,
     "conv1d: negative padding is not supported, got -1"),
    (lambda x: mF.conv1d(x, mt.ones(4, 3, 3, device=x.device), padding=(1, 1)), TypeError,
     "padding must be an int or a tuple of 1 int, got (1, 1)"),
    (lambda x: mF.conv1d(x, mt.ones(4, 3, 3, device=x.device), padding="same", stride=2),
     ValueError, "conv1d: padding='same' is not supported for strided convolutions "
     "(stride=(2,)); use stride=1 or an explicit padding"),
    (lambda x: mF.conv1d(x, mt.ones(4, 3, 3, device=x.device), padding="full"), ValueError,
     "conv1d: padding must be an int, a tuple, 'same' or 'valid', got 'full'"),
    (lambda x: mF.conv1d(x, mt.ones(4, 3, 3, device=x.device), groups=3), mt.ShapeError,
     "conv1d: Given groups=3, expected weight to be divisible by 3 at dimension 0, but got "
     "weight of shape (4, 3, 3) (4 is not a multiple of 3)"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


def test_dtype_mismatch_is_refused():
    with pytest.raises(TypeError, match="conv1d: expected input and weight to have the same"):
        mF.conv1d(mt.ones(1, 2, 5, dtype=mt.float64), mt.ones(3, 2, 2))


def test_shape_rule_agrees_with_torch_on_random_geometries():
    """What PyTorch accepts we accept with the same output length; what it refuses we refuse."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    rng = np.random.default_rng(0)
    for _ in range(200):
        length, k = int(rng.integers(1, 20)), int(rng.integers(1, 7))
        kw = dict(stride=int(rng.integers(1, 4)), dilation=int(rng.integers(1, 4)),
                  padding=[int(rng.integers(0, 4)), "same", "valid"][rng.integers(0, 3)])
        if kw["padding"] == "same":
            kw["stride"] = 1
        try:
            expected = tuple(torch.nn.functional.conv1d(
                torch.empty(2, 3, length, device="meta"), torch.empty(4, 3, k, device="meta"),
                **kw).shape)
        except RuntimeError:
            expected = None
        try:
            got = tuple(mF.conv1d(mt.empty(2, 3, length, device="meta"),
                                  mt.empty(4, 3, k, device="meta"), **kw).shape)
        except mt.ShapeError:
            got = None
        assert got == expected, (length, k, kw)


def test_one_graph_node_between_output_and_input():
    """1-D runs the 2-D kernels on a height of 1 by reshaping arrays, not through unsqueeze
    and squeeze nodes: the output's node leads straight to the input's accumulator."""
    x = mt.randn(2, 3, 10, requires_grad=True)
    y = mF.conv1d(x, mt.randn(4, 3, 3))
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
