"""CUDA: the one clear error for each reason CUDA cannot work, and ``minitorch_meta.cuda``.

The error forms are tested for real where this machine allows it (CuPy installed, no GPU:
the "no device" form; CuPy hidden from the import system: the "not installed" form) and
with a stand-in CUDA runtime for the others. The ``cuda``-marked tests need a GPU.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.cuda
from minitorch_meta.backends import cupy_backend
from minitorch_meta.backends.cupy_backend import CudaUnavailableError

REASON = cupy_backend.cuda_unavailable_reason()
needs_gpu = pytest.mark.skipif(REASON is not None, reason=f"CUDA not usable here: {REASON}")
without_gpu = pytest.mark.skipif(REASON is None, reason="a CUDA device is usable here")


def _cupy_installed() -> bool:
    try:
        cupy_backend.import_cupy()
    except CudaUnavailableError:
        return False
    return True


# -- the error, for real on this machine ---------------------------------------------------

REQUESTS = {
    "Tensor.cuda()": lambda: mt.ones(2, 3).cuda(),
    "Tensor.to('cuda')": lambda: mt.ones(2, 3).to("cuda"),
    "Tensor.to('cuda:0')": lambda: mt.ones(2, 3).to("cuda:0"),
    "Tensor.cuda(0)": lambda: mt.ones(2, 3).cuda(0),
    "zeros(device='cuda')": lambda: mt.zeros(2, device="cuda"),
    "cuda.synchronize()": lambda: mt.cuda.synchronize(),
    "cuda.current_device()": lambda: mt.cuda.current_device(),
}


@without_gpu
@pytest.mark.skipif(not _cupy_installed(), reason="CuPy not installed: pip install -e '.[cuda]'")
@pytest.mark.parametrize("request_cuda", list(REQUESTS.values()), ids=list(REQUESTS))
def test_no_device_error_is_real_here(request_cuda):
    with pytest.raises(mt.DeviceError) as raised:
        request_cuda()
    assert isinstance(raised.value, CudaUnavailableError)
    assert raised.value.cause == cupy_backend.NO_DEVICE
    message = str(raised.value)
    assert "no CUDA device" in message
    assert "device='cpu'" in message  # says what to do


@pytest.mark.parametrize("request_cuda", list(REQUESTS.values()), ids=list(REQUESTS))
def test_not_installed_error(monkeypatch, request_cuda):
    monkeypatch.setitem(sys.modules, "cupy", None)  # makes "import cupy" fail
    with pytest.raises(CudaUnavailableError) as raised:
        request_cuda()
    assert raised.value.cause == cupy_backend.NOT_INSTALLED
    assert "CuPy is not installed" in str(raised.value)
    assert "pip install -e '.[cuda]'" in str(raised.value)


def test_cupy_failing_to_import_is_not_called_missing(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def broken(name, *args, **kwargs):
        if name == "cupy":
            raise ImportError("CuPy failed to load libcudart.so.12")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", broken)
    with pytest.raises(CudaUnavailableError) as raised:
        cupy_backend.import_cupy()
    assert raised.value.cause == cupy_backend.IMPORT_FAILED
    assert "libcudart" in str(raised.value)


def test_the_cpu_and_meta_devices_keep_working_after_a_cuda_error():
    with pytest.raises(mt.DeviceError):
        mt.ones(1).to("cuda:7")
    assert mt.ones(2).to("meta").shape == (2,)
    np.testing.assert_array_equal(mt.ones(2).numpy(), [1.0, 1.0])


# -- every cause, with a stand-in runtime --------------------------------------------------

class CUDARuntimeError(RuntimeError):
    """What CuPy raises: a message and a cudaError_t ``status``."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def fake_cupy(count=None, error=None, driver=12040, runtime=12090):
    """A module with CuPy's ``cuda.runtime`` queries, answering as told."""
    def get_device_count():
        if error is not None:
            raise error
        return count

    runtime_api = SimpleNamespace(getDeviceCount=get_device_count,
                                  driverGetVersion=lambda: driver,
                                  runtimeGetVersion=lambda: runtime)
    return SimpleNamespace(cuda=SimpleNamespace(runtime=runtime_api))


INSUFFICIENT = CUDARuntimeError(35, "cudaErrorInsufficientDriver: CUDA driver version is "
                                    "insufficient for CUDA runtime version")


def test_usable_device_has_no_error():
    assert cupy_backend.diagnose(fake_cupy(count=2), 1) is None
    assert cupy_backend.diagnose(fake_cupy(count=1), None) is None


def test_index_out_of_range():
    error = cupy_backend.diagnose(fake_cupy(count=2), 2)
    assert error.cause == cupy_backend.INDEX_OUT_OF_RANGE
    assert "index 2 is out of range" in str(error)
    assert "'cuda:0' to 'cuda:1'" in str(error)


def test_zero_devices():
    error = cupy_backend.diagnose(fake_cupy(count=0))
    assert error.cause == cupy_backend.NO_DEVICE
    assert "0 devices" in str(error)


