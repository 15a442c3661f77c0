"""The CUDA backend: the shared ``xp`` kernels over CuPy, plus the few CuPy-only pieces.

CuPy is imported here, lazily, the first time a ``"cuda"`` device is used: importing
minitorch_meta never imports CuPy. Every reason CUDA cannot work is turned into one
``DeviceError`` that names the cause and what to do (see ``cuda_unavailable_reason``).
"""

from __future__ import annotations

from ..device import device as Device
from ..errors import DeviceError
from .xp import XpBackend


def import_cupy():
    """Import CuPy, or raise ``DeviceError`` saying how to install it."""
    try:
        import cupy
    except ImportError as error:
        raise DeviceError(
            "CUDA was requested but CuPy is not installed "
            f"({error}). Install the cuda extra: pip install 'minitorch_meta[cuda]' "
            "(CuPy for CUDA 12), on a machine with an NVIDIA GPU and driver.") from None
    return cupy


def cuda_unavailable_reason(index: int | None = None) -> str | None:
    """Why CUDA device ``index`` cannot be used, or None when it can."""
    try:
        cupy = import_cupy()
    except DeviceError as error:
        return str(error)
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # CuPy raises CUDARuntimeError, or a driver/library error
        text = str(error)
        if "insufficient" in text.lower() or "driver version" in text.lower():
            return ("CUDA was requested but the NVIDIA driver is too old for this CuPy build "
                    f"({text}); update the driver or install a CuPy wheel for an older CUDA.")
        return ("CUDA was requested but no CUDA device is usable: CuPy is installed but the "
                f"CUDA runtime reports {text!r}. Run on a machine with an NVIDIA GPU, or use "
                "device='cpu' (or 'meta' to check shapes).")
    if count == 0:
        return ("CUDA was requested but no CUDA device was found (CuPy sees 0 devices); "
                "use device='cpu', or 'meta' to check shapes.")
    if index is not None and index >= count:
        return (f"CUDA device index {index} is out of range: this machine has {count} CUDA "
                f"device(s), so use 'cuda:0' to 'cuda:{count - 1}'.")
    return None


class CupyBackend(XpBackend):
    """Arrays are ``cupy.ndarray`` on one GPU; kernels run on its current stream."""

    def __init__(self, index: int | None):
        reason = cuda_unavailable_reason(index)
        if reason is not None:
            raise DeviceError(reason)
        import cupy
        import cupyx

        if index is None:
            index = cupy.cuda.runtime.getDevice()
        self._cupy, self._cupyx = cupy, cupyx
        self._cuda_device = cupy.cuda.Device(index)
        with self._cuda_device:
            super().__init__(Device("cuda", index), cupy, cupy.lib.stride_tricks.as_strided)

    def to_numpy(self, a):
        with self._cuda_device:
            return self._cupy.asnumpy(a)

    def asarray(self, data, dtype):
        with self._cuda_device:
            return super().asarray(data, dtype)

    def synchronize(self):
        self._cuda_device.synchronize()

    def scatter_add(self, target, index, values):
        self._cupyx.scatter_add(target, index, values)
