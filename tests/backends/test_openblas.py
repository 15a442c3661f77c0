"""``backends/openblas.py``: the loaded OpenBLAS's version and the CPU kernels it chose."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from minitorch_meta.backends import openblas
from minitorch_meta.backends.openblas import OpenBlas
from minitorch_meta.tools import bench

needs_openblas = pytest.mark.skipif(
    not OpenBlas().found,
    reason="NumPy's BLAS here is not an OpenBLAS this process can reach")


@needs_openblas
def test_version_and_kernels_are_read_from_the_loaded_library():
    blas = OpenBlas()
    assert blas.version.startswith("OpenBLAS 0.")
    assert blas.core_name and blas.core_name.isprintable()


def _kernels_in_a_fresh_process(coretype: str | None) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if coretype is not None:
        environ["OPENBLAS_CORETYPE"] = coretype
    code = ("import minitorch_meta\n"
            "from minitorch_meta.backends.openblas import OpenBlas\n"
            "print(OpenBlas().core_name)")
    return subprocess.run([sys.executable, "-c", code], env=environ, check=True,
                          capture_output=True, text=True).stdout.strip()


@needs_openblas
@pytest.mark.skipif(not OpenBlas().found or "DYNAMIC_ARCH" not in OpenBlas().config,
                    reason="this OpenBLAS was built for one CPU (no DYNAMIC_ARCH), so it has "
                           "no kernels to choose between")
@pytest.mark.skipif("avx2" not in openblas.cpu_flags(),
                    reason="needs an x86 CPU with AVX2 (Linux), so OpenBLAS may run Haswell "
                           "kernels")
def test_the_kernels_reported_are_the_ones_openblas_coretype_asked_for():
    """OPENBLAS_CORETYPE (read when OpenBLAS loads) decides the kernels; we read them back."""
    assert _kernels_in_a_fresh_process("Haswell") == "Haswell"
    assert _kernels_in_a_fresh_process(None)  # OpenBLAS's own choice for this CPU


def test_benchmark_header_names_the_blas_kernels():
    header = bench.environment()
    blas = OpenBlas()
    if blas.found:
        assert f"{blas.core_name} kernels" in header and blas.version in header
    else:
        assert "a BLAS other than OpenBLAS" in header
