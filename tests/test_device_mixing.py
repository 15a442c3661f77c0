"""Which tensors on different devices may meet in one op, as in PyTorch.

A 0-d CPU tensor counts as a scalar next to tensors of any device (``x.cuda() *
torch.tensor(2.0)``), and index tensors may come from the CPU whatever the indexed tensor's
device. Everything else mixed is an error. PyTorch's meta device follows the same rules, so
the meta cases are checked against it; the cuda cases run wherever CUDA does (or on the
CuPy stand-in) and are checked against the CPU's values.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.errors import DeviceError
from tests.devices import cuda_param, tensor_device


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the reference: pip install torch")


@pytest.fixture(params=["meta", cuda_param()])
def other_device(request):
    """A device other than the CPU: meta always, cuda where it works (skipped elsewhere)."""
    return request.param


def _values(t):
    return None if t.is_meta else t.cpu().numpy()


def test_a_cpu_scalar_joins_another_device(other_device):
    x = mt.arange(4.0, device=other_device)
    for result in (x * mt.tensor(2.0), mt.tensor(2.0) + x, mt.where(x > 1, x, mt.tensor(-1.0)),
                   mt.maximum(x, mt.tensor(1.0)), mt.lerp(x, x, mt.tensor(0.5))):
        assert result.device == tensor_device(other_device) and result.shape == (4,)
    if other_device != "meta":
        np.testing.assert_array_equal(_values(x * mt.tensor(2.0)), [0.0, 2.0, 4.0, 6.0])
        np.testing.assert_array_equal(_values(mt.where(x > 1, x, mt.tensor(-1.0))),
                                      [-1.0, -1.0, 2.0, 3.0])


def test_pytorch_lets_a_cpu_scalar_join_meta_too():
    torch = _torch()
    x = torch.arange(4.0, device="meta")
    assert (x * torch.tensor(2.0)).device.type == "meta"
    with pytest.raises(RuntimeError):
        x + torch.ones(1)


def test_the_cpu_scalars_gradient_comes_back_to_the_cpu(other_device):
    x = mt.arange(4.0, device=other_device)
    scale = mt.tensor(2.0, requires_grad=True)
    (x * scale).sum().backward()
    assert scale.grad.device == mt.device("cpu") and scale.grad.shape == ()
    if other_device != "meta":
        assert scale.grad.item() == 6.0  # 0 + 1 + 2 + 3


@pytest.mark.parametrize("cpu_operand", [lambda: mt.ones(1), lambda: mt.ones(4),
                                         lambda: mt.ones(2, 2)], ids=["one", "four", "2x2"])
def test_any_other_cpu_tensor_is_an_error_naming_both_devices(other_device, cpu_operand):
    x = mt.arange(4.0, device=other_device)
    with pytest.raises(DeviceError, match="expected all tensors on the same device") as info:
        x + cpu_operand()
    assert "'cpu'" in str(info.value) and f"'{tensor_device(other_device)}'" in str(info.value)


@pytest.mark.parametrize("device", [cuda_param()])
def test_two_non_cpu_devices_never_mix(device):
    with pytest.raises(DeviceError, match="same device"):
        mt.ones(3, device=device) + mt.tensor(1.0, device="meta")


def test_cpu_indices_index_a_tensor_of_another_device(other_device):
    x = mt.arange(5.0, device=other_device) * 10
    picked = x[mt.tensor([4, 0])]
    masked = x[mt.tensor([True, False, True, False, True])]
    assert picked.device == masked.device == tensor_device(other_device)
    assert picked.shape == (2,) and masked.shape == (3,)  # the mask's count, even on meta
    x[mt.tensor([1, 2])] = 7.0
    if other_device != "meta":
        np.testing.assert_array_equal(_values(picked), [40.0, 0.0])
        np.testing.assert_array_equal(_values(masked), [0.0, 20.0, 40.0])
        np.testing.assert_array_equal(_values(x), [0.0, 7.0, 7.0, 30.0, 40.0])


def test_pytorch_takes_cpu_indices_and_masks_on_meta():
    torch = _torch()
    x = torch.arange(5.0, device="meta")
    assert x[torch.tensor([4, 0])].shape == (2,)
    assert x[torch.tensor([True, False, True, False, True])].shape == (3,)


def test_indices_from_a_non_cpu_device_are_an_error():
    x = mt.arange(5.0)
    with pytest.raises(DeviceError, match="indices should be either on cpu or on the same "
                                          "device as the indexed tensor"):
        x[mt.tensor([0, 1], device="meta")]
