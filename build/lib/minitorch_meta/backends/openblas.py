"""The OpenBLAS that NumPy loaded: its thread count, its version and the kernels it chose.

NumPy runs its elementwise and copying kernels in one thread; only its BLAS (the GEMMs of
``mm``, ``Linear`` and ``Conv2d``) uses several. So ``torch.set_num_threads`` (see
``minitorch_meta/threads.py``) comes down to the BLAS's own thread count. Which GEMM kernels
the BLAS runs (AVX2 or AVX-512) decides much of the CPU backend's speed, so
``__config__.show()`` and the benchmarks report it.

Only OpenBLAS (what NumPy's wheels and Debian's NumPy ship) is reached, through the entry
points of the copy already loaded in the process. Where none is found (MKL, Accelerate,
another OS), ``found`` is false.
"""

from __future__ import annotations

import ctypes
import functools
import os
from collections.abc import Mapping

# The prefixes of the names OpenBLAS exports, by build: NumPy's wheels use scipy-openblas's
# prefixed 64-bit-integer build; Debian's and source builds use the plain names.
_BUILDS = (("scipy_openblas_", "64_"), ("scipy_openblas_", ""),
           ("openblas_", "64_"), ("openblas_", ""))


class OpenBlas:
    """The loaded OpenBLAS's thread count, configuration and kernel name, when there is one."""

    def __init__(self):
        self._library, self._prefix, self._suffix = _find_openblas()

    @property
    def found(self) -> bool:
        return self._library is not None

    def get_num_threads(self) -> int:
        return self._function("get_num_threads", [], ctypes.c_int)()

    def set_num_threads(self, n: int) -> None:
        self._function("set_num_threads", [ctypes.c_int], None)(n)

    @property
    def core_name(self) -> str:
        """The CPU kernels OpenBLAS chose when it loaded, e.g. ``'Haswell'`` or ``'SkylakeX'``."""
        return self._function("get_corename", [], ctypes.c_char_p)().decode()

    @property
    def config(self) -> str:
        """Its build configuration, e.g. ``'OpenBLAS 0.3.31.188.0 USE64BITINT DYNAMIC_ARCH
        NO_AFFINITY Haswell MAX_THREADS=64'`` (only ``DYNAMIC_ARCH`` builds choose their
        kernels when they load, and so heed ``OPENBLAS_CORETYPE``)."""
        return self._function("get_config", [], ctypes.c_char_p)().decode()

    @property
    def version(self) -> str:
        """``'OpenBLAS 0.3.31.188.0'``: the first two words of its build configuration."""
        return " ".join(self.config.split()[:2])

    def _function(self, name: str, argtypes: list, restype):
        function = getattr(self._library, f"{self._prefix}{name}{self._suffix}")
        function.argtypes, function.restype = argtypes, restype
        return function


@functools.lru_cache(maxsize=1)
def loaded_openblas() -> OpenBlas:
    """The process's OpenBLAS, looked up once (a lookup reads /proc/self/maps); NumPy, and
    so its BLAS, is loaded before any caller can ask."""
    return OpenBlas()


# OpenBLAS's AVX-512 kernel sets, and the CPU features they are compiled for.
AVX512_KERNELS = frozenset({"SkylakeX", "Cooperlake", "SapphireRapids"})
AVX512_FLAGS = frozenset({"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"})


def avx512_held_back(core_name: str, environ: Mapping[str, str], cpu_flags: set[str]) -> bool:
    """True when ``OPENBLAS_CORETYPE`` holds OpenBLAS to pre-AVX-512 kernels on a CPU that
    has AVX-512 (without the variable, OpenBLAS's own choice for the CPU is trusted)."""
    return ("OPENBLAS_CORETYPE" in environ and core_name not in AVX512_KERNELS
            and AVX512_FLAGS <= cpu_flags)


def cpu_flags() -> set[str]:
    """The CPU's feature flags as Linux's ``/proc/cpuinfo`` lists them (elsewhere none)."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                if key.strip() == "flags":
                    return set(value.split())
    except OSError:
        pass
    return set()


def _find_openblas():
    """(library, prefix, suffix) of a loaded OpenBLAS, or (None, None, None)."""
    for path in _loaded_libraries():
        if "openblas" not in os.path.basename(path).lower():
            continue
        try:
            library = ctypes.CDLL(path)  # already loaded: this returns the same library
        except OSError:
            continue
        for prefix, suffix in _BUILDS:
            names = (f"{prefix}{name}{suffix}" for name in ("set_num_threads", "get_num_threads",
                                                            "get_corename", "get_config"))
            if all(hasattr(library, name) for name in names):
                return library, prefix, suffix
    return None, None, None


def _loaded_libraries() -> list[str]:
    """Paths of the shared libraries mapped into this process (Linux; elsewhere none)."""
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return []
    return sorted({line.split()[-1] for line in lines if ".so" in line.split()[-1]})
