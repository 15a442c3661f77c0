"""The stand-in's ``cupy.cuda``: one device, always there, and nothing to wait for."""

from __future__ import annotations

import types

# A CUDA 12.4 driver and runtime (the numbers cupy_backend's diagnosis reads).
CUDA_VERSION = 12040


class Device:
    """``cupy.cuda.Device``: a context manager making a GPU current; here there is one."""

    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)
        if self.id != 0:
            raise ValueError(f"the CuPy stand-in has one device (0), got {self.id}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        pass  # NumPy's work is done when its call returns

    def use(self):
        pass

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA Device {self.id} (CuPy stand-in)>"


class _Stream:
    ptr = 0

    def synchronize(self):
        pass


def build_cuda(real_cupy) -> types.SimpleNamespace:
    """The stand-in ``cupy.cuda`` (what the package's CUDA code asks of it)."""
    runtime = types.SimpleNamespace(
        getDeviceCount=lambda: 1, getDevice=lambda: 0,
        driverGetVersion=lambda: CUDA_VERSION, runtimeGetVersion=lambda: CUDA_VERSION,
        CUDARuntimeError=real_cupy.cuda.runtime.CUDARuntimeError)
    return types.SimpleNamespace(Device=Device, runtime=runtime,
                                 get_current_stream=lambda: _Stream())
