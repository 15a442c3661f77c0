"""PyTorch's facts about how it was built, answered for this package: ``has_lapack``,
``has_mkl``, ``has_openmp``, ``has_spectral`` and ``compiled_with_cxx11_abi()``.

minitorch_meta compiles nothing: its CPU kernels are NumPy's, so the answers are about the
NumPy it runs on (its LAPACK and its BLAS) and about what this package offers, read once at
import. Scripts read them to choose a code path, so a truthful False sends them to one that
works here.
"""

from __future__ import annotations

import numpy as np


def _numpy_blas_name() -> str:
    """The name of the BLAS NumPy was built with ('scipy-openblas', 'mkl-sdl', ...), or ''
    where NumPy does not say (versions before 1.26)."""
    try:
        return str(np.__config__.CONFIG["Build Dependencies"]["blas"]["name"])
    except (AttributeError, KeyError, TypeError):
        return ""


#: NumPy's linear algebra always runs LAPACK routines (its own lapack_lite copy at worst),
#: and ``torch.linalg`` here is built on them.
has_lapack = True
#: Whether NumPy's BLAS, which runs our matrix products, is Intel's MKL.
has_mkl = "mkl" in _numpy_blas_name().lower()
#: No kernel here is parallelised with OpenMP: NumPy's ufuncs run on one thread, and only
#: its BLAS has threads of its own (``set_num_threads``).
has_openmp = False
#: ``torch.fft`` is here (PyTorch's flag says its FFT ops are available).
has_spectral = True


def compiled_with_cxx11_abi() -> bool:
    """Whether this package was built with ``_GLIBCXX_USE_CXX11_ABI=1``: False, as it has
    no C++ code (C++ extensions built against PyTorch's ABI cannot load into it)."""
    return False
