"""``torch.profiler``: where the time of a training step goes, op by op.

- ``profile.py``: ``profile`` (the context manager, stepping through a schedule),
  ``ProfilerActivity``, ``supported_activities``;
- ``schedule.py``: ``schedule``, ``ProfilerAction``, ``tensorboard_trace_handler``;
- ``record_function.py``: ``record_function``, a named range of the user's;
- ``recorder.py``: the op observer that times ops, backward nodes and ranges;
- ``events.py``: ``FunctionEvent``, ``FunctionEventAvg``, ``EventList``, the Chrome trace;
- ``table.py``: PyTorch's table of averaged events.

The recording session itself is ``autograd.profiler.profile``, as in PyTorch.
"""

from __future__ import annotations

from .profile import ProfilerActivity, profile, supported_activities
from .record_function import record_function
from .schedule import ProfilerAction, schedule, tensorboard_trace_handler

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]
