"""GPU memory: how much tensors occupy, the peaks, the cache (``torch.cuda.memory_allocated``,
``max_memory_allocated``, ``reset_peak_memory_stats``, ``empty_cache``, ``mem_get_info``...).

The numbers come from CuPy's memory pool (``backends/cupy_memory.py``: "allocated" is
``used_bytes``, "reserved" is ``total_bytes``; the peaks are kept there). As in PyTorch,
before CUDA is first used on a GPU, and on a machine where CUDA cannot be used, the queries
answer 0 (an empty ``memory_stats``) and ``empty_cache`` does nothing, while the calls that
need a GPU (``mem_get_info``, the resets) raise ``CudaUnavailableError`` there.
"""

from __future__ import annotations

from collections import OrderedDict

from ..backends import cupy_backend as _cupy_backend
from ..backends import registry as _registry
from ..caller_warnings import warn_at_caller
from .devices import backend_of, is_initialized


def _memory(device):
    """The ``PoolMemory`` of ``device``, or None before CUDA is used or where it cannot be."""
    if not is_initialized() or _cupy_backend.cuda_unavailable_reason() is not None:
        return None
    return backend_of(device).memory


def memory_stats(device=None) -> OrderedDict:
    """The allocator's numbers for ``device`` (default: the current GPU), keyed as PyTorch's:
    ``allocated_bytes.all.current``/``.peak`` and ``reserved_bytes.all.current``/``.peak``
    (CuPy's pool counts no more than these)."""
    memory = _memory(device)
    return OrderedDict() if memory is None else memory.stats()


def memory_allocated(device=None) -> int:
    """Bytes occupied by tensors on ``device`` (default: the current GPU)."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None) -> int:
    """The most bytes tensors occupied on ``device`` since the start or the last
    ``reset_peak_memory_stats`` (sampled after each kernel: see docs/cuda.md)."""
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None) -> int:
    """Bytes the caching allocator holds on ``device``: occupied, or cached for reuse."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None) -> int:
    """The most bytes the caching allocator held on ``device`` since the start or the last
    ``reset_peak_memory_stats``."""
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device=None) -> None:
    """Start the peaks of ``device`` again from the current numbers.

    Raises:
        CudaUnavailableError: when CUDA cannot be used here.
    """
    backend_of(device).memory.reset_peaks()


def reset_max_memory_allocated(device=None) -> None:
    """The older name of ``reset_peak_memory_stats`` (PyTorch warns that it is deprecated)."""

    warn_at_caller("torch.cuda.reset_max_memory_allocated now calls "
                   "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                   FutureWarning)
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None) -> None:
    """Reset the historical totals of ``device``. CuPy's pool keeps none (``memory_stats``
    has only current and peak numbers), so only the check that the GPU is usable remains.

    Raises:
        CudaUnavailableError: when CUDA cannot be used here.
    """
    backend_of(device)


def empty_cache() -> None:
    """Give the memory the allocator caches (held, no tensor in it) back to the driver, on
    every GPU used so far, so that other processes can use it."""
    for backend in _registry.created_backends():
        if backend.device.type == "cuda":
            backend.memory.empty_cache()


def mem_get_info(device=None) -> tuple[int, int]:
    """``(free, total)`` bytes of ``device``'s memory as the driver reports them (free counts
    every process's use; memory cached by the allocator is not free).

    Raises:
        CudaUnavailableError: when CUDA cannot be used here.
    """
    backend = backend_of(device)
    cupy = _cupy_backend.import_cupy()
    with cupy.cuda.Device(backend.device.index):
        free, total = cupy.cuda.runtime.memGetInfo()
    return int(free), int(total)
