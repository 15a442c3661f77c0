"""``torch.multiprocessing``: Python's ``multiprocessing`` (every name of it), whose queues,
pipes and spawned processes send CPU tensors and storages through shared memory, plus
``spawn``/``start_processes`` and the sharing strategies.

Importing this package registers the tensor and storage reducers with
``multiprocessing.reduction.ForkingPickler`` (reductions.py), which multiprocessing uses
for what crosses a process boundary; ``pickle``, ``copy`` and ``torch.save`` keep copying
values.
"""

import multiprocessing
from multiprocessing import *  # noqa: F403 - every name of multiprocessing, as PyTorch

from ..shared_memory import (
    get_all_sharing_strategies,
    get_sharing_strategy,
    set_sharing_strategy,
)
from .reductions import init_reductions
from .spawn import (
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
           "ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "SpawnContext", "spawn", "start_processes",
           *multiprocessing.__all__]

init_reductions()
