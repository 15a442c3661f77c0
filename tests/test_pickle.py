"""Tensors, Parameters and Modules pickle (``pickle``, ``multiprocessing`` queues) as in
PyTorch: values, dtype, device and ``requires_grad`` come back, never the graph or
``.grad``."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64, mt.int64, mt.uint8, mt.bool])
def test_a_tensor_round_trips_with_its_dtype_and_device(dtype, device):
    x = mt.tensor([[1, 0, 3], [4, 5, 0]], dtype=dtype, device=device)
    y = pickle.loads(pickle.dumps(x))
    assert type(y) is mt.Tensor and y.dtype is dtype and y.device == tensor_device(device)
    assert y.tolist() == x.tolist() and not y.requires_grad


def test_a_leaf_keeps_requires_grad_but_not_its_grad(device):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    x = mt.ones(3, device=device, requires_grad=True)
    x.sum().backward()
    tx = torch.ones(3, requires_grad=True)
    tx.sum().backward()
    y, ty = pickle.loads(pickle.dumps(x)), pickle.loads(pickle.dumps(tx))
    assert y.requires_grad and ty.requires_grad
    assert y.grad is None and ty.grad is None


def test_a_non_leaf_comes_back_as_a_leaf_as_in_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    theirs = pickle.loads(pickle.dumps(torch.ones(2, requires_grad=True) * 2))
    ours = pickle.loads(pickle.dumps(mt.ones(2, requires_grad=True) * 2))
    assert ours.requires_grad == theirs.requires_grad and ours.is_leaf == theirs.is_leaf
    assert ours.grad_fn is None and ours.tolist() == theirs.tolist()


def test_a_parameter_and_a_module_round_trip(device):
    layer = mt.nn.Linear(3, 2).to(device)
    copy = pickle.loads(pickle.dumps(layer))
    assert type(copy.weight) is mt.nn.Parameter and copy.weight.requires_grad
    np.testing.assert_array_equal(copy.weight.detach().cpu().numpy(),
                                  layer.weight.detach().cpu().numpy())
    x = mt.randn(4, 3, device=device)
    np.testing.assert_array_equal(copy(x).detach().cpu().numpy(),
                                  layer(x).detach().cpu().numpy())


def test_a_meta_tensor_round_trips_with_its_shape():
    y = pickle.loads(pickle.dumps(mt.empty(4, 5, dtype=mt.int64, device="meta")))
    assert y.shape == (4, 5) and y.dtype is mt.int64 and y.device.type == "meta"


def test_the_copy_does_not_share_memory_with_the_original_after_a_round_trip():
    x = mt.zeros(2)
    y = pickle.loads(pickle.dumps(x))
    x.add_(1)
    assert y.tolist() == [0.0, 0.0]
