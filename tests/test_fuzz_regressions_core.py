"""Regressions found by fuzzing elementwise ops, reductions and factories against PyTorch:
one test per bug, compared with the ``torch_ref`` fixture."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device


@pytest.mark.parametrize("input_dtype,alpha", [
    ("int8", 2), ("int32", -3), ("uint8", 2), ("float16", 2), ("float32", 2.5), ("bool", 2),
])
@pytest.mark.parametrize("in_place", [False, True], ids=["add", "add_"])
def test_add_alpha_keeps_the_dtype_of_a_bool_other(torch_ref, device, input_dtype, alpha,
                                                   in_place):
    """``add(int8, bool, alpha=2)`` is int8 as in PyTorch (``bool * 2`` made it int64)."""
    data, other = np.array([1, 2, 3]), np.array([True, False, True])
    tx = torch_ref.tensor(data, dtype=getattr(torch_ref, input_dtype))
    mx = mt.tensor(data, dtype=getattr(mt, input_dtype), device=device)
    to, mo = torch_ref.tensor(other), mt.tensor(other, device=device)
    if in_place:
        ty, my = tx.add_(to, alpha=alpha), mx.add_(mo, alpha=alpha)
    else:
        ty, my = torch_ref.add(tx, to, alpha=alpha), mt.add(mx, mo, alpha=alpha)
    assert str(my.dtype) == str(ty.dtype)
    assert my.device == tensor_device(device)
    np.testing.assert_array_equal(my.cpu().numpy(), ty.numpy())


def test_sub_alpha_refuses_a_bool_other(torch_ref, device):
    """``sub(x, bool, alpha=3)`` raises PyTorch's bool-subtraction error (it subtracted)."""
    for framework, dev in ((torch_ref, "cpu"), (mt, device)):
        x, b = framework.tensor([1.5], device=dev), framework.tensor([True], device=dev)
        with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool"):
            framework.sub(x, b, alpha=3)
        with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool"):
            x.sub_(b, alpha=3)
