"""``torch.__config__``: what this installation computes with, as text for a person.

``show()`` names the versions, the BLAS behind the CPU backend and the CPU kernels it
runs, and whether CuPy is installed; ``parallel_info()`` the threads. Both read the
process as it is, and print nothing themselves (as PyTorch's, they return a string).
"""

from __future__ import annotations

import importlib.util
import os
import platform

import numpy as np

from . import __version__
from .backends.openblas import avx512_held_back, cpu_flags, loaded_openblas
from .threads import usable_cores

# Measured on a 2-core AMD EPYC (Zen 5) with AVX-512: docs/benchmarks.md.
_AVX512_GAIN = "our convolutions' GEMMs ran 1.3-1.9x faster"


def show() -> str:
    """The versions, the BLAS and its CPU kernels, and CuPy's presence, one per line."""
    lines = [f"minitorch_meta {__version__} on:",
             f"  - Python {platform.python_version()}, NumPy {np.__version__}",
             f"  - BLAS: {blas_line()}",
             f"  - CPU: {_cpu_line()}",
             f"  - CUDA: {_cuda_line()}"]
    advice = blas_advice()
    if advice:
        lines.append(f"  - note: {advice}")
    return "\n".join(lines) + "\n"


def parallel_info() -> str:
    """The threads of the CPU backend: its BLAS's (the only ones NumPy uses) and the cores."""
    blas = loaded_openblas()
    threads = blas.get_num_threads() if blas.found else "unknown (not OpenBLAS)"
    variables = "\n".join(f"\t{name} : {os.environ.get(name, '[not set]')}"
                          for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                       "OPENBLAS_CORETYPE"))
    return (f"NumPy's BLAS threads (set_num_threads): {threads}\n"
            f"cores this process may use: {usable_cores()}\n"
            "elementwise, pooling and copying kernels: 1 thread (NumPy's)\n"
            f"Environment variables:\n{variables}\n")


def blas_advice() -> str | None:
    """A sentence when ``OPENBLAS_CORETYPE`` holds the BLAS below what the CPU can run."""
    blas = loaded_openblas()
    if not blas.found or not avx512_held_back(blas.core_name, os.environ, cpu_flags()):
        return None
    return (f"OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']} holds OpenBLAS to its "
            f"{blas.core_name} kernels on a CPU with AVX-512; started without it (env -u "
            f"OPENBLAS_CORETYPE ...), OpenBLAS picks AVX-512 kernels, and {_AVX512_GAIN} "
            "(docs/benchmarks.md)")


def blas_line() -> str:
    """``'OpenBLAS 0.3.31.188.0, Haswell kernels (set by OPENBLAS_CORETYPE=Haswell)'``."""
    blas = loaded_openblas()
    if not blas.found:
        return "not an OpenBLAS this process can reach (its kernels are not known)"
    pinned = os.environ.get("OPENBLAS_CORETYPE")
    how = f"set by OPENBLAS_CORETYPE={pinned}" if pinned else "OpenBLAS's choice for this CPU"
    return f"{blas.version}, {blas.core_name} kernels ({how})"


def _cpu_line() -> str:
    flags = cpu_flags()
    if not flags:
        return f"{platform.machine()} (features not readable here)"
    widest = ("AVX-512" if {"avx512f", "avx512bw"} <= flags else
              "AVX2" if "avx2" in flags else "no AVX2")
    return f"{platform.machine()}, {widest}"


def _cuda_line() -> str:
    if importlib.util.find_spec("cupy") is None:
        return "CuPy not installed (pip install 'minitorch_meta[cuda]')"
    return "CuPy installed; minitorch_meta.cuda.is_available() says whether a GPU is usable"
