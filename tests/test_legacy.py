"""The legacy typed constructors (torch.FloatTensor, ...): data or sizes, as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt

NAMES = ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor", "ByteTensor"]


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("args", [
    ([1, 0, 2],), ([[1.5, 2.0], [0.0, 3.0]],), ((2, 3),), (np.array([1, 2, 0]),), ([],),
    (np.array([[0.5], [1.0]]),),
], ids=["list", "nested_floats", "tuple_is_data", "numpy", "empty_list", "numpy_floats"])
def test_data_as_torch(name, args):
    torch = _torch()
    ours, theirs = getattr(mt, name)(*args), getattr(torch, name)(*args)
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    assert ours.tolist() == theirs.tolist() and ours.device.type == "cpu"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("args", [(2, 3), (0,), (mt.Size([2, 1]),), (), (np.int64(4),)])
def test_sizes_as_torch(name, args):
    torch = _torch()
    torch_args = tuple(torch.Size(a) if isinstance(a, mt.Size) else a for a in args)
    ours, theirs = getattr(mt, name)(*args), getattr(torch, name)(*torch_args)
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)


def test_a_tensor_of_the_same_dtype_shares_its_storage():
    x = mt.tensor([1.0, 2.0])
    alias = mt.FloatTensor(x)
    assert alias is not x and alias.dtype is mt.float32
    alias.fill_(5.0)
    assert x.tolist() == [5.0, 5.0] and x._version == alias._version == 1


@pytest.mark.parametrize("call, error, message", [
    (lambda: mt.FloatTensor(mt.tensor([1, 2])), TypeError,
     "FloatTensor(): expected a tensor of dtype torch.float32, got torch.int64"),
    (lambda: mt.FloatTensor(-1), RuntimeError,
     "Trying to create tensor with negative dimension -1: [-1]"),
    (lambda: mt.FloatTensor(2.5), TypeError, "FloatTensor(): data must be a sequence"),
    (lambda: mt.LongTensor("ab"), TypeError, "LongTensor(): data must be a sequence"),
    (lambda: mt.FloatTensor([1.0], [2.0]), TypeError, "FloatTensor() takes sizes (ints) or "
                                                      "one sequence of data, got list, list"),
    (lambda: mt.FloatTensor(2, device="meta"), RuntimeError,
     "legacy constructor expects device type: cpu but device type: meta was passed"),
    (lambda: mt.DoubleTensor([1.0], dtype=mt.float32), TypeError, None),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    if message is not None:
        assert str(info.value).startswith(message), str(info.value)


def test_device_cpu_is_accepted_and_names_read_as_torch():
    assert mt.IntTensor(3, device="cpu").shape == (3,)
    assert mt.ByteTensor.__name__ == "ByteTensor" and "uint8" in mt.ByteTensor.__doc__
