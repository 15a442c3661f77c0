"""When a stepped profiler records: ``ProfilerAction``, ``schedule(wait, warmup, active,
repeat, skip_first)``, and ``tensorboard_trace_handler``, which saves each finished cycle's
trace as a file."""

from __future__ import annotations

import os
import socket
import time
from enum import Enum


class ProfilerAction(Enum):
    """What the profiler does during one step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """A schedule for ``profile(schedule=...)``: skip ``skip_first`` steps, then cycles of
    ``wait`` idle steps, ``warmup`` steps and ``active`` recorded steps, the last of which
    saves (calls ``on_trace_ready``); ``repeat`` cycles (0: until the profiler stops).
    ``skip_first_wait`` skips the first cycle's wait.

    Raises:
        AssertionError: a negative count, or ``active`` < 1 (PyTorch's type).
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    cycle = wait + warmup + active

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait  # the first cycle starts at its warmup
        if repeat > 0 and step >= repeat * cycle:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def default_schedule(step: int) -> ProfilerAction:
    """Without a schedule, every step records."""
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False, use_python_export: bool = False):
    """An ``on_trace_ready`` that writes each cycle's Chrome trace into ``dir_name`` (made if
    missing) as ``{worker_name}.{time in ns}.pt.trace.json`` (``.gz`` with ``use_gzip``);
    ``worker_name`` defaults to ``hostname_pid``. ``use_python_export`` changes nothing here
    (there is one exporter).

    Raises:
        RuntimeError: ``dir_name`` cannot be created.
    """

    def handler_fn(prof) -> None:
        try:
            os.makedirs(dir_name, exist_ok=True)
        except OSError as error:
            raise RuntimeError(f"Can't create directory: {dir_name}") from error
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn
