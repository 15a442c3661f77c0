"""``minitorch_meta.cuda``: is CUDA usable, how many GPUs, waiting for them, and the rest of
``torch.cuda``'s device API: selecting a GPU and its properties (``devices.py``), memory
numbers (``memory.py``), streams and events (``streams.py``) and the generators
(``random.py``).

Nothing here imports CuPy until a function is called, and every function is safe to call
on a machine without CuPy or without a GPU: there the queries answer as PyTorch's CPU-only
build does (False, 0, an empty ``memory_stats``; ``empty_cache`` and ``seed`` do nothing),
while what needs a GPU (``synchronize``, ``current_device``, ``set_device(0)``,
``get_device_name``, ``Event``, ``Stream``, ``mem_get_info``, ``check``...) raises the
``CudaUnavailableError`` (a ``DeviceError``, so a ``RuntimeError``) that says why CUDA
cannot be used.
"""

from __future__ import annotations

from ..backends import cupy_backend as _cupy_backend
from ..backends.registry import get_backend as _get_backend
from ..device import device as _device
from ..errors import DeviceError
from .devices import (
    CudaDeviceProperties,
    backend_of,
    current_index,
    device,
    device_index,
    device_of,
    get_device_capability,
    get_device_name,
    get_device_properties,
    init,
    is_bf16_supported,
    is_initialized,
    set_device,
)
from .memory import (
    empty_cache,
    max_memory_allocated,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    memory_stats,
    reset_accumulated_memory_stats,
    reset_max_memory_allocated,
    reset_peak_memory_stats,
)
from .random import (
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from .streams import (
    Event,
    Stream,
    StreamContext,
    current_stream,
    default_stream,
    set_stream,
    stream,
)

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
    _cupy_backend.check_cuda(device_index(device))


def current_device() -> int:
    """The index of the current CUDA device.

    Raises:
        CudaUnavailableError: when CUDA cannot be used here.
    """
    return current_index()


def synchronize(device: int | str | _device | None = None) -> None:
    """Wait until every kernel queued on ``device`` (default: the current one) has finished.

    Raises:
        CudaUnavailableError: when CUDA cannot be used here.
    """
    backend_of(device).synchronize()


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


__all__ = ["CudaUnavailableError", "check", "current_device", "device_count", "is_available",
           "manual_seed", "manual_seed_all", "synchronize", "unavailable_reason",
           "CudaDeviceProperties", "Event", "Stream", "StreamContext", "current_stream",
           "default_stream", "device", "device_of", "empty_cache", "get_device_capability",
           "get_device_name", "get_device_properties", "get_rng_state", "get_rng_state_all",
           "init", "initial_seed", "is_bf16_supported", "is_initialized",
           "max_memory_allocated", "max_memory_reserved", "mem_get_info", "memory_allocated",
           "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
           "reset_max_memory_allocated", "reset_peak_memory_stats", "seed", "seed_all",
           "set_device", "set_rng_state", "set_rng_state_all", "set_stream", "stream"]


def __getattr__(name):
    # ``torch.cuda.amp`` (deprecated spellings) loads on first use.
    if name == "amp":
        import importlib

        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
