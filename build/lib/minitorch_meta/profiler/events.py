"""What a profiler recorded: ``FunctionEvent`` (one timed range), ``FunctionEventAvg`` (the
events of one name summed) and ``EventList`` (a list of either, with PyTorch's helpers:
``key_averages``, ``table``, ``export_chrome_trace``, ``total_average``).

Times are kept in integer nanoseconds from ``time.perf_counter_ns`` and shown in
microseconds (floats), PyTorch's unit; keeping integers makes "self time = total time minus
the children's total times" exact. One event is a child of another when its range lies
inside the other's, on the same thread (PyTorch's rule; see ``EventList.build_tree``).
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict

#: the prefix PyTorch gives the range of one backward node in the autograd engine
BACKWARD_PREFIX = "autograd::engine::evaluate_function: "


class Interval:
    """A time range in microseconds (``start``, ``end``), as PyTorch's."""

    def __init__(self, start: float, end: float):
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        return self.end - self.start


def format_time(time_us: float) -> str:
    """PyTorch's time format: three decimals in s, ms or us."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


class _FormattedTimes:
    """``cpu_time`` (the average per call) and the ``*_str`` forms PyTorch's events have."""

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cpu_time_str(self) -> str:
        return format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return format_time(self.self_cpu_time_total)

    # No device clock is read (see docs/differences.md): device times are 0, so that
    # ``sort_by="cuda_time_total"`` and code reading them still run.
    device_time_total = self_device_time_total = device_time = 0.0


