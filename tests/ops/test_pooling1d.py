"""max_pool1d, avg_pool1d, adaptive_avg_pool1d: the 2-D pooling ops on a height of 1, as
PyTorch composes them (grad_fn ``SqueezeBackward1``); values, indices, gradients, errors."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

X = Arg((2, 3, 11), "distinct")
CASES = [
    Case("max_basic", lambda T, F, x: F.max_pool1d(x, 2), [X]),
    Case("max_stride_padding_dilation", lambda T, F, x: F.max_pool1d(x, 3, 2, 1, 2), [X]),
    Case("max_ceil_mode", lambda T, F, x: F.max_pool1d(x, 3, 2, ceil_mode=True), [X]),
    Case("max_tuple_args", lambda T, F, x: F.max_pool1d(x, (3,), (1,), (1,)), [X]),
    Case("max_indices", lambda T, F, x: F.max_pool1d(x, 3, 2, return_indices=True), [X]),
    Case("max_unbatched_indices", lambda T, F, x: F.max_pool1d(x, 2, return_indices=True),
         [Arg((3, 9), "distinct")]),
    Case("max_unbatched", lambda T, F, x: F.max_pool1d(x, 4, 3), [Arg((3, 9), "distinct")]),
    Case("avg_basic", lambda T, F, x: F.avg_pool1d(x, 2), [X]),
    Case("avg_padding_no_count", lambda T, F, x: F.avg_pool1d(
        x, 3, 2, 1, count_include_pad=False), [X]),
    Case("avg_ceil_mode", lambda T, F, x: F.avg_pool1d(x, 3, 2, 1, ceil_mode=True), [X]),
    Case("avg_unbatched", lambda T, F, x: F.avg_pool1d(x, 3), [Arg((3, 9))]),
    Case("avg_int64", lambda T, F, x: F.avg_pool1d(x, 2), [Arg((2, 3, 8), "int:9")]),
    Case("adaptive_divisible", lambda T, F, x: F.adaptive_avg_pool1d(x, 4), [Arg((2, 3, 12))]),
    Case("adaptive_overlapping", lambda T, F, x: F.adaptive_avg_pool1d(x, (4,)), [X]),
    Case("adaptive_to_one", lambda T, F, x: F.adaptive_avg_pool1d(x, 1), [X]),
    Case("adaptive_unbatched", lambda T, F, x: F.adaptive_avg_pool1d(x, 5), [Arg((3, 7))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_grad_fn_is_squeeze_as_in_torch(device):
    x = mt.randn(2, 3, 8, device=device, requires_grad=True)
    for y in (mF.max_pool1d(x, 2), mF.avg_pool1d(x, 2), mF.adaptive_avg_pool1d(x, 3),
              mF.max_pool1d(x, 2, return_indices=True)[0]):
        assert y.grad_fn.name() == "SqueezeBackward1"


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mF.max_pool1d(x, 0), mt.ShapeError,
     "max_pool1d: kernel_size must be greater than zero, but got 0"),
    (lambda x: mF.max_pool1d(x, 2, 0), mt.ShapeError,
     "max_pool1d: stride must be greater than zero, but got 0"),
    (lambda x: mF.max_pool1d(x, 2, dilation=0), mt.ShapeError,
     "max_pool1d: dilation must be greater than zero, but got 0"),
    (lambda x: mF.max_pool1d(x, 2, padding=-1), mt.ShapeError,
     "max_pool1d: padding must be non-negative, but got -1"),
    (lambda x: mF.max_pool1d(x, 2, padding=2), mt.ShapeError,
     "max_pool1d: padding should be at most half of kernel size, but got padding=2 and "
     "kernel_size=2"),
    (lambda x: mF.max_pool1d(x, 5), mt.ShapeError,
     "max_pool1d: Invalid computed output size: 0 (input length 4, kernel_size=5, stride=5, "
     "padding=0, dilation=1)"),
    (lambda x: mF.max_pool1d(x, (2, 2)), mt.ShapeError,
     "max_pool1d: kernel_size must be an int, list of ints or tuple of ints of size 1 but got "
     "size 2"),
    (lambda x: mF.max_pool1d(x.unsqueeze(0), 2), mt.ShapeError,
     "max_pool1d: expected a 2-D (C, L) or 3-D (N, C, L) input, but got a 4-D input of shape "
     "(1, 2, 3, 4)"),
    (lambda x: mF.avg_pool1d(x[0, 0], 2), mt.ShapeError,
     "avg_pool1d: expected 2 to 3 dimensions, (C, L) or (N, C, L), but got a 1-D input of "
     "shape (4,)"),
    (lambda x: mF.avg_pool1d(x, 2, padding=2), mt.ShapeError,
     "avg_pool2d: pad should be at most half of effective kernel size, but got pad=2, "
     "kernel_size=2 and dilation=1"),
    (lambda x: mF.adaptive_avg_pool1d(x, -1), mt.ShapeError,
     "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
     "received {1, -1}"),
    (lambda x: mF.adaptive_avg_pool1d(x, (2, 2)), mt.ShapeError,
     "adaptive_avg_pool1d: output_size must be an int, list of ints or tuple of ints of size 1 "
     "but got size 2"),
    (lambda x: mF.adaptive_avg_pool1d(x, None), TypeError,
     "adaptive_avg_pool1d(): argument 'output_size' (position 2) must be tuple of ints, not None"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


def test_max_indices_are_positions_along_the_sequence():
    x = mt.tensor([[[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]]])
    values, indices = mF.max_pool1d(x, 2, return_indices=True)
    assert values.tolist() == [[[3.0, 4.0, 9.0]]] and indices.tolist() == [[[0, 2, 5]]]
    assert indices.dtype is mt.int64
