"""Parameter: a Tensor that shares its data, requires grad and prints like PyTorch's."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from minitorch_meta import nn


def test_parameter_shares_data_and_requires_grad():
    data = mt.ones(2)
    p = nn.Parameter(data)
    assert isinstance(p, mt.Tensor) and p.requires_grad and p.is_leaf
    with mt.no_grad():
        data.mul_(3)
    assert p.tolist() == [3.0, 3.0]
    assert not nn.Parameter(mt.ones(1), requires_grad=False).requires_grad
    assert tuple(nn.Parameter().shape) == (0,)


def test_results_of_ops_are_plain_tensors():
    p = nn.Parameter(mt.ones(2))
    assert type(p * 2) is mt.Tensor
    assert type(p.data) is mt.Tensor


def test_repr_matches_pytorch(torch_ref):
    assert repr(nn.Parameter(mt.ones(2))) == repr(torch_ref.nn.Parameter(torch_ref.ones(2)))
    ours = nn.Parameter(mt.ones(2, device="meta"))
    theirs = torch_ref.nn.Parameter(torch_ref.ones(2, device="meta"))
    assert repr(ours) == repr(theirs)


def test_errors():
    with pytest.raises(TypeError, match="Parameter expects a Tensor as data, got list"):
        nn.Parameter([1.0])
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype"):
        nn.Parameter(mt.ones(2, dtype=mt.int64))


def test_uninitialized_parameter():
    p = nn.UninitializedParameter()
    assert repr(p) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        p.shape  # noqa: B018
    with pytest.raises(RuntimeError, match="Call `forward` to initialize"):
        p.size()
    p.materialize((2, 3), dtype=mt.float64)
    assert type(p) is nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype is mt.float64
