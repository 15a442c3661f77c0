"""Process-wide switches PyTorch offers that have little to switch here:
``set_warn_always``/``is_warn_always_enabled``, ``set_flush_denormal`` and the inter-op
thread count.

Like PyTorch's, each is process-wide. What they govern in PyTorch does not exist in
minitorch_meta, so each says so truthfully: no warning here is shown only once per process
(every one goes through Python's ``warnings``, whose filters decide), NumPy cannot flush
denormals (so ``set_flush_denormal`` answers False, as PyTorch does on a CPU without
support), and no inter-op thread pool runs (the count is kept and reported).
"""

from __future__ import annotations

import threading

from .int_arguments import is_int
from .threads import usable_cores


class _Settings:
    """The switches' values, behind one lock (read and written from any thread)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.warn_always = False
        self.interop_threads = None  # None: never set, the default (the usable cores)


_SETTINGS = _Settings()


def set_warn_always(b: bool) -> None:
    """Ask for warnings PyTorch shows once per process to be shown every time. Kept and
    reported by ``is_warn_always_enabled``; minitorch_meta has no show-once warnings."""
    with _SETTINGS.lock:
        _SETTINGS.warn_always = bool(b)


def is_warn_always_enabled() -> bool:
    """What ``set_warn_always`` last set (False at start)."""
    return _SETTINGS.warn_always


def set_flush_denormal(mode: bool) -> bool:
    """Whether flushing denormal floats to zero could be set: never here (NumPy has no such
    switch), so False, as PyTorch answers on a CPU without support; nothing changes."""
    return False


def get_num_interop_threads() -> int:
    """The inter-op thread count: the one set, else the cores this process may use (as
    PyTorch's default)."""
    value = _SETTINGS.interop_threads
    return usable_cores() if value is None else value


def set_num_interop_threads(n: int) -> None:
    """Set the inter-op thread count (reported by ``get_num_interop_threads``; no inter-op
    pool runs here). As PyTorch, it can be set once only.

    Raises:
        RuntimeError for a count that is not a positive int, or a second call.
    """
    if not is_int(n):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got "
                           f"{type(n).__name__}")
    if n < 1:
        raise RuntimeError(f"set_num_interop_threads expects a positive integer, got {n}")
    with _SETTINGS.lock:
        if _SETTINGS.interop_threads is not None:
            raise RuntimeError("Error: cannot set number of interop threads after parallel "
                               "work has started or set_num_interop_threads called (it can "
                               "be set once per process)")
        _SETTINGS.interop_threads = n
