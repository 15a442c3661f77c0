"""The recording session under ``torch.profiler.profile``: ``torch.autograd.profiler.profile``
(PyTorch's older API, exported there), also usable alone: ``with profile() as prof: ...``
then ``prof.key_averages().table()``. How ops are timed is in ``recorder.py``."""

from __future__ import annotations

from ..caller_warnings import warn_at_caller
from .events import EventList, FunctionEventAvg
from .recorder import Recorder


def refuse_unsupported(caller: str, **options) -> None:
    """Raise NotImplementedError naming the first option given a value we cannot honour."""
    reasons = {
        "with_flops": "no FLOP formulas are kept per op",
        "experimental_config": "there is no Kineto to configure",
        "execution_trace_observer": "no execution trace is recorded",
        "custom_trace_id_callback": "traces carry no trace id",
        "use_cpu": "ops are always timed on the host clock",
    }
    for name, value in options.items():
        if value:
            raise NotImplementedError(f"{caller}: {name} is not supported by minitorch_meta's "
                                      f"profiler ({reasons[name]}); leave it at its default")


class profile:  # noqa: N801 - PyTorch's name
    """Record every op, backward node and ``record_function`` range run inside the block.

    ``record_shapes`` keeps the shapes of each op's tensor inputs (``key_averages(
    group_by_input_shape=True)``), ``with_stack`` the caller's stack, ``profile_memory`` the
    bytes of the outputs each op allocates. With ``enabled=False`` nothing is recorded.
    Ops on CUDA are synchronised at both ends, so their time includes their kernels.

    Raises:
        NotImplementedError: for ``with_flops``, ``experimental_config``,
            ``custom_trace_id_callback`` or ``use_cpu=False``.
        RuntimeError: entering the block a second time.
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None,
                 record_shapes: bool = False, with_flops: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config=None, acc_events: bool = False,
                 custom_trace_id_callback=None):
        self.enabled = enabled
        self.entered = False
        self._recorder = None
        self._events: list = []  # the finished recordings' events (several with acc_events)
        self._function_events = None
        if not enabled:
            return
        if use_cuda:
            warn_at_caller("The attribute `use_cuda` will be deprecated soon, please use "
                           "``use_device = 'cuda'`` instead.", FutureWarning)
        refuse_unsupported("profile", with_flops=with_flops,
                           experimental_config=experimental_config,
                           custom_trace_id_callback=custom_trace_id_callback,
                           use_cpu=not use_cpu)
        self.use_device = "cuda" if use_cuda else use_device
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules  # PyTorch honours it for TorchScript only: no-op
        self.acc_events = acc_events

    # -- recording ----------------------------------------------------------------------
    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start_trace()
        return self

    def __exit__(self, *exc_info) -> bool:
        if self.enabled:
            self._stop_trace()
        return False

    def _start_trace(self) -> None:
        """Start a recording (``torch.profiler.profile`` calls this once per cycle)."""
        self.entered = True
        self._recorder = Recorder(self.record_shapes, self.with_stack, self.profile_memory)
        self._recorder.start()

    def _stop_trace(self) -> None:
        recorder, self._recorder = self._recorder, None
        if recorder is None:
            return
        recorder.stop()
        self._events = (self._events if self.acc_events else []) + recorder.events
        self._function_events = None  # built again from the events on first use

    # -- results --------------------------------------------------------------------------
    @property
    def function_events(self) -> EventList:
        """Every recorded event, children linked to parents, in the order they started."""
        if self._recorder is not None:
            raise RuntimeError("profile: the results are ready once the profiler stops "
                               "(after its with block)")
        if self._function_events is None:
            events = EventList(sorted(self._events, key=lambda e: (e.start_ns, e.id)),
                               profile_memory=self.profile_memory)
            for event in events:
                event.cpu_parent, event.cpu_children = None, []
            events.build_tree()
            self._function_events = events
        return self._function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False) -> str:
        """``EventList.table`` of ``function_events``."""
        return self.function_events.table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """The events averaged by name (see ``EventList.key_averages``)."""
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self) -> FunctionEventAvg:
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of all self times, in microseconds."""
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        """Write a Chrome trace JSON file (see ``EventList.export_chrome_trace``)."""
        self.function_events.export_chrome_trace(path)

    def __str__(self) -> str:
        if self._recorder is not None or not self.enabled:
            return "<unfinished minitorch_meta.autograd.profile>"
        return str(self.function_events)

    __repr__ = __str__
