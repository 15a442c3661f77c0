"""A NumPy stand-in for CuPy: runs the CUDA cases of the test suite on a machine without a GPU.

``MINITORCH_META_CUDA_STAND_IN=1 python -m pytest -m cuda`` installs it (see
``tests/conftest.py``) in place of the ``cupy`` and ``cupyx`` modules, so that the package's
real CUDA backend (``backends/cupy_backend.py`` and the shared ``xp`` kernels) runs, with
NumPy computing underneath. It exists because these machines have no GPU, and code never
run is code with bugs.

What it catches, because it follows CuPy's rules rather than NumPy's:
- names CuPy lacks (``cupy.<name>``, array methods, generator methods, ufunc methods such
  as ``maximum.reduce``) and keyword arguments CuPy's functions do not take (checked
  against the installed CuPy's signatures; the real ``cupy`` package must be installed,
  which the ``test`` extra does);
- host data where device data is needed: a NumPy array passed to a ufunc or a function
  (CuPy raises ``TypeError: Unsupported type``), a list given to a ufunc, a non-scalar
  NumPy array assigned into a slice;
- device data used as host data: ``numpy.asarray(device_array)``, ``float`` of a
  many-element array, a NumPy function CuPy does not implement;
- CuPy's results: a reduction or an element gives a 0-d array, never a scalar.

What it cannot catch: anything about the GPU itself (speed, memory, streams, several
devices, cuBLAS's or cuRAND's numbers), and differences inside functions both libraries
have (CuPy's own bugs, dtype rules on corner cases). Its data is NumPy's, so tests that
compare a "cuda" result with the CPU's compare NumPy with NumPy; what they check is that
the CUDA code path runs and follows CuPy's API.
"""

from __future__ import annotations

import sys

from .namespace import build_cupy, build_cupyx

MODULE_NAMES = ("cupy", "cupyx", "cupyx.scipy", "cupyx.scipy.special")


def install():
    """Put the stand-in in ``sys.modules`` in place of ``cupy`` and ``cupyx``.

    The real CuPy must be importable: its names and signatures are the stand-in's rules.
    Returns the stand-in ``cupy`` module.
    """
    import cupy as real_cupy  # noqa: F401 (imported for its names; a GPU is not needed)
    import cupyx as real_cupyx
    import cupyx.scipy.special  # noqa: F401

    cupy = build_cupy(real_cupy)
    cupyx = build_cupyx(real_cupyx, cupy)
    sys.modules["cupy"] = cupy
    sys.modules["cupyx"] = cupyx
    sys.modules["cupyx.scipy"] = cupyx.scipy
    sys.modules["cupyx.scipy.special"] = cupyx.scipy.special
    return cupy


def installed() -> bool:
    """True when ``cupy`` in ``sys.modules`` is the stand-in."""
    return getattr(sys.modules.get("cupy"), "IS_STAND_IN", False)
