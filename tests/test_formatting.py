"""Reprs follow PyTorch's: tensor values of each dtype, suffixes, meta form, Size, dtype."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F

VALUES = [
    [1.0, 2.0, 3.0],
    [[1.5, -2.25], [3.0, 4.125]],
    [0.1, 0.2, 0.3333333],
    [1e-5, 1.0, 2.0],
    [1e9, 1.0],
    [123456.789, 0.5],
    [float("nan"), 1.0, float("inf")],
    [[[1.0]]],
    3.5,
    -0.0,
    [],
    [0.0, 0.0],
    list(np.linspace(-1, 1, 12)),
    [[0.12345, 10.5], [100.25, -3.0]],
]


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("values", VALUES, ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_reprs_match_torch(values, dtype):
    torch = _torch()
    data = np.array(values, dtype=dtype)
    assert repr(mt.tensor(data)) == repr(torch.tensor(data))


def _integer_cases():
    """(values, dtype) pairs; uint8 only gets values it can hold (0..255)."""
    all_values = [[1, 2, 3], [[-1, 20], [300, 4]], 7, [], [10**12, 1]]
    for dtype in ("int64", "int32", "uint8", "bool"):
        for values in all_values:
            array = np.array(values)
            if dtype == "uint8" and array.size and (array.min() < 0 or array.max() > 255):
                continue
            yield pytest.param(values, dtype, id=f"{values!r}-{dtype}")


@pytest.mark.parametrize("values, dtype", list(_integer_cases()))
def test_integer_and_bool_reprs_match_torch(values, dtype):
    torch = _torch()
    data = np.array(values).astype(dtype)
    assert repr(mt.tensor(data)) == repr(torch.tensor(data))


def test_large_tensor_is_summarised_like_torch():
    torch = _torch()
    data = np.arange(2000, dtype=np.float32).reshape(40, 50)
    assert repr(mt.tensor(data)) == repr(torch.tensor(data))
    data = np.arange(1500, dtype=np.int64)
    assert repr(mt.tensor(data)) == repr(torch.tensor(data))


def test_requires_grad_and_grad_fn_suffixes_match_torch():
    torch = _torch()
    data = np.array([[1.0, 2.0]], np.float32)
    ours, theirs = mt.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    assert repr(ours) == repr(theirs)
    assert repr(ours * 2) == repr(theirs * 2)
    assert repr(ours.sum()) == repr(theirs.sum())
    assert repr(ours.double() + 1) == repr(theirs.double() + 1)


def test_meta_repr_is_pytorchs():
    x = mt.rand(2, 3, 10, 10, device="meta")
    w = mt.rand(5, 3, 2, 2, device="meta", requires_grad=True)
    assert repr(F.conv2d(x, w)) == ("tensor(..., device='meta', size=(2, 5, 9, 9), "
                                    "grad_fn=<ConvolutionBackward0>)")
    assert repr(x) == "tensor(..., device='meta', size=(2, 3, 10, 10))"
    assert repr(w) == "tensor(..., device='meta', size=(5, 3, 2, 2), requires_grad=True)"
    assert repr(mt.empty(3, dtype=mt.int64, device="meta")) == (
        "tensor(..., device='meta', size=(3,), dtype=torch.int64)")
    assert repr(mt.empty((), device="meta")) == "tensor(..., device='meta', size=())"


def test_meta_repr_matches_torch():
    torch = _torch()
    for shape, dtype in [((2, 5, 9, 9), "float32"), ((3,), "int64"), ((), "float64"),
                         ((0, 2), "bool")]:
        ours = mt.empty(shape, dtype=getattr(mt, dtype), device="meta")
        theirs = torch.empty(shape, dtype=getattr(torch, dtype), device="meta")
        assert repr(ours) == repr(theirs)
    theirs = torch.empty(2, 3, device="meta", requires_grad=True)
    assert repr(mt.empty(2, 3, device="meta", requires_grad=True)) == repr(theirs)


def test_size_dtype_device_reprs_match_torch():
    torch = _torch()
    assert repr(mt.Size([2, 3])) == repr(torch.Size([2, 3]))
    assert str(mt.Size([])) == str(torch.Size([]))
    assert repr(mt.rand(2, 3).shape) == "torch.Size([2, 3])"
    for name in ("float32", "float64", "int64", "int32", "uint8", "bool"):
        assert repr(getattr(mt, name)) == repr(getattr(torch, name))
    for spec in ("cpu", "meta", "cuda", "cuda:1"):
        assert repr(mt.device(spec)) == repr(torch.device(spec))
        assert str(mt.device(spec)) == str(torch.device(spec))


def test_size_behaves_like_a_tuple():
    s = mt.Size([2, 3, 4])
    assert s == (2, 3, 4) and isinstance(s, tuple) and s.numel() == 24
    assert isinstance(s[1:], mt.Size) and s[1:] == (3, 4) and s[-1] == 4
    assert isinstance(s + (5,), mt.Size)


def test_format_of_scalars():
    assert f"{mt.tensor(2.5):.2f}" == "2.50"
    assert f"{mt.tensor(3)}" == "3"  # as PyTorch: a 0-d tensor formats as its item
    assert f"{mt.tensor([1, 2])}" == "tensor([1, 2])"
