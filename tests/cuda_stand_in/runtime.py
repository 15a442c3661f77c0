"""The stand-in's ``cupy.cuda``: one device, always there, nothing to wait for; streams and
events that keep CuPy's interface (an event records the host's clock, for timings).

Only names the installed CuPy has are offered: ``build_cuda`` checks every name it puts in
``cupy.cuda`` and ``cupy.cuda.runtime``, and ``tests/backends/test_cuda_stand_in.py`` checks
the methods of ``Device``, ``Stream``, ``Event`` and ``MemoryPool`` against CuPy's classes.
"""

from __future__ import annotations

import time
import types

from .memory import POOL

# A CUDA 12.4 driver and runtime (the numbers cupy_backend's diagnosis reads).
CUDA_VERSION = 12040
# What ``runtime.getDeviceProperties(0)`` reports (a few of the keys CuPy's dict has).
PROPERTIES = {"name": b"CuPy stand-in (NumPy)", "totalGlobalMem": 16 * 2**30, "major": 8,
              "minor": 6, "multiProcessorCount": 4}


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

    @property
    def compute_capability(self) -> str:
        return f"{PROPERTIES['major']}{PROPERTIES['minor']}"

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA Device {self.id} (CuPy stand-in)>"


class Stream:
    """``cupy.cuda.Stream``: work is done at once, so every stream is always ``done``."""

    null: Stream  # the legacy default stream (set below), as CuPy's ``Stream.null``
    _next_ptr = 1
    _current: list = []  # the stream ``use`` made current (one device, one thread's worth)

    def __init__(self, null=False, non_blocking=False, ptds=False, priority=None):
        self.ptr = 0 if null else Stream._next_ptr
        Stream._next_ptr += not null
        self.device_id = -1 if null else 0
        self.priority = priority

    @property
    def done(self) -> bool:
        return True

    def synchronize(self):
        pass

    def wait_event(self, event):
        if not isinstance(event, Event):
            raise TypeError(f"Stream.wait_event takes a cupy.cuda.Event, got {type(event)}")

    def record(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def use(self):
        Stream._current[:] = [self]
        return self

    def __repr__(self):
        return f"<Stream {self.ptr} (device {self.device_id}; CuPy stand-in)>"


Stream.null = Stream(null=True)


class Event:
    """``cupy.cuda.Event``: ``record`` notes the host's clock (the work is already done)."""

    _next_ptr = 1

    def __init__(self, block=False, disable_timing=False, interprocess=False):
        if interprocess and not disable_timing:
            raise ValueError("Timing must be disabled for interprocess events")  # as CuPy
        self.ptr, Event._next_ptr = Event._next_ptr, Event._next_ptr + 1
        self._timing = not disable_timing
        self._time = None

    def record(self, stream=None):
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"Event.record takes a cupy.cuda.Stream, got {type(stream)}")
        self._time = time.perf_counter()

    @property
    def done(self) -> bool:
        return True

    def synchronize(self):
        pass


def get_current_stream(device_id=-1) -> Stream:
    return Stream._current[0] if Stream._current else Stream.null


def get_elapsed_time(start_event, end_event) -> float:
    """Milliseconds between two recorded events (CUDA's error if one cannot time)."""
    for event in (start_event, end_event):
        if not event._timing or event._time is None:
            raise RuntimeError("cudaErrorInvalidResourceHandle: invalid resource handle "
                               "(the CuPy stand-in: an event without timing, or not recorded)")
    return (end_event._time - start_event._time) * 1000.0


def _checked(real, names: dict) -> dict:
    """``names``, after checking that the real CuPy module ``real`` has each of them."""
    missing = sorted(name for name in names if not hasattr(real, name))
    if missing:
        raise AttributeError(f"the CuPy stand-in offers {missing}, which {real.__name__} "
                             "lacks: remove them")
    return names


def build_cuda(real_cupy) -> types.SimpleNamespace:
    """The stand-in ``cupy.cuda`` (what the package's CUDA code asks of it)."""
    real = real_cupy.cuda
    runtime = types.SimpleNamespace(**_checked(real.runtime, {
        "getDeviceCount": lambda: 1, "getDevice": lambda: 0,
        "driverGetVersion": lambda: CUDA_VERSION, "runtimeGetVersion": lambda: CUDA_VERSION,
        "CUDARuntimeError": real.runtime.CUDARuntimeError,
        "getDeviceProperties": _device_properties,
        "memGetInfo": _mem_get_info,
    }))
    return types.SimpleNamespace(**_checked(real, {
        "Device": Device, "runtime": runtime, "Stream": Stream, "Event": Event,
        "get_current_stream": get_current_stream, "get_elapsed_time": get_elapsed_time,
    }))


def _device_properties(device: int) -> dict:
    Device(device)  # one device: 0
    return dict(PROPERTIES)


def _mem_get_info() -> tuple[int, int]:
    total = PROPERTIES["totalGlobalMem"]
    return total - POOL.total_bytes(), total
