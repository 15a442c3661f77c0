"""``Recorder``: the op observer a profiler puts in ``ops.function._observers`` while it
records, and the clock of every range.

Each op is timed from just before its dispatch to just after (``op_started`` and the
observer call, or ``op_failed``), each backward node around its step in the autograd engine
(``node_started``/``node_ended``), and each ``record_function`` block from its ``__enter__``
to its ``__exit__``. Ops on a CUDA device are queued by CuPy and run later: the recorder
synchronises the device before reading the clock, at both ends, so an op's range holds its
kernels' run (and nothing queued before it). Nothing of this runs when no profiler records:
the observer list is then empty.

Names are PyTorch's: an op is ``aten::`` and the snake-case stem of its ``grad_fn`` name
(``AddmmBackward0`` -> ``aten::addmm``, ``MaxPool2DWithIndicesBackward0`` ->
``aten::max_pool2d_with_indices``), or of its ``op_name`` when it has no gradient
(``aten::lt``); a backward node is ``autograd::engine::evaluate_function: AddmmBackward0``.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
import threading
import time

from .events import BACKWARD_PREFIX, FunctionEvent

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_BACKWARD_STEM = re.compile(r"^(\w+?)Backward\d*$")
_WORD_START = re.compile(r"(?<!^)(?=[A-Z][a-z])")  # ``MaxPool2DWith`` -> Max|Pool2D|With
_aten_names: dict = {}  # grad_fn name -> aten name: a cache, filled as names are met


def aten_name(function) -> str:
    """PyTorch's profiler name of an op (see the module docstring)."""
    if function.differentiable:
        name = function.name()
        aten = _aten_names.get(name)
        if aten is None:
            stem = _BACKWARD_STEM.match(name)
            aten = "aten::" + (_WORD_START.sub("_", stem.group(1)).lower() if stem
                               else function.op_name)
            _aten_names[name] = aten
        return aten
    return "aten::" + function.op_name


def _synchronise(backend) -> None:
    """Wait for the device's queued work, so that the clock reads its end (CUDA only)."""
    if backend is not None and backend.device.type == "cuda":
        backend.synchronize()


def _backend_of(inputs):
    for tensor in inputs:
        if tensor is not None:
            return tensor._backend
    return None


def _shape_of(value) -> list:
    """A tensor's shape as a list (PyTorch's ``Input Shapes`` entries); [] for None."""
    return [] if value is None else list(value._data.shape)


def _user_stack() -> list:
    """The caller's stack, innermost first, as PyTorch's ``"file.py(12): name"`` entries,
    without minitorch_meta's own frames."""
    entries, frame = [], sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not os.path.abspath(path).startswith(_PACKAGE_DIR + os.sep):
            entries.append(f"{path}({frame.f_lineno}): {frame.f_code.co_name}")
        frame = frame.f_back
    return entries


def _output_bytes(function, outputs) -> tuple:
    """(host bytes, device bytes) of the storage the op's outputs own: 0 for a view (it
    shares its input's) and on meta (nothing is allocated)."""
    if function.is_view or outputs is None:
        return 0, 0
    host = device = 0
    for tensor in outputs if isinstance(outputs, tuple) else (outputs,):
        backend = tensor._backend
        if not backend.stores_data:
            continue
        if backend.device.type == "cuda":
            device += int(tensor._data.nbytes)
        else:
            host += int(tensor._data.nbytes)
    return host, device


class Recorder:
    """Records ranges into ``events`` (``FunctionEvent``, in the order they start)."""

    def __init__(self, record_shapes: bool = False, with_stack: bool = False,
                 profile_memory: bool = False):
        self.record_shapes = record_shapes
        self.with_stack = with_stack
        self.profile_memory = profile_memory
        self.events: list[FunctionEvent] = []
        self._open = threading.local()  # per thread: [(op or node, event, backend)] running
        self._ids = itertools.count().__next__
        self._clock = time.perf_counter_ns

    # -- registration ------------------------------------------------------------------
    def start(self) -> None:
        from ..ops.function import _observers

        _observers.append(self)

    def stop(self) -> None:
        from ..ops.function import _observers

        if self in _observers:
            _observers.remove(self)
        # Ranges still open (an op of another thread, a record_function not left) are
        # dropped: they have no end.
        self.events = [event for event in self.events if event.end_ns is not None]

    # -- ranges --------------------------------------------------------------------------
    def open_range(self, name: str, input_shapes=None, scope: int = 0,
                   is_user_annotation: bool = False) -> FunctionEvent:
        """Start a range now; ``close_range`` ends it."""
        stack = _user_stack() if self.with_stack and scope == 0 else None
        event = FunctionEvent(self._ids(), name, threading.get_native_id(), 0,
                              input_shapes=input_shapes, stack=stack, scope=scope,
                              is_user_annotation=is_user_annotation)
        event.end_ns = None  # open
        self.events.append(event)
        event.start_ns = self._clock()  # last, so that the bookkeeping above is not timed
        return event

    def close_range(self, event: FunctionEvent) -> None:
        event.end_ns = self._clock()

    def _running(self) -> list:
        running = getattr(self._open, "entries", None)
        if running is None:
            running = self._open.entries = []
        return running

    def _begin(self, key, name: str, backend, input_shapes=None, scope: int = 0) -> None:
        _synchronise(backend)
        event = self.open_range(name, input_shapes, scope)
        self._running().append((key, event, backend))

    def _end(self, key):
        """Close the range of ``key`` (the innermost running one of this thread)."""
        running = self._running()
        while running:
            entry_key, event, backend = running.pop()
            if entry_key is key:
                _synchronise(backend)
                self.close_range(event)
                return event
        return None  # started before this recorder was: nothing to close

    # -- the op observer protocol (ops/function.py) ---------------------------------------
    def op_started(self, function, inputs) -> None:
        shapes = [_shape_of(t) for t in inputs] if self.record_shapes else None
        self._begin(function, aten_name(function), _backend_of(inputs), shapes)

    def __call__(self, function, inputs, outputs) -> None:
        event = self._end(function)
        if event is not None and self.profile_memory:
            event.cpu_memory_usage, event.device_memory_usage = _output_bytes(function, outputs)

    def op_failed(self, function) -> None:
        self._end(function)

    # -- the autograd engine's protocol (autograd/engine.py) ------------------------------
    def node_started(self, node) -> None:
        shapes = [] if self.record_shapes else None
        self._begin(node, BACKWARD_PREFIX + node.name(), node.backend, shapes, scope=1)

    def node_ended(self, node) -> None:
        self._end(node)


def active_recorders() -> list:
    """The recorders registered now (``record_function`` opens a range in each)."""
    from ..ops.function import _observers

    return [observer for observer in _observers if isinstance(observer, Recorder)]
