"""Tensor.fill_diagonal_: square, wide and tall matrices (with and without wrap), N-d
tensors of equal sizes, views, dtype conversion of the value, in-place rules and errors,
all against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (7, 3), (5, 2), (4, 2), (2, 7), (1, 1),
                                   (0, 0), (3, 0), (2, 2, 2), (3, 3, 3, 3)])
@pytest.mark.parametrize("wrap", [False, True])
def test_matches_torch(shape, wrap, device):
    torch = _torch()
    data = np.arange(float(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = mt.tensor(data, device=device)
    returned = x.fill_diagonal_(-1.5, wrap=wrap)
    assert returned is x and x._version == 1
    np.testing.assert_array_equal(x.cpu().numpy(),
                                  torch.tensor(data).fill_diagonal_(-1.5, wrap=wrap).numpy())


@pytest.mark.parametrize("dtype, value", [("int64", 2.7), ("uint8", -1), ("bool", 3),
                                          ("float64", True), ("int32", -4)])
def test_the_value_is_converted_as_torch_converts_it(dtype, value):
    torch = _torch()
    x = mt.zeros(3, 3, dtype=getattr(mt, dtype)).fill_diagonal_(value)
    ref = torch.zeros(3, 3, dtype=getattr(torch, dtype)).fill_diagonal_(value)
    assert str(x.dtype) == str(ref.dtype) and x.tolist() == ref.tolist()


def test_a_strided_view_writes_into_its_base(device):
    base = mt.zeros(4, 4, device=device)
    base[:, ::2].fill_diagonal_(1.0)
    expected = np.zeros((4, 4), dtype=np.float32)
    expected[0, 0] = expected[1, 2] = 1
    np.testing.assert_array_equal(base.cpu().numpy(), expected)


def test_meta_keeps_the_shape_and_counts_the_write():
    x = mt.empty(2**20, 2**20, device="meta")
    assert x.fill_diagonal_(1.0, wrap=True) is x and x._version == 1


@pytest.mark.parametrize("shape, message", [
    ((3,), "dimensions must larger than 1"), ((), "dimensions must larger than 1"),
    ((2, 3, 2), "all dimensions of input must be of equal length"),
])
def test_shape_errors_match_torch(shape, message):
    torch = _torch()
    with pytest.raises(RuntimeError, match=message):
        torch.zeros(shape).fill_diagonal_(1)
    for device in ("cpu", "meta"):
        with pytest.raises(RuntimeError, match=message):
            mt.zeros(shape, device=device).fill_diagonal_(1)


def test_in_place_rules_and_value_type():
    with pytest.raises(RuntimeError, match="fill_diagonal_: a leaf Variable that requires grad"):
        mt.zeros(2, 2, requires_grad=True).fill_diagonal_(1)
    for value, name in (("1", "str"), (mt.ones(1), "Tensor")):
        with pytest.raises(TypeError, match=f"fill_diagonal_\\(\\): argument 'fill_value' "
                                            f"\\(position 1\\) must be Number, not {name}"):
            mt.zeros(2, 2).fill_diagonal_(value)
    assert mt.zeros(2, 2).fill_diagonal_(mt.tensor(3.0)).tolist() == [[3, 0], [0, 3]]
    with pytest.raises(RuntimeError, match="value cannot be converted to type torch.uint8"):
        mt.zeros(2, 2, dtype=mt.uint8).fill_diagonal_(300)
    with mt.no_grad():
        leaf = mt.zeros(2, 2, requires_grad=True)
        leaf.fill_diagonal_(2.0)
    assert leaf.tolist() == [[2, 0], [0, 2]]