class FunctionEvent(_FormattedTimes):
    """One recorded range: an op (``aten::addmm``), a backward node
    (``autograd::engine::evaluate_function: AddmmBackward0``) or a ``record_function``.

    ``cpu_time_total`` is its duration in microseconds; ``self_cpu_time_total`` the part
    not spent in its ``cpu_children``. ``scope`` is 0 in forward and 1 for backward nodes.
    """

    count = 1

    def __init__(self, id: int, name: str, thread: int, start_ns: int, end_ns: int | None = None,
                 input_shapes=None, stack=None, scope: int = 0, is_user_annotation: bool = False,
                 cpu_memory_usage: int = 0, device_memory_usage: int = 0):
        self.id = id
        # PyTorch names every step range ``ProfilerStep*`` (so that they average together)
        # and keeps ``ProfilerStep#3`` for the trace.
        self.trace_name = name
        self.name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.thread = thread
        self.start_ns = start_ns
        self.end_ns = start_ns if end_ns is None else end_ns
        self.input_shapes = input_shapes
        self.stack = stack
        self.scope = scope
        self.is_user_annotation = is_user_annotation
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.is_async = False

    @property
    def key(self) -> str:
        return self.name

    @property
    def time_range(self) -> Interval:
        return Interval(self.start_ns / 1000, self.end_ns / 1000)

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns

    @property
    def self_ns(self) -> int:
        return self.duration_ns - sum(child.duration_ns for child in self.cpu_children)

    @property
    def cpu_time_total(self) -> float:
        return self.duration_ns / 1000

    @property
    def self_cpu_time_total(self) -> float:
        return self.self_ns / 1000

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self) -> int:
        return self.device_memory_usage - sum(c.device_memory_usage for c in self.cpu_children)

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={[child.id for child in self.cpu_children]} "
                f"thread={self.thread} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg(_FormattedTimes):
    """The events of one key (a name, or a name and input shapes) summed: total and self
    times, memory and the number of calls; ``cpu_time`` is the average per call."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.device_memory_usage = self.self_device_memory_usage = 0
        self.input_shapes = None
        self.stack = None
        self.scope = None
        self.cpu_parent = None
        self.cpu_children = None
        self.is_user_annotation = False
        self.is_async = False
        self._total_ns = self._self_ns = 0

    def add(self, other) -> FunctionEventAvg:
        """Add an event (or another average) of the same key."""
        if self.key is None:  # the first one gives the fields that are not sums
            self.key = other.key
            self.input_shapes, self.stack, self.scope = other.input_shapes, other.stack, other.scope
            self.cpu_parent, self.cpu_children = other.cpu_parent, other.cpu_children
            self.is_user_annotation = other.is_user_annotation
        elif other.key != self.key:
            raise ValueError(f"FunctionEventAvg.add: expected an event named {self.key!r}, "
                             f"got one named {other.key!r}")
        if isinstance(other, FunctionEvent):
            total, own = other.duration_ns, other.self_ns
        else:
            total, own = other._total_ns, other._self_ns
        self._total_ns += total
        self._self_ns += own
        self.cpu_time_total = self._total_ns / 1000
        self.self_cpu_time_total = self._self_ns / 1000
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        return self

    def __iadd__(self, other) -> FunctionEventAvg:
        return self.add(other)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of ``FunctionEvent`` (or ``FunctionEventAvg``) with PyTorch's helpers."""

    def __init__(self, *args, profile_memory: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self._profile_memory = profile_memory

    def __str__(self) -> str:
        return self.table()

    def build_tree(self) -> None:
        """Link each event to its parent: on the same thread, the innermost event whose range
        holds its range (an event that only overlaps another is not its child)."""
        by_thread = itertools.groupby(sorted(self, key=lambda e: e.thread), lambda e: e.thread)
        for _, events in by_thread:
            # Parents first: by start, then the longer range, then the order of recording.
            open_events = []
            for event in sorted(events, key=lambda e: (e.start_ns, -e.end_ns, e.id)):
                while open_events and (event.start_ns >= open_events[-1].end_ns
                                       or event.end_ns > open_events[-1].end_ns):
                    open_events.pop()  # it cannot hold this event, nor any later one
                if open_events:
                    event.cpu_parent = open_events[-1]
                    open_events[-1].cpu_children.append(event)
                open_events.append(event)

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of the self times of all events: the time profiled, counted once."""
        return sum(event.self_cpu_time_total for event in self)

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """PyTorch's table of the events (see ``profiler/table.py``): ``sort_by`` an
        attribute such as ``"self_cpu_time_total"``, ``"cpu_time_total"`` or ``"count"``
        (largest first), at most ``row_limit`` rows (-1: all)."""
        from .table import build_table

        return build_table(self, sort_by=sort_by, row_limit=row_limit,
                           max_src_column_width=max_src_column_width,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width, header=header,
                           top_level_events_only=top_level_events_only, time_unit=time_unit,
                           profile_memory=self._profile_memory)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """One ``FunctionEventAvg`` per event name (and input shapes, and the first
        ``group_by_stack_n`` stack entries, when asked), in the order names first appear.
        There are no overloads here: ``group_by_overload_name`` changes nothing."""
        stats = defaultdict(FunctionEventAvg)
        for event in self:
            key = [event.key, str(event.is_user_annotation)]
            if group_by_input_shapes:
                key.append(str(event.input_shapes))
            if group_by_stack_n > 0:
                key += (event.stack or [])[:group_by_stack_n]
            stats[tuple(key)].add(event)
        averages = EventList(stats.values(), profile_memory=self._profile_memory)
        for average in averages:
            average.stack = (average.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                average.input_shapes = ""
        return averages

    def total_average(self) -> FunctionEventAvg:
        """Every event summed into one ``FunctionEventAvg`` whose key is ``"Total"``."""
        total = FunctionEventAvg()
        for event in self:
            total.key = event.key  # ``add`` checks keys: every event is welcome here
            total.add(event)
        total.key = "Total"
        return total

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (open it at chrome://tracing or
        https://ui.perfetto.dev): a JSON object whose ``traceEvents`` are complete events
        (``"ph": "X"``) with ``name``, ``ts`` and ``dur`` in microseconds, ``pid`` and
        ``tid``. A path ending in ``.gz`` is gzip-compressed. The file is written
        atomically: a temporary file, then a rename."""
        import gzip

        from ..utils.atomic import atomic_write

        data = json.dumps(chrome_trace(self)).encode("utf-8")
        if str(path).endswith(".gz"):
            data = gzip.compress(data)
        with atomic_write(path) as handle:
            handle.write(data)


def chrome_trace(events) -> dict:
    """The Chrome trace of ``events`` as a JSON-ready dict, times from the first start."""
    import os

    pid = os.getpid()
    origin = min((event.start_ns for event in events), default=0)
    trace = []
    for event in sorted(events, key=lambda e: (e.start_ns, e.id)):
        entry = {"ph": "X", "cat": "user_annotation" if event.is_user_annotation else "cpu_op",
                 "name": event.trace_name, "pid": pid, "tid": event.thread,
                 "ts": (event.start_ns - origin) / 1000, "dur": event.duration_ns / 1000,
                 "args": {"External id": event.id}}
        if event.input_shapes:
            entry["args"]["Input Dims"] = event.input_shapes
        if event.stack:
            entry["args"]["Call stack"] = ";".join(event.stack)
        trace.append(entry)
    return {"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace}
