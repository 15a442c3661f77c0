"""The checks of a ``DataLoader``'s multi-process options (``num_workers``, ``timeout``,
``prefetch_factor``, ``persistent_workers``, ``multiprocessing_context``) and its
warnings about ``pin_memory`` and too many workers, with PyTorch's messages.
"""

from __future__ import annotations

import multiprocessing
import os

from .. import accelerator
from ..caller_warnings import warn_at_caller


def check_worker_options(num_workers: int, timeout: float, prefetch_factor: int | None,
                         persistent_workers: bool) -> int | None:
    """Refuse impossible combinations; returns ``prefetch_factor`` with its default (2
    with workers, None without).

    Raises:
        ValueError: ``num_workers`` or ``timeout`` is negative, ``prefetch_factor`` is
            negative or given without workers, ``persistent_workers`` without workers.
    """
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if num_workers > 0 and prefetch_factor is None:
        prefetch_factor = 2
    elif prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    return prefetch_factor


def multiprocessing_context_of(context, num_workers: int):
    """The ``multiprocessing`` context named or given by ``context`` (None: the
    platform's default, chosen when the workers start).

    Raises:
        ValueError: ``context`` is given without workers, or names no start method here.
        TypeError: ``context`` is neither a start method's name nor a context.
    """
    if context is None:
        return None
    if num_workers <= 0:
        raise ValueError(f"multiprocessing_context can only be used with multi-process "
                         f"loading (num_workers > 0), but got num_workers={num_workers}")
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(f"multiprocessing_context option should specify a valid start "
                             f"method in {methods!r}, but got "
                             f"multiprocessing_context={context!r}")
        context = multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError(f"multiprocessing_context option should be a valid context object or "
                        f"a string specifying the start method, but got "
                        f"multiprocessing_context={context}")
    return context


def warn_too_many_workers(num_workers: int) -> None:
    """PyTorch's warning when there are more workers than CPUs this process may use."""
    if num_workers <= 0:
        return
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if cpus is not None and num_workers <= cpus:
        return
    if cpus is None:
        suggestion = ("DataLoader is not able to compute a suggested max number of worker in "
                      "current system.")
    else:
        unchecked = "" if hasattr(os, "sched_getaffinity") else \
            " (`cpuset` is not taken into account)"
        suggestion = (f"Our suggested max number of worker in current system is {cpus}"
                      f"{unchecked}, which is smaller than what this DataLoader is going to "
                      f"create.")
    warn_at_caller(f"This DataLoader will create {num_workers} worker processes in total. "
                   f"{suggestion} Please be aware that excessive worker creation might get "
                   f"DataLoader running slow or even freeze, lower the worker number to avoid "
                   f"potential slowness/freeze if necessary.")


def warn_pin_memory(pin_memory: bool, pin_memory_device: str) -> None:
    """PyTorch's warnings at each pass with ``pin_memory=True``: ``pin_memory_device`` is
    deprecated, and without an accelerator nothing is pinned. (With CUDA nothing is pinned
    either: NumPy memory cannot be; ``device="cuda"`` copies each batch to the GPU.)"""
    if not pin_memory:
        return
    if pin_memory_device:
        warn_at_caller(f"pin_memory_device is deprecated, the current accelerator will be used "
                       f"as the device,ignore pin_memory_device='{pin_memory_device}'.")
    if not accelerator.is_available():
        warn_at_caller("'pin_memory' argument is set as true but no accelerator is found, then "
                       "device pinned memory won't be used.")
