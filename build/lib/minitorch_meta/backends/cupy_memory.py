"""One GPU's memory numbers (``torch.cuda.memory_allocated`` and friends) over CuPy's pool.

CuPy allocates every array from its default ``MemoryPool``, a caching allocator like
PyTorch's: ``used_bytes()`` is what live arrays occupy (PyTorch's "allocated"),
``total_bytes()`` what the pool holds from the driver, used or cached (PyTorch's
"reserved"), and ``free_all_blocks()`` hands the cached part back (``empty_cache``). The
pool answers for the device current when it is asked, so every question runs with this
object's device current.

CuPy keeps no peak, so the peaks are kept here: ``note_peak`` is called by the CUDA backend
after every kernel and raises each peak to the current number; ``reset_peaks`` sets them to
the current numbers, as PyTorch's ``reset_peak_memory_stats`` does. A peak is therefore the
highest number seen at the end of a kernel: a temporary that one kernel allocates and frees
before returning does not count (PyTorch's allocator sees every allocation; CuPy's pool
calls back only memory hooks entered in the allocating thread, which a library cannot
enter on its user's behalf).
"""

from __future__ import annotations

from collections import OrderedDict


class PoolMemory:
    """The memory numbers of one GPU (``device``, a ``cupy.cuda.Device``) in CuPy's ``pool``."""

    def __init__(self, pool, device):
        self._pool, self._device = pool, device
        with device:
            self._peak_allocated = int(pool.used_bytes())
            self._peak_reserved = int(pool.total_bytes())

    def allocated(self) -> int:
        """Bytes occupied by live arrays on this GPU."""
        with self._device:
            return int(self._pool.used_bytes())

    def reserved(self) -> int:
        """Bytes the pool holds on this GPU: occupied, or cached for reuse."""
        with self._device:
            return int(self._pool.total_bytes())

    def note_peak(self) -> None:
        """Raise the peaks to the current numbers (the caller has this GPU current)."""
        allocated, reserved = int(self._pool.used_bytes()), int(self._pool.total_bytes())
        if allocated > self._peak_allocated:
            self._peak_allocated = allocated
        if reserved > self._peak_reserved:
            self._peak_reserved = reserved

    def peak_allocated(self) -> int:
        """The most bytes live arrays occupied since the start or the last ``reset_peaks``."""
        with self._device:
            self.note_peak()
        return self._peak_allocated

    def peak_reserved(self) -> int:
        """The most bytes the pool held since the start or the last ``reset_peaks``."""
        with self._device:
            self.note_peak()
        return self._peak_reserved

    def reset_peaks(self) -> None:
        """Start the peaks again from the current numbers."""
        self._peak_allocated, self._peak_reserved = self.allocated(), self.reserved()

    def empty_cache(self) -> None:
        """Give the cached (unoccupied) blocks back to the driver; live arrays stay."""
        with self._device:
            self._pool.free_all_blocks()

    def stats(self) -> OrderedDict:
        """PyTorch's ``memory_stats`` keys this pool can answer, sorted as PyTorch sorts them."""
        return OrderedDict(sorted({
            "allocated_bytes.all.current": self.allocated(),
            "allocated_bytes.all.peak": self.peak_allocated(),
            "reserved_bytes.all.current": self.reserved(),
            "reserved_bytes.all.peak": self.peak_reserved(),
        }.items()))
