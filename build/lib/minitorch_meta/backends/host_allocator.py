"""Keep large host buffers in the process instead of returning them to the OS each step.

glibc serves allocations above ``M_MMAP_THRESHOLD`` (128 KiB by default, raised dynamically
only after such a block is freed) with a fresh ``mmap`` and returns them with ``munmap``.
A training step allocates and frees the same large temporaries (im2col matrices, gradients)
every iteration, so each one is page-faulted anew: measured here, that is up to half of a
small convnet's step. PyTorch avoids it with its caching allocator; we raise the two glibc
thresholds once, when the CPU backend is created. This changes where memory comes from,
never what is computed; on other C libraries it does nothing.
"""

from __future__ import annotations

import ctypes
import platform

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_BYTES = 32 * 2**20   # blocks up to this size come from the heap and are reused
TRIM_THRESHOLD_BYTES = 512 * 2**20  # free heap memory kept before it is returned to the OS


def keep_large_buffers() -> bool:
    """Apply the thresholds on glibc; returns whether they were applied."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    applied = libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    applied &= libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
    return bool(applied)
