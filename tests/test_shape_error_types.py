"""Shape errors are caught as PyTorch's are: PyTorch raises ``RuntimeError`` for most shape
mismatches and ``ValueError`` for some, so a ``ShapeError`` is both, on every device."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF

torch = pytest.importorskip("torch", reason="PyTorch (the reference) is not installed")

# Each case raises RuntimeError in PyTorch 2.13: matrix products, views, convolutions,
# pooling, broadcasting.
RUNTIME_ERROR_CASES = {
    "mm": lambda T, d: T.zeros(2, 3, device=d).mm(T.zeros(2, 3, device=d)),
    "view": lambda T, d: T.zeros(2, 3, device=d).view(4),
    "conv2d": lambda T, d: T.nn.functional.conv2d(T.zeros(1, 3, 8, 8, device=d),
                                                  T.zeros(4, 2, 3, 3, device=d)),
    "max_pool2d": lambda T, d: T.nn.functional.max_pool2d(T.zeros(1, 1, 2, 2, device=d), 3),
    "add": lambda T, d: T.zeros(2, 3, device=d) + T.zeros(4, device=d),
}


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("case", sorted(RUNTIME_ERROR_CASES))
def test_shape_errors_are_runtime_errors_as_in_pytorch(case, device):
    make = RUNTIME_ERROR_CASES[case]
    with pytest.raises(RuntimeError):
        make(torch, "cpu")
    with pytest.raises(RuntimeError) as caught:
        make(mt, device)
    assert isinstance(caught.value, mt.ShapeError)
    assert isinstance(caught.value, ValueError)


def test_a_loss_target_size_error_is_a_value_error_as_in_pytorch():
    with pytest.raises(ValueError):
        torch.nn.functional.binary_cross_entropy(torch.rand(3), torch.rand(4))
    with pytest.raises(ValueError) as caught:
        mF.binary_cross_entropy(mt.rand(3), mt.rand(4))
    assert isinstance(caught.value, mt.ShapeError)
