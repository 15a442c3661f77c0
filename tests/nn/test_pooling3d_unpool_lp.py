"""F.max_unpool3d with MaxUnpool3d and F.lp_pool3d with LPPool3d: values, gradients, meta
shapes and grad_fn names against PyTorch, reprs and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

X3 = Arg((2, 2, 4, 6, 4), "distinct")


def _round_trip_3d(F, x, kernel, stride=None, padding=0, **unpool):
    y, indices = F.max_pool3d(x, kernel, stride, padding, return_indices=True)
    return F.max_unpool3d(y, indices, kernel, stride, padding, **unpool)


CASES = [
    Case("unpool3d", lambda T, F, x: _round_trip_3d(F, x, 2), [X3]),
    Case("unpool3d_stride_padding",
         lambda T, F, x: _round_trip_3d(F, x, 3, 3, 1, output_size=x.shape[-3:]), [X3]),
    Case("unpool3d_output_size", lambda T, F, x: _round_trip_3d(F, x, 2, output_size=(5, 7, 5)),
         [Arg((1, 2, 5, 7, 5), "distinct")]),
    Case("unpool3d_full_output_size",
         lambda T, F, x: _round_trip_3d(F, x, (2, 1, 2), output_size=[1, 2, 5, 3, 4]),
         [Arg((1, 2, 5, 3, 4), "distinct")]),
    Case("unpool3d_unbatched", lambda T, F, x: _round_trip_3d(F, x, (1, 2, 2)),
         [Arg((3, 2, 4, 4), "distinct")]),
    Case("unpool3d_module",
         lambda T, F, x: T.nn.MaxUnpool3d(2)(*T.nn.MaxPool3d(2, return_indices=True)(x)),
         [X3]),
    Case("unpool3d_module_output_size",
         lambda T, F, x: T.nn.MaxUnpool3d(2)(*F.max_pool3d(x, 2, return_indices=True),
                                             output_size=x.size()),
         [Arg((1, 1, 5, 5, 5), "distinct")]),
    Case("lp3d_p2", lambda T, F, x: F.lp_pool3d(x, 2, 2), [Arg((2, 2, 4, 4, 6))]),
    Case("lp3d_odd_power_stride", lambda T, F, x: F.lp_pool3d(x, 3, (2, 1, 3), 1),
         [Arg((1, 2, 4, 3, 5), "positive")]),
    Case("lp3d_fractional_ceil", lambda T, F, x: F.lp_pool3d(x, 1.5, 3, 2, ceil_mode=True),
         [Arg((1, 2, 6, 5, 6), "positive")]),
    Case("lp3d_unbatched", lambda T, F, x: F.lp_pool3d(x, 2, 2), [Arg((3, 4, 4, 2))]),
    Case("lp3d_inf", lambda T, F, x: F.lp_pool3d(x, math.inf, 2), [Arg((1, 2, 4, 4, 4), "away0")]),
    Case("lp3d_minus_inf", lambda T, F, x: F.lp_pool3d(x, -math.inf, 3, 2),
         [Arg((1, 2, 5, 5, 5), "away0")]),
    Case("lp3d_module", lambda T, F, x: T.nn.LPPool3d(2, 3, 2)(x), [Arg((1, 2, 5, 5, 5))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def test_reprs_match_torch():
    torch = _torch()
    for make in (lambda T: T.nn.MaxUnpool3d(2), lambda T: T.nn.MaxUnpool3d((1, 2, 3), 2, 1),
                 lambda T: T.nn.LPPool3d(2, 3), lambda T: T.nn.LPPool3d(1.5, (2, 2, 1), 1, True)):
        assert repr(make(mt)) == repr(make(torch))


def test_a_repeated_index_keeps_one_value_and_the_gradient_reads_back(device):
    x = mt.tensor([[[[[1.0, 2.0]]]]], device=device, requires_grad=True)
    indices = mt.tensor([[[[[1, 1]]]]], device=device)
    out = mt.nn.functional.max_unpool3d(x, indices, 1)
    assert out.shape == (1, 1, 1, 1, 2)
    assert out.cpu().flatten().tolist()[0] == 0.0
    assert out.cpu().flatten().tolist()[1] in (1.0, 2.0)
    out.sum().backward()
    assert x.grad.cpu().tolist() == [[[[[1.0, 1.0]]]]]


U = mt.nn.functional.max_unpool3d


@pytest.mark.parametrize("call, error, message", [
    (lambda x: U(x[0], mt.zeros(2, 1, 1, dtype=mt.int64, device=x.device), 2),
     RuntimeError, "max_unpool3d: Input to max_unpooling3d should be a 4d or 5d Tensor, but got "
                   "a tensor with 3 dimensions."),
    (lambda x: U(x, mt.zeros(2, 3, 4, dtype=mt.int32, device=x.device), 2),
     RuntimeError, "max_unpool3d: elements in indices should be type int64 but got: "
                   "torch.int32 (pass the indices max pooling returned with "
                   "return_indices=True)"),
    (lambda x: U(x, mt.zeros(2, 3, 1, dtype=mt.int64, device=x.device), 2),
     RuntimeError, "max_unpool3d: Expected shape of indices to be same as that of the input "
                   "tensor ([1, 2, 3, 4]) but got indices tensor with shape: [2, 3, 1]"),
    (lambda x: U(x, mt.zeros(1, 2, 3, 4, dtype=mt.int64, device=x.device), 2,
                 output_size=(3, 3)),
     ValueError, "output_size should be a sequence containing 3 or 5 elements, but it has a "
                 "length of '2'"),
], ids=["rank", "dtype", "indices_shape", "output_size_length"])
def test_errors_read_the_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message, shape=(1, 2, 3, 4))


def test_error_types_match_torch():
    torch = _torch()
    for lib in (torch, mt):
        F = lib.nn.functional
        y, indices = F.max_pool3d(lib.ones(1, 1, 4, 4, 4), 2, return_indices=True)
        with pytest.raises(RuntimeError, match="Found an invalid max index: 1[0-9][0-9] "
                                               "\\(output volumes are of size 4x4x4\\)"):
            F.max_unpool3d(y, indices + 100, 2)
        with pytest.raises(NotImplementedError):
            F.max_unpool3d(y.long(), indices, 2)
        with pytest.raises(RuntimeError, match="non-zero size for non-batch dimensions"):
            F.max_unpool3d(lib.ones(1, 1, 0, 2, 2), lib.ones(1, 1, 0, 2, 2).long(), 2)


def test_max_unpool3d_runs_in_float32_under_cpu_autocast():
    y, indices = mt.nn.functional.max_pool3d(mt.ones(1, 1, 4, 4, 4), 2, return_indices=True)
    with mt.autocast("cpu", dtype=mt.float16):
        out = mt.nn.functional.max_unpool3d(y.half(), indices, 2)
    assert out.dtype is mt.float32
    np.testing.assert_array_equal(out.sum().item(), 8.0)
