"""CUDA streams and events (``torch.cuda.Stream``, ``Event``, ``stream``, ``current_stream``),
over CuPy's ``cupy.cuda.Stream`` and ``cupy.cuda.Event``.

Every kernel is queued on CuPy's current stream of the calling thread, so ``with
torch.cuda.stream(s):`` (which makes ``s`` current, then restores the previous stream)
moves this package's kernels onto ``s``. Events time the GPU: ``Event(enable_timing=True)``,
``record()`` on both sides of the work, ``synchronize()`` the later one, then
``start.elapsed_time(end)`` in milliseconds.
"""

from __future__ import annotations

from ..backends import cupy_backend as _cupy_backend
from ..device import device as _device
from .devices import backend_of, current_index, set_device


def _cupy():
    return _cupy_backend.import_cupy()


class Stream:
    """A CUDA stream on ``device`` (default: the current GPU): a queue of kernels that runs
    in order, concurrently with other streams. Lower ``priority`` numbers run first.

    Raises:
        CudaUnavailableError: when CUDA cannot be used here.
    """

    def __init__(self, device=None, priority: int = 0):
        index = backend_of(device).device.index
        with _cupy().cuda.Device(index):
            stream = _cupy().cuda.Stream(non_blocking=False, priority=priority)
        self._adopt(stream, index, priority)

    @classmethod
    def _of(cls, stream, index: int, priority: int = 0) -> Stream:
        """A ``Stream`` for CuPy's ``stream`` on GPU ``index`` (created elsewhere)."""
        self = cls.__new__(cls)
        self._adopt(stream, index, priority)
        return self

    def _adopt(self, stream, index: int, priority: int) -> None:
        self._stream, self.device, self.priority = stream, _device("cuda", index), priority

    @property
    def cuda_stream(self) -> int:
        """The raw ``cudaStream_t`` handle (0 for the default stream)."""
        return int(self._stream.ptr)

    def query(self) -> bool:
        """True when all the work queued on this stream has finished."""
        return bool(self._stream.done)

    def synchronize(self) -> None:
        """Wait until all the work queued on this stream has finished."""
        self._stream.synchronize()

    def wait_event(self, event: Event) -> None:
        """Make the work queued on this stream from now on wait for ``event`` (returns at once)."""
        self._stream.wait_event(event._event)

    def wait_stream(self, stream: Stream) -> None:
        """Make the work queued on this stream from now on wait for what ``stream`` has
        queued so far (returns at once)."""
        self.wait_event(stream.record_event())

    def record_event(self, event: Event | None = None) -> Event:
        """Record ``event`` (a new one if None) on this stream, and return it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other) -> bool:
        return (isinstance(other, Stream) and other.cuda_stream == self.cuda_stream
                and other.device == self.device)

    def __hash__(self) -> int:
        return hash((self.cuda_stream, self.device))

    def __repr__(self) -> str:
        return f"<torch.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class Event:
    """A CUDA event: a marker in a stream, to wait for or to time the GPU.

    ``enable_timing`` lets ``elapsed_time`` measure between two events; ``blocking`` makes
    ``synchronize`` sleep rather than spin; ``interprocess`` lets other processes share it.

    Raises:
        CudaUnavailableError: when CUDA cannot be used here.
    """

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False):
        index = backend_of(None).device.index
        with _cupy().cuda.Device(index):
            self._event = _cupy().cuda.Event(block=blocking, disable_timing=not enable_timing,
                                             interprocess=interprocess)
        self.enable_timing, self.blocking, self.interprocess = enable_timing, blocking, interprocess
        self._recorded = False

    @property
    def cuda_event(self) -> int:
        """The raw ``cudaEvent_t`` handle."""
        return int(self._event.ptr)

    def record(self, stream: Stream | None = None) -> None:
        """Mark the point reached by ``stream`` (default: the current stream)."""
        stream = current_stream() if stream is None else stream
        self._event.record(stream._stream)
        self._recorded = True

    def wait(self, stream: Stream | None = None) -> None:
        """Make ``stream`` (default: the current stream) wait for this event."""
        stream = current_stream() if stream is None else stream
        stream.wait_event(self)

    def query(self) -> bool:
        """True when the work before this event has finished (or it was never recorded)."""
        return bool(self._event.done)

    def synchronize(self) -> None:
        """Wait until the work before this event has finished."""
        self._event.synchronize()

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event and ``end_event`` (both recorded with timing).

        Raises:
            RuntimeError: an event was made without ``enable_timing=True``, or not recorded.
        """
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument "
                               "'enable_timing=True'.")
        if not (self._recorded and end_event._recorded):
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return float(_cupy().cuda.get_elapsed_time(self._event, end_event._event))

    def __repr__(self) -> str:
        return f"<torch.cuda.Event {self.cuda_event:#x}>"


def current_stream(device=None) -> Stream:
    """The stream kernels are queued on for ``device`` (default: the current GPU)."""
    index = backend_of(device).device.index
    return Stream._of(_cupy().cuda.get_current_stream(index), index)


def default_stream(device=None) -> Stream:
    """The default (legacy null) stream of ``device`` (default: the current GPU)."""
    index = backend_of(device).device.index
    return Stream._of(_cupy().cuda.Stream.null, index)


def set_stream(stream: Stream | None) -> None:
    """Make ``stream`` current, and its GPU the current GPU (None changes nothing).
    ``with torch.cuda.stream(s):`` is the better spelling: it restores both."""
    if stream is None:
        return
    set_device(stream.device.index)
    with _cupy().cuda.Device(stream.device.index):
        stream._stream.use()


class StreamContext:
    """``with torch.cuda.stream(s):``: kernels go to ``s`` inside the block; on exit the
    previous stream of ``s``'s GPU and the previous current GPU are restored. ``None``
    changes nothing."""

    def __init__(self, stream: Stream | None):
        self.stream = stream
        self._previous = None

    def __enter__(self):
        if self.stream is None:
            return
        self._previous = (current_index(), current_stream(self.stream.device))
        set_stream(self.stream)

    def __exit__(self, *exc_info):
        if self._previous is not None:
            index, stream = self._previous
            set_stream(stream)
            set_device(index)
            self._previous = None
        return False


def stream(stream: Stream | None) -> StreamContext:
    """The ``StreamContext`` selecting ``stream`` (``with torch.cuda.stream(s):``)."""
    return StreamContext(stream)
