"""``torch.set_num_threads`` and ``torch.get_num_threads``: how many threads CPU ops use.

On the CPU our kernels are NumPy calls; NumPy is single-threaded except in its BLAS, which
runs the matrix products (``mm``, ``Linear``, ``Conv2d``'s im2col GEMMs). So the thread
count is the BLAS's, and like PyTorch's it is process-wide. Benchmark scripts set it to
compare frameworks at the same thread count, as ``benchmarks/`` does.
"""

from __future__ import annotations

import os

from .backends.openblas import loaded_openblas as _blas
from .caller_warnings import warn_at_caller
from .int_arguments import is_int


def set_num_threads(n: int) -> None:
    """Use ``n`` threads for CPU matrix products (NumPy's BLAS)."""
    if not is_int(n) or n < 1:
        raise RuntimeError(f"set_num_threads expects a positive integer, got {n!r}")
    blas = _blas()
    if not blas.found:
        warn_at_caller("set_num_threads: the BLAS NumPy uses is not an OpenBLAS this process "
                       "can reach, so its thread count is unchanged; set it with its own "
                       "environment variable (e.g. MKL_NUM_THREADS) before starting Python",
                       RuntimeWarning)
        return
    blas.set_num_threads(n)


def get_num_threads() -> int:
    """The threads CPU matrix products use (the cores the process may run on, when the BLAS
    cannot be asked; BLAS libraries default to that)."""
    blas = _blas()
    if blas.found:
        return blas.get_num_threads()
    return usable_cores()


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the OS tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def init_num_threads() -> None:
    """Prepare the calling thread's CPU threading, as PyTorch does in a new thread: nothing
    to prepare here, as the only threads are the BLAS's, shared by the whole process."""
