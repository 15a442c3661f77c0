"""A backend registered from outside the package runs every op and a small net unchanged."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from minitorch_meta.backends import base, register_backend
from minitorch_meta.backends.registry import get_backend, unregister_backend
from minitorch_meta.backends.xp import XpBackend
from minitorch_meta.device import device as Device

KERNELS = [name for name in vars(base.Backend) if not name.startswith("_")
           and callable(getattr(base.Backend, name))]


class CountingBackend(XpBackend):
    """NumPy kernels under a new device type, counting every kernel call."""

    def __init__(self, index):
        self.calls = Counter()
        super().__init__(Device("counting", index), np, np.lib.stride_tricks.as_strided)

    def to_numpy(self, a):
        self.calls["to_numpy"] += 1
        return a

    def synchronize(self):
        pass

    def scatter_add(self, target, index, values):
        np.add.at(target, index, values)


def _counted(name):
    inner = getattr(XpBackend, name, None) or getattr(CountingBackend, name)

    def kernel(self, *args, **kwargs):
        self.calls[name] += 1
        return inner(self, *args, **kwargs)

    return kernel


for _name in KERNELS:
    if _name not in ("to_numpy", "synchronize"):
        setattr(CountingBackend, _name, _counted(_name))


@pytest.fixture
def counting():
    register_backend("counting", CountingBackend)
    try:
        yield get_backend(mt.device("counting"))
    finally:
        unregister_backend("counting")


def test_kernel_list_is_the_documented_contract():
    for name in ("unary", "binary", "matmul", "conv2d", "conv2d_backward", "max_pool2d",
                 "max_pool2d_backward", "index_add", "sum_to_shape", "is_contiguous"):
        assert name in KERNELS and name in base.__doc__
    with pytest.raises(NotImplementedError, match="does not implement the kernel 'matmul'"):
        base.Backend(mt.device("cpu")).matmul(None, None)


def test_registered_backend_runs_ops(counting):
    x = mt.tensor([[1.0, -2.0], [3.0, 4.0]], device="counting", requires_grad=True)
    assert x.device == mt.device("counting") and str(x.device) == "counting"
    y = (x * 2 + 1).relu().exp().log().sum(0).mean() + (x @ x.t()).max() + x[0].abs().sum()
    y.backward()
    assert counting.calls["binary"] > 0 and counting.calls["matmul"] > 0
    reference = mt.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    z = (reference * 2 + 1).relu().exp().log().sum(0).mean() + (reference @ reference.t()).max() \
        + reference[0].abs().sum()
    z.backward()
    assert y.item() == pytest.approx(z.item())
    np.testing.assert_allclose(x.grad.cpu().numpy(), reference.grad.numpy())
    assert "device='counting'" in repr(x)


def test_registered_backend_trains_a_small_net(counting):
    mt.manual_seed(0)
    params = {
        "w1": mt.randn(4, 1, 3, 3) * 0.3, "b1": mt.zeros(4),
        "w2": mt.randn(3, 4 * 4 * 4) * 0.1, "b2": mt.zeros(3),
    }
    x, target = mt.randn(5, 1, 8, 8), mt.tensor([0, 1, 2, 1, 0])

    def step(device):
        p = {k: v.to(device).requires_grad_() for k, v in params.items()}
        h = F.max_pool2d(F.relu(F.conv2d(x.to(device), p["w1"], p["b1"], padding=1)), 2)
        loss = F.cross_entropy(F.linear(h.flatten(1), p["w2"], p["b2"]), target.to(device))
        loss.backward()
        return loss.item(), {k: v.grad.cpu().numpy() for k, v in p.items()}

    loss, grads = step("counting")
    ref_loss, ref_grads = step("cpu")
    assert loss == pytest.approx(ref_loss, rel=1e-6)
    for k in grads:
        np.testing.assert_allclose(grads[k], ref_grads[k], rtol=1e-5, atol=1e-7)
    for kernel in ("conv2d", "conv2d_backward", "max_pool2d", "max_pool2d_backward", "matmul"):
        assert counting.calls[kernel] >= 1, kernel
    with pytest.raises(mt.DeviceError, match="expected all tensors on the same device"):
        mt.ones(2, device="counting") + mt.ones(2)


def test_factories_and_seed_reach_the_new_backend(counting):
    mt.manual_seed(3)
    a = mt.rand(3, device="counting").tolist()
    mt.manual_seed(3)
    assert mt.rand(3, device="counting").tolist() == a
    assert mt.zeros(2, device="counting").device.type == "counting"


def test_unregistered_type_is_refused():
    with pytest.raises(mt.DeviceError, match="unknown device type 'counting'"):
        mt.device("counting")
    with pytest.raises(ValueError, match="device type must be an identifier"):
        register_backend("no good", CountingBackend)