def test_no_device_status():
    error = cupy_backend.diagnose(fake_cupy(error=CUDARuntimeError(100, "cudaErrorNoDevice")))
    assert error.cause == cupy_backend.NO_DEVICE
    assert "cudaErrorNoDevice" in str(error)


def test_driver_too_old():
    error = cupy_backend.diagnose(fake_cupy(error=INSUFFICIENT, driver=11040, runtime=12090))
    assert error.cause == cupy_backend.DRIVER_TOO_OLD
    message = str(error)
    assert "driver is too old" in message
    assert "CUDA 11.4" in message and "CUDA 12.9" in message
    assert "Update the NVIDIA driver" in message


def test_insufficient_driver_without_any_driver_means_no_device():
    # What CUDA answers on a machine with CuPy and no NVIDIA driver (this one).
    error = cupy_backend.diagnose(fake_cupy(error=INSUFFICIENT, driver=0))
    assert error.cause == cupy_backend.NO_DEVICE
    assert "no NVIDIA driver is loaded" in str(error)


def test_missing_driver_library():
    error = cupy_backend.diagnose(fake_cupy(error=OSError("libcuda.so.1: cannot open"),
                                            driver=0))
    assert error.cause == cupy_backend.NO_DEVICE
    assert "libcuda.so.1" in str(error)


def test_error_type_and_causes():
    error = CudaUnavailableError(cupy_backend.NO_DEVICE, "text")
    assert isinstance(error, mt.DeviceError) and isinstance(error, RuntimeError)
    assert set(cupy_backend.CAUSES) == {"cupy not installed", "cupy failed to import",
                                        "no cuda device", "driver too old",
                                        "device index out of range"}


def test_index_out_of_range_through_the_backend(monkeypatch):
    monkeypatch.setattr(cupy_backend, "import_cupy", lambda: fake_cupy(count=1))
    with pytest.raises(CudaUnavailableError, match="index 3 is out of range") as raised:
        cupy_backend.CupyBackend(3)
    assert raised.value.cause == cupy_backend.INDEX_OUT_OF_RANGE
    with pytest.raises(CudaUnavailableError, match="index 3 is out of range"):
        mt.cuda.check("cuda:3")


# -- minitorch_meta.cuda ---------------------------------------------------------------

@without_gpu
def test_cuda_queries_without_a_gpu():
    assert mt.cuda.is_available() is False
    assert mt.cuda.device_count() == 0
    assert mt.cuda.unavailable_reason() == REASON
    mt.cuda.manual_seed(0)  # silently ignored, as in PyTorch
    mt.cuda.manual_seed_all(0)
    with pytest.raises(CudaUnavailableError):
        mt.cuda.check()


def test_cuda_queries_without_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    assert mt.cuda.is_available() is False
    assert mt.cuda.device_count() == 0
    assert "not installed" in mt.cuda.unavailable_reason()


def test_device_argument_must_be_cuda():
    with pytest.raises(mt.DeviceError, match="expected a CUDA device, got 'cpu'"):
        mt.cuda.synchronize("cpu")


def test_cuda_queries_with_a_fake_runtime(monkeypatch):
    monkeypatch.setattr(cupy_backend, "import_cupy", lambda: fake_cupy(count=3))
    assert mt.cuda.is_available() is True
    assert mt.cuda.device_count() == 3


# -- on a GPU ----------------------------------------------------------------------------

@pytest.mark.cuda
@needs_gpu
def test_roundtrip_and_queries_on_a_gpu():
    count = mt.cuda.device_count()
    assert mt.cuda.is_available() and count >= 1
    assert 0 <= mt.cuda.current_device() < count
    x = mt.arange(6, dtype=mt.float32).view(2, 3)
    y = x.cuda()
    assert y.is_cuda and str(y.device) == "cuda:0"
    mt.cuda.synchronize()
    np.testing.assert_array_equal(y.cpu().numpy(), x.numpy())
    with pytest.raises(CudaUnavailableError, match="out of range") as raised:
        x.to(f"cuda:{count}")
    assert raised.value.cause == cupy_backend.INDEX_OUT_OF_RANGE


@pytest.mark.cuda
@needs_gpu
def test_conv_pool_training_step_matches_cpu_on_a_gpu():
    import minitorch_meta.nn.functional as F

    mt.manual_seed(0)
    x = mt.randn(4, 3, 12, 12)
    w = mt.randn(5, 3, 3, 3)
    b = mt.randn(5)
    target = mt.tensor([0, 1, 2, 3])
    results = {}
    for device in ("cpu", "cuda"):
        xd, wd, bd = (t.detach().to(device).requires_grad_() for t in (x, w, b))
        h = F.relu(F.max_pool2d(F.conv2d(xd, wd, bd, padding=1), 2, stride=1))
        loss = F.cross_entropy(h.flatten(1)[:, :5], target.to(device))
        loss.backward()
        results[device] = [t.detach().cpu().numpy() for t in (loss, xd.grad, wd.grad, bd.grad)]
    for got, want in zip(results["cuda"], results["cpu"]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
