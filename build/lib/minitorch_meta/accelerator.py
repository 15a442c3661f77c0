"""``torch.accelerator``: the device-neutral spelling of the current accelerator's API.

minitorch_meta has one accelerator, CUDA (through CuPy). As PyTorch tells an accelerator
"available at compilation time" from one usable now, ``current_accelerator()`` is
``device("cuda")`` wherever CuPy imports (even without a GPU), and ``None`` otherwise;
``current_accelerator(check_available=True)`` and ``is_available()`` also need a usable GPU.
Every other function delegates to ``minitorch_meta.cuda``: without an accelerator they raise
PyTorch's ``RuntimeError("Cannot access accelerator device when none is available.")``,
with CuPy but no usable GPU the ``CudaUnavailableError`` saying why (the memory queries
answer 0 there, as PyTorch's do before the allocator starts).

The usual opening of a script (PyTorch's "Learn the Basics")::

    device = (torch.accelerator.current_accelerator().type
              if torch.accelerator.is_available() else "cpu")
"""

from __future__ import annotations

import functools
from collections import OrderedDict

from . import cuda as _cuda
from .backends import cupy_backend as _cupy_backend
from .caller_warnings import warn_at_caller
from .device import device as _device

NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def current_accelerator(check_available: bool = False) -> _device | None:
    """``device("cuda")`` when CuPy is installed (and, with ``check_available``, a GPU is
    usable); None otherwise. Its index is None: ``current_device_index()`` gives the GPU."""
    try:
        _cupy_backend.import_cupy()
    except _cupy_backend.CudaUnavailableError:
        return None
    if check_available and not _cuda.is_available():
        return None
    return _device("cuda")


def is_available() -> bool:
    """True when there is an accelerator and at least one of its devices is usable."""
    return current_accelerator() is not None and _cuda.is_available()


def device_count() -> int:
    """The number of the accelerator's devices (0 without one)."""
    return 0 if current_accelerator() is None else _cuda.device_count()


def _require() -> None:
    if current_accelerator() is None:
        raise RuntimeError(NO_ACCELERATOR)


def _get_device_index(device, optional: bool = False) -> int:
    """The index a ``device`` argument names (an int, ``"cuda:1"``, a ``device``); None or an
    index-less device means the current one when ``optional``."""
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _device(device)
    index = None
    if isinstance(device, _device):
        accelerator = current_accelerator()
        if accelerator is None:
            raise RuntimeError("Accelerator expected")
        if accelerator.type != device.type:
            raise ValueError(f"{device.type} doesn't match the current accelerator "
                             f"{accelerator}.")
        index = device.index
    if index is None:
        if not optional:
            raise ValueError(f"Expected a torch.device with a specified index or an integer, "
                             f"but got:{device}")
        return current_device_index()
    return index


def current_device_index() -> int:
    """The index of the accelerator's current device."""
    _require()
    return _cuda.current_device()


def set_device_index(device, /) -> None:
    """Make ``device`` (an index, or a device of the accelerator's type with an index) the
    current device; a negative index changes nothing."""
    index = _get_device_index(device, optional=False)
    _require()
    _cuda.set_device(index)


def _deprecated(message: str):
    def wrap(function):
        @functools.wraps(function)
        def warned(*args, **kwargs):
            warn_at_caller(message, FutureWarning)
            return function(*args, **kwargs)
        return warned
    return wrap


current_device_idx = _deprecated("Use `current_device_index` instead.")(current_device_index)
current_device_idx.__doc__ = "(Deprecated) ``current_device_index``."
set_device_idx = _deprecated("Use `set_device_index` instead.")(set_device_index)
set_device_idx.__doc__ = "(Deprecated) ``set_device_index``."


class device_index:  # noqa: N801 - PyTorch's name
    """``with torch.accelerator.device_index(1):`` makes device 1 current inside the block,
    then restores the previous one; None changes nothing."""

    def __init__(self, device: int | None, /):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc_info) -> None:
        if self.idx is not None:
            set_device_index(self.prev_idx)


def synchronize(device=None, /) -> None:
    """Wait for every kernel queued on ``device`` (default: the current device) to finish."""
    _require()
    _cuda.synchronize(_get_device_index(device, optional=True))


def current_stream(device=None, /) -> _cuda.Stream:
    """The stream kernels are queued on for ``device`` (default: the current device)."""
    _require()
    return _cuda.current_stream(_get_device_index(device, optional=True))


def set_stream(stream: _cuda.Stream) -> None:
    """Make ``stream`` current, and its device the current device."""
    if not isinstance(stream, _cuda.Stream):
        raise TypeError(f"set_stream expects a stream (torch.cuda.Stream), got "
                        f"{type(stream).__name__}")
    _require()
    _cuda.set_stream(stream)


def empty_cache() -> None:
    """Give the memory the allocator caches (held, no tensor in it) back to the driver."""
    _require()
    _cuda.empty_cache()


def memory_stats(device_index=None, /) -> OrderedDict:
    """The allocator's numbers for ``device_index`` (default: the current device); empty
    before the accelerator is first used."""
    _require()
    if not _cuda.is_initialized():
        return OrderedDict()
    return _cuda.memory_stats(_get_device_index(device_index, optional=True))


def memory_allocated(device_index=None, /) -> int:
    """Bytes occupied by tensors on ``device_index`` (default: the current device)."""
    return memory_stats(device_index).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device_index=None, /) -> int:
    """The most bytes tensors occupied since the start or ``reset_peak_memory_stats``."""
    return memory_stats(device_index).get("allocated_bytes.all.peak", 0)


def memory_reserved(device_index=None, /) -> int:
    """Bytes the caching allocator holds: occupied, or cached for reuse."""
    return memory_stats(device_index).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device_index=None, /) -> int:
    """The most bytes the caching allocator held since the start or
    ``reset_peak_memory_stats``."""
    return memory_stats(device_index).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device_index=None, /) -> None:
    """Start the peaks again from the current numbers (nothing to do before first use)."""
    _require()
    if _cuda.is_initialized():
        _cuda.reset_peak_memory_stats(_get_device_index(device_index, optional=True))


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    """Reset the historical totals (CuPy's pool keeps none: see ``cuda.memory``)."""
    _require()
    if _cuda.is_initialized():
        _cuda.reset_accumulated_memory_stats(_get_device_index(device_index, optional=True))


def get_memory_info(device_index=None, /) -> tuple[int, int]:
    """``(free, total)`` bytes of the device's memory, as the driver reports them."""
    _require()
    return _cuda.mem_get_info(_get_device_index(device_index, optional=True))


__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "current_stream", "device_count", "device_index", "empty_cache", "get_memory_info",
           "is_available", "max_memory_allocated", "max_memory_reserved", "memory_allocated",
           "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
           "reset_peak_memory_stats", "set_device_idx", "set_device_index", "set_stream",
           "synchronize"]
