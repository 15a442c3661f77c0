"""The thread count of the BLAS NumPy uses: all the threading the CPU backend does.

NumPy runs its elementwise and copying kernels in one thread; only its BLAS (the GEMMs of
``mm``, ``Linear`` and ``Conv2d``) uses several. So ``torch.set_num_threads`` (see
``minitorch_meta/threads.py``) comes down to the BLAS's own thread count.

Only OpenBLAS (what NumPy's wheels and Debian's NumPy ship) is controlled, through the
``*openblas_set_num_threads*`` entry points of the copy already loaded in the process. Where
none is found (MKL, Accelerate, another OS), ``found`` is false.
"""

from __future__ import annotations

import ctypes
import os

# The names OpenBLAS exports, by build: NumPy's wheels use scipy-openblas's prefixed
# 64-bit-integer build; Debian's and source builds use the plain names.
_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
            "openblas_set_num_threads64_", "openblas_set_num_threads")


class BlasThreads:
    """The loaded OpenBLAS's ``set_num_threads`` / ``get_num_threads``, when there is one."""

    def __init__(self):
        self._set, self._get = _find_openblas()

    @property
    def found(self) -> bool:
        return self._set is not None

    def get(self) -> int:
        return self._get()

    def set(self, n: int) -> None:
        self._set(n)


def _find_openblas():
    """(set_num_threads, get_num_threads) of a loaded OpenBLAS, or (None, None)."""
    for path in _loaded_libraries():
        if "openblas" not in os.path.basename(path).lower():
            continue
        try:
            library = ctypes.CDLL(path)  # already loaded: this returns the same library
        except OSError:
            continue
        for setter in _SETTERS:
            getter = setter.replace("set_num_threads", "get_num_threads")
            if hasattr(library, setter) and hasattr(library, getter):
                set_threads, get_threads = getattr(library, setter), getattr(library, getter)
                set_threads.argtypes, set_threads.restype = [ctypes.c_int], None
                get_threads.argtypes, get_threads.restype = [], ctypes.c_int
                return set_threads, get_threads
    return None, None


def _loaded_libraries() -> list[str]:
    """Paths of the shared libraries mapped into this process (Linux; elsewhere none)."""
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return []
    return sorted({line.split()[-1] for line in lines if ".so" in line.split()[-1]})
