"""Tensor.stride(): PyTorch's strides in elements for views and new tensors; channels-last
strides for convolution and pooling outputs; C-ordered strides on meta."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.test_tensor import VIEWS

MORE = [
    ("none_inside", lambda x: x[:, None]),
    ("none_first_and_last", lambda x: x[None, :, None]),
    ("two_nones", lambda x: x[:, None, None]),
    ("none_after_t", lambda x: x.t()[:, None]),
    ("none_of_a_column", lambda x: x[:, 0][None]),
    ("expand", lambda x: x[:1].expand(4, 3)),
    ("empty_fresh", lambda x: x.new_zeros(2, 0, 3)),
    ("empty_reshaped", lambda x: x[:0].reshape(3, 0)),
    ("flip", lambda x: x.flip(0)),
    ("roll", lambda x: x.t().roll(1, 0)),
    ("repeat", lambda x: x.repeat(2, 1, 1)),
    ("tril", lambda x: x.tril()),
    ("diag", lambda x: x.diag()),
]


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("name, make", VIEWS + MORE, ids=[name for name, _ in VIEWS + MORE])
def test_strides_match_torch(name, make, device):
    torch = _torch()
    values = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    ours, theirs = make(mt.tensor(values, device=device)), make(torch.tensor(values))
    assert ours.shape == theirs.shape
    assert ours.stride() == theirs.stride()
    assert all(type(s) is int for s in ours.stride())
    for d in range(-ours.dim(), ours.dim()):
        assert ours.stride(d) == theirs.stride(d)


def test_convolution_and_pooling_outputs_have_channels_last_strides():
    torch = _torch()
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 3, 8, 8)), rng.standard_normal((4, 3, 3, 3))
    y = mt.nn.functional.conv2d(mt.tensor(x), mt.tensor(w))
    pooled = mt.nn.functional.max_pool2d(y, 2)
    reference = torch.nn.functional.conv2d(
        torch.tensor(x, dtype=torch.float32).to(memory_format=torch.channels_last),
        torch.tensor(w, dtype=torch.float32))
    ref_pooled = torch.nn.functional.max_pool2d(reference, 2)
    assert y.stride() == reference.stride() == (6 * 6 * 4, 1, 6 * 4, 4)
    assert pooled.stride() == ref_pooled.stride() == (3 * 3 * 4, 1, 3 * 4, 4)
    assert y.contiguous().stride() == (4 * 6 * 6, 6 * 6, 6, 1)


@pytest.mark.parametrize("name, make", VIEWS + MORE, ids=[name for name, _ in VIEWS + MORE])
def test_meta_tensors_report_c_ordered_strides(name, make):
    torch = _torch()
    ours = make(mt.empty(2, 3, device="meta"))
    assert ours.stride() == torch.empty(tuple(ours.shape)).stride()


def test_meta_strides_of_large_and_empty_shapes():
    assert mt.empty(2**40, 3, 2**20, device="meta").stride() == (3 * 2**20, 2**20, 1)
    assert mt.empty(2, 0, 3, device="meta").stride() == (3, 3, 1)
    w = mt.empty(4, 3, 3, 3, device="meta")
    y = mt.nn.functional.conv2d(mt.empty(2, 3, 8, 8, device="meta"), w)
    assert y.stride() == (144, 36, 6, 1)
    assert mt.empty((), device="meta").stride() == ()


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.stride(3), IndexError,
     "stride: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.stride(-4), IndexError,
     "stride: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: x.stride(1.0), TypeError, "stride(): argument 'dim' must be int, not float"),
    (lambda x: x.stride(True), TypeError, "stride(): argument 'dim' must be int, not bool"),
    (lambda x: x.sum().stride(0), IndexError,
     "stride: dimension specified as 0 but the tensor has no dimensions"),
])
def test_errors(call, error, message, device):
    with pytest.raises(error) as info:
        call(mt.ones(2, 3, 4, device=device))
    assert str(info.value) == message


def test_dim_may_be_a_numpy_int_and_zero_d_has_no_strides():
    x = mt.ones(2, 3)
    assert x.stride(np.int64(0)) == 3 and x.stride(dim=-1) == 1
    assert mt.tensor(1.0).stride() == ()
