"""The stand-in's memory pool (``cupy.get_default_memory_pool()``): bytes of live arrays.

CuPy's pool hands out device memory and caches what arrays give back. Here NumPy allocates,
so the pool counts instead: every array memory that a device array is made over (its
owning NumPy array, once) is "used" while it lives; when it dies its bytes become cached
("total" but not "used") until ``free_all_blocks``. CuPy rounds each block up to 512
bytes; the stand-in counts exact bytes, so tests compare numbers with ``>=``, not ``==``.
"""

from __future__ import annotations

import weakref

import numpy as np


class MemoryPool:
    """``cupy.cuda.MemoryPool``: ``used_bytes``, ``total_bytes``, ``free_all_blocks`` (the
    methods the package calls; each checked to exist on CuPy's class)."""

    def __init__(self):
        self._live: dict[int, int] = {}  # id of an owning NumPy array -> its bytes
        self._used = 0
        self._cached = 0

    def _track(self, owner: np.ndarray) -> None:
        """Count ``owner``'s memory as used until ``owner`` is garbage collected."""
        key = id(owner)
        if key in self._live:
            return
        self._live[key] = owner.nbytes
        self._used += owner.nbytes
        weakref.finalize(owner, self._release, key)

    def _release(self, key: int) -> None:
        size = self._live.pop(key)
        self._used -= size
        self._cached += size

    def used_bytes(self) -> int:
        return self._used

    def total_bytes(self) -> int:
        return self._used + self._cached

    def free_bytes(self) -> int:
        return self._cached

    def free_all_blocks(self, stream=None) -> None:
        self._cached = 0


POOL = MemoryPool()
