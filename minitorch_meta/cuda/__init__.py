"""``minitorch_meta.cuda``: is CUDA usable, how many GPUs, and waiting for them (``torch.cuda``).

Nothing here imports CuPy until a function is called, and every function is safe to call
on a machine without CuPy or without a GPU: the queries answer False/0 there, while
``synchronize``, ``current_device`` and ``check`` raise the ``CudaUnavailableError``
(a ``DeviceError``) that says why CUDA cannot be used.
"""

from __future__ import annotations

from ..backends import cupy_backend as _cupy_backend
from ..backends.registry import get_backend as _get_backend
from ..device import device as _device
from ..errors import DeviceError

CudaUnavailableError = _cupy_backend.CudaUnavailableError


def unavailable_reason() -> str | None:
    """The sentence saying why CUDA cannot be used here, or None when it can."""
    return _cupy_backend.cuda_unavailable_reason()


def is_available() -> bool:
    """True when CuPy is installed and sees at least one usable CUDA device."""
    return unavailable_reason() is None


def device_count() -> int:
    """The number of CUDA devices CuPy sees (0 without CuPy, driver or GPU)."""
    try:
        cupy = _cupy_backend.import_cupy()
    except DeviceError:
        return 0
    if _cupy_backend.diagnose(cupy) is not None:
        return 0
    return int(cupy.cuda.runtime.getDeviceCount())


def check(device: int | str | _device | None = None) -> None:
    """Raise ``CudaUnavailableError`` (cause and remedy in the message) unless ``device`` works."""
    _cupy_backend.check_cuda(_index(device))


def current_device() -> int:
    """The index of the current CUDA device.

    Raises:
        CudaUnavailableError: when CUDA cannot be used here.
    """
    cupy = _cupy_backend.import_cupy()
    _raise_if(_cupy_backend.diagnose(cupy))
    return int(cupy.cuda.runtime.getDevice())


def synchronize(device: int | str | _device | None = None) -> None:
    """Wait until every kernel queued on ``device`` (default: the current one) has finished.

    Raises:
        CudaUnavailableError: when CUDA cannot be used here.
    """
    _get_backend(_device("cuda", _index(device))).synchronize()


def manual_seed(seed: int) -> None:
    """Seed the current CUDA device's generator; silently does nothing without CUDA."""
    if is_available():
        _seed(_get_backend(_device("cuda")), seed)


def manual_seed_all(seed: int) -> None:
    """Seed the generator of every CUDA device; silently does nothing without CUDA."""
    for index in range(device_count()):
        _seed(_get_backend(_device("cuda", index)), seed)


def _seed(backend, seed: int) -> None:
    from ..random import seed_backend

    seed_backend(backend, int(seed))


def _index(device) -> int | None:
    """The index of a ``device`` argument: None, an int, ``"cuda:1"`` or a ``device``."""
    if device is None or isinstance(device, int):
        return device
    device = _device(device)
    if device.type != "cuda":
        raise DeviceError(f"expected a CUDA device, got '{device}'")
    return device.index


def _raise_if(error) -> None:
    if error is not None:
        raise error


__all__ = ["CudaUnavailableError", "check", "current_device", "device_count", "is_available",
           "manual_seed", "manual_seed_all", "synchronize", "unavailable_reason"]


def __getattr__(name):
    # ``torch.cuda.amp`` (deprecated spellings) loads on first use.
    if name == "amp":
        import importlib

        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
