"""``torch.autograd.profiler``: PyTorch's older profiler API (``profile``, ``record_function``
and the event classes). The code lives in the ``profiler`` package (``profiler/session.py``)."""

from __future__ import annotations

from ..profiler.events import EventList, FunctionEvent, FunctionEventAvg
from ..profiler.record_function import record_function
from ..profiler.session import profile

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]
