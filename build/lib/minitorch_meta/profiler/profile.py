"""``torch.profiler.profile``: the profiler context manager, with PyTorch's stepping through
a ``schedule``. Each recording cycle is one session (``session.py``: PyTorch's
``autograd.profiler.profile``); the schedule's actions move between idle, warming up and
recording as PyTorch's do."""

from __future__ import annotations

import warnings
from enum import Enum
from functools import partial

from ..caller_warnings import warn_at_caller
from .record_function import record_function
from .schedule import ProfilerAction, default_schedule
from .session import profile as _Session
from .session import refuse_unsupported


class ProfilerActivity(Enum):
    """The kinds of activity a profiler can be asked to record."""

    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5


def supported_activities() -> set:
    """``{ProfilerActivity.CPU}``, with ``CUDA`` when a CUDA device is usable."""
    from .. import cuda

    return {ProfilerActivity.CPU} | ({ProfilerActivity.CUDA} if cuda.is_available() else set())


def _parse_activities(activities) -> set:
    """The set of activities asked for; CPU must be among them (see ``profile``)."""
    chosen = set(supported_activities() if activities is None else activities)
    if not chosen:
        raise AssertionError("No valid profiler activities found")
    for activity in chosen:
        if activity not in (ProfilerActivity.CPU, ProfilerActivity.CUDA):
            raise NotImplementedError(f"profile: {activity} is not supported; minitorch_meta "
                                      "runs on the CPU and CUDA only")
    if ProfilerActivity.CPU not in chosen:
        raise NotImplementedError(
            "profile: activities without ProfilerActivity.CPU would record device kernels "
            "only, and minitorch_meta reads no device clock: ops are timed on the host clock "
            "(synchronising the device for CUDA ops). Include ProfilerActivity.CPU")
    return chosen


class profile:  # noqa: N801 - PyTorch's name
    """Record the ops, backward nodes and ``record_function`` ranges run inside the block.

    ``prof.key_averages().table(sort_by="self_cpu_time_total")`` shows where the time went;
    ``prof.export_chrome_trace(path)`` writes a timeline. With ``schedule``, call
    ``prof.step()`` once per training step: steps record or not as the schedule says, and
    ``on_trace_ready(prof)`` runs at the end of each recorded cycle. ``record_shapes``,
    ``with_stack`` and ``profile_memory`` are as in ``autograd.profiler.profile``.
    ``activities`` must include ``ProfilerActivity.CPU``; ``CUDA`` adds nothing, since CUDA
    ops are always synchronised and timed on the host clock.

    Raises:
        AssertionError: an empty ``activities`` (PyTorch's type).
        NotImplementedError: activities without CPU, or an option we cannot honour
            (``with_flops``, ``experimental_config``, ``execution_trace_observer``, ...).
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None,
                 execution_trace_observer=None, acc_events: bool = False,
                 use_cuda: bool | None = None, custom_trace_id_callback=None,
                 post_processing_timeout_s: float | None = None):
        activities = _parse_activities(activities)
        if use_cuda is not None:
            warn_at_caller("`use_cuda` is deprecated, use `activities` argument instead",
                           FutureWarning)
        refuse_unsupported("profile", with_flops=with_flops,
                           experimental_config=experimental_config,
                           execution_trace_observer=execution_trace_observer,
                           custom_trace_id_callback=custom_trace_id_callback)
        self.activities = activities
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.post_processing_timeout_s = post_processing_timeout_s  # ours never times out
        self.record_steps = schedule is not None  # ProfilerStep#n ranges, as PyTorch's
        self.schedule = schedule if schedule is not None else default_schedule
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.profiler: _Session | None = None  # the session of the current cycle
        self.step_rec_fn: record_function | None = None
        self.action_map = self._actions()

    def _actions(self) -> dict:
        """(previous action, next action) -> what to do, in order (PyTorch's table)."""
        none, warmup = ProfilerAction.NONE, ProfilerAction.WARMUP
        record, save = ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE
        prepare, start, stop, ready = (self.prepare_trace, self.start_trace, self.stop_trace,
                                       self._trace_ready)
        return {
            (none, none): [], (none, warmup): [prepare], (none, record): [prepare, start],
            (none, save): [prepare, start],
            (warmup, none): [partial(warnings.warn, "Incorrect schedule: WARMUP followed by "
                                     "NONE"), start, stop],
            (warmup, warmup): [], (warmup, record): [start], (warmup, save): [start],
            (record, none): [partial(warnings.warn, "Incorrect schedule: RECORD followed by "
                                     "NONE"), stop],
            (record, warmup): [partial(warnings.warn, "Incorrect schedule: RECORD followed "
                                       "by WARMUP"), stop],
            (record, record): [], (record, save): [],
            (save, none): [stop, ready], (save, warmup): [stop, ready, prepare],
            (save, record): [stop, ready, prepare, start],
            (save, save): [stop, ready, prepare, start],
            (warmup, None): [start, stop], (record, None): [stop, ready],
            (save, None): [stop, ready], (none, None): [],
        }

    # -- the cycle's session ---------------------------------------------------------------
    def prepare_trace(self) -> None:
        if self.profiler is None or not self.acc_events:
            self.profiler = _Session(record_shapes=self.record_shapes,
                                     profile_memory=self.profile_memory,
                                     with_stack=self.with_stack, with_modules=self.with_modules,
                                     acc_events=self.acc_events)

    def start_trace(self) -> None:
        # Warming up costs nothing here (no tracer to start), so recording starts now.
        self.profiler._start_trace()

    def stop_trace(self) -> None:
        self.profiler._stop_trace()

    def _trace_ready(self) -> None:
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, previous, current) -> None:
        for action in self.action_map.get((previous, current), []):
            action()

    # -- stepping --------------------------------------------------------------------------
    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc_info) -> bool:
        self.stop()
        return False

    def start(self) -> None:
        self._transit_action(ProfilerAction.NONE, self.current_action)
        self._enter_step_range()

    def stop(self) -> None:
        self._exit_step_range()
        self._transit_action(self.current_action, None)

    def step(self) -> None:
        """Mark the start of the next step: record or not as the schedule says."""
        self._exit_step_range()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(previous, self.current_action)
        self._enter_step_range()

    def _enter_step_range(self) -> None:
        if self.record_steps:
            self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def _exit_step_range(self) -> None:
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    # -- results ---------------------------------------------------------------------------
    def _session(self, what: str) -> _Session:
        if self.profiler is None:
            raise AssertionError(f"Profiler must be initialized before {what}")
        return self.profiler

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False):
        """The recorded events averaged by name (and input shapes, when asked): an
        ``EventList`` of ``FunctionEventAvg`` whose ``table()`` prints PyTorch's table."""
        return self._session("getting key averages").key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def events(self):
        """Every recorded ``FunctionEvent``, in the order they started."""
        return self._session("accessing events").function_events

    def export_chrome_trace(self, path: str) -> None:
        """Write the last cycle's Chrome trace JSON (all cycles' with ``acc_events``)."""
        self._session("exporting chrome trace").export_chrome_trace(path)
