"""empty_strided and Tensor.new_empty_strided: strides equal PyTorch's (a real strided
memory layout), dtypes and devices, and PyTorch's errors."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from tests.devices import tensor_device


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


@pytest.mark.parametrize("size, stride", [
    ((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2, 3, 4), (1, 2, 6)), ((4,), (3,)), ((), ()),
    ((0, 3), (5, 1)), ((2, 3), (0, 0)), ((3, 2), (4, 1)),
])
def test_strides_and_contiguity_match_torch(size, stride, device):
    torch = _torch()
    ours = mt.empty_strided(size, stride, device=device)
    ref = torch.empty_strided(size, stride)
    assert ours.shape == ref.shape and ours.stride() == ref.stride()
    assert ours.is_contiguous() == ref.is_contiguous()
    assert ours.dtype is mt.float32 and ours.device == tensor_device(device)


def test_a_column_major_tensor_is_written_and_read_in_logical_order(device):
    x = mt.empty_strided((2, 3), (1, 2), device=device)
    x.copy_(mt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device))
    assert x.tolist() == [[1, 2, 3], [4, 5, 6]] and x.stride() == (1, 2)
    assert x.t().is_contiguous()


def test_keywords_and_new_empty_strided(device):
    x = mt.empty_strided([2, 2], [1, 2], dtype=mt.int64, device=device, requires_grad=False)
    assert x.dtype is mt.int64
    y = mt.empty_strided((2, 2), (2, 1), requires_grad=True)
    assert y.requires_grad and y.is_leaf
    base = mt.ones(3, dtype=mt.int32, device=device)
    z = base.new_empty_strided((2, 3), (1, 2))
    assert z.dtype is mt.int32 and z.device == base.device and z.stride() == (1, 2)
    w = base.new_empty_strided((2,), (1,), dtype=mt.float64, device="cpu")
    assert w.dtype is mt.float64 and w.device.type == "cpu"


def test_meta_has_the_shape_and_no_memory():
    x = mt.empty_strided((2**30, 2**30), (1, 2**30), device="meta")
    assert x.is_meta and x.shape == (2**30, 2**30)


def test_zero_strides_share_memory_so_writes_are_refused_as_on_expand():
    x = mt.empty_strided((2, 3), (0, 1))
    x.fill_(2.0)  # one value everywhere cannot disagree
    assert x.tolist() == [[2, 2, 2], [2, 2, 2]]
    with pytest.raises(RuntimeError, match="more than one element"):
        x.add_(1.0)


@pytest.mark.parametrize("size, stride, error, message", [
    ((2, 3), (1,), RuntimeError,
     "dimensionality of sizes (2) must match dimensionality of strides (1)"),
    ((2, -3), (1, 2), RuntimeError, "Trying to create tensor with negative dimension -3: [2, -3]"),
    ((2, 3), (-1, 2), RuntimeError,
     "Storage size calculation overflowed with sizes=[2, 3] and strides=[-1, 2]"),
    ((2, 3), (1.5, 2), TypeError,
     "empty_strided(): argument 'stride' (position 2) must be tuple of ints, but found element "
     "of type float at pos 0"),
    (3, (1,), TypeError,
     "empty_strided(): argument 'size' (position 1) must be tuple of ints, not int"),
])
def test_errors_match_torch(size, stride, error, message):
    torch = _torch()
    with pytest.raises(error) as ref:
        torch.empty_strided(size, stride)
    assert str(ref.value).startswith(message)
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            mt.empty_strided(size, stride, device=device)
        assert str(info.value).startswith(message), device
