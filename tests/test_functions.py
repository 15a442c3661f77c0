"""Module-level functions without an op of their own: ``equal``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch_meta as mt

NAN = float("nan")


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


# (a, dtype of a, b, dtype of b): shapes, values, and PyTorch's rule across dtypes
# (compared after type promotion).
PAIRS = [
    ([1, 2], "int64", [1, 2], "int64"),
    ([1, 2], "int64", [1, 3], "int64"),
    ([1, 2], "int64", [1.0, 2.0], "float32"),
    ([1, 2], "int64", [1, 2], "int32"),
    ([1.0, 2.0], "float32", [1.0, 2.0], "float64"),
    ([0.1], "float32", [0.1], "float64"),  # float32 0.1 is not float64 0.1
    ([True, False], "bool", [1, 0], "int64"),
    ([1, 255], "uint8", [1, 255], "int64"),
    ([0.0], "float32", [-0.0], "float32"),
    ([NAN], "float32", [NAN], "float32"),
    ([1, 2], "int64", [[1, 2]], "int64"),  # no broadcasting: shapes must be equal
    ([1, 1], "int64", [1], "int64"),
    (1.0, "float32", [1.0], "float32"),  # () against (1,)
    (2.5, "float64", 2.5, "float64"),
    ([], "float32", [], "int64"),
    ([[1.0, 2.0], [3.0, 4.0]], "float32", [[1.0, 2.0], [3.0, 4.5]], "float32"),
]


@pytest.mark.parametrize("a, a_dtype, b, b_dtype", PAIRS)
def test_equal_matches_torch(a, a_dtype, b, b_dtype, device):
    torch = _torch()
    ours = mt.equal(mt.tensor(a, dtype=getattr(mt, a_dtype), device=device),
                    mt.tensor(b, dtype=getattr(mt, b_dtype), device=device))
    theirs = torch.equal(torch.tensor(a, dtype=getattr(torch, a_dtype)),
                         torch.tensor(b, dtype=getattr(torch, b_dtype)))
    assert type(ours) is bool and ours == theirs


def test_equal_is_false_for_the_same_nan_tensor(device):
    x = mt.tensor([1.0, NAN], device=device)
    assert not mt.equal(x, x) and not x.equal(x)


def test_equal_method_grad_and_views(device):
    x = mt.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True)
    y = x * 1
    assert x.equal(y) and mt.equal(y, x)
    assert y.grad_fn is not None and x.grad is None  # nothing recorded, nothing changed
    assert mt.equal(x.t(), mt.tensor([[1.0, 3.0], [2.0, 4.0]], device=device))
    assert mt.equal(x.detach().expand(2, 2, 2), x.detach().expand(2, 2, 2).clone())


@pytest.mark.parametrize("other", [mt.ones(2, device="meta"), mt.ones(3, device="meta"),
                                   mt.ones(2, 2, dtype=mt.int64, device="meta")])
def test_equal_on_meta_raises_meta_data_error(other):
    """Meta has no values; as PyTorch, refused even where the shapes already differ."""
    message = (f"equal: cannot compare the values of meta tensors (shapes (2,) and "
               f"{tuple(other.shape)}): a meta tensor has a shape and a dtype but no data; ")
    with pytest.raises(mt.MetaDataError, match="^" + re.escape(message)):
        mt.equal(mt.ones(2, device="meta"), other)


def test_equal_mixing_devices_raises_device_error():
    with pytest.raises(mt.DeviceError, match="equal: expected all tensors on the same device, "
                                             "but got tensors on 'cpu', 'meta'"):
        mt.equal(mt.ones(2), mt.ones(2, device="meta"))


@pytest.mark.parametrize("args, message", [
    ((mt.ones(2), [1.0, 1.0]), "argument 'other' (position 2) must be Tensor, not list"),
    ((mt.ones(2), 1), "argument 'other' (position 2) must be Tensor, not int"),
    ((np.ones(2), mt.ones(2)), "argument 'input' (position 1) must be Tensor, not ndarray"),
])
def test_equal_needs_tensors(args, message):
    with pytest.raises(TypeError, match=f"^{re.escape('equal(): ' + message)}$"):
        mt.equal(*args)
