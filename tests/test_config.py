"""``minitorch_meta.__config__``: ``show()`` and ``parallel_info()``, as ``torch.__config__``."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import __config__ as config
from minitorch_meta.backends import openblas
from minitorch_meta.backends.openblas import AVX512_FLAGS, OpenBlas, avx512_held_back


def test_show_names_the_versions_the_blas_kernels_and_the_cpu():
    text = mt.__config__.show()
    assert text.startswith(f"minitorch_meta {mt.__version__} on:")
    assert f"NumPy {np.__version__}" in text
    blas = OpenBlas()
    if blas.found:
        assert f"BLAS: {blas.version}, {blas.core_name} kernels" in text
    assert "CPU: " in text and "CUDA: " in text


def test_show_and_parallel_info_return_strings_as_pytorchs_do():
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    assert isinstance(torch.__config__.show(), str) and isinstance(mt.__config__.show(), str)
    assert isinstance(torch.__config__.parallel_info(), str)
    assert isinstance(mt.__config__.parallel_info(), str)


def test_parallel_info_gives_the_blas_thread_count():
    assert f"NumPy's BLAS threads (set_num_threads): {mt.get_num_threads()}" in \
        mt.__config__.parallel_info() or not OpenBlas().found


AVX512_CPU = set(AVX512_FLAGS) | {"avx2", "fma"}


@pytest.mark.parametrize(("core", "environ", "flags", "held_back"), [
    ("Haswell", {"OPENBLAS_CORETYPE": "Haswell"}, AVX512_CPU, True),
    ("Zen", {"OPENBLAS_CORETYPE": "Zen"}, AVX512_CPU, True),
    ("SkylakeX", {"OPENBLAS_CORETYPE": "SkylakeX"}, AVX512_CPU, False),   # asked for AVX-512
    ("Haswell", {}, AVX512_CPU, False),                 # OpenBLAS's own choice is trusted
    ("Haswell", {"OPENBLAS_CORETYPE": "Haswell"}, {"avx2", "fma"}, False),  # no AVX-512
    ("Haswell", {"OPENBLAS_CORETYPE": "Haswell"}, AVX512_CPU - {"avx512bw"}, False),
])
def test_avx512_is_held_back_only_by_the_variable_on_a_cpu_that_has_it(core, environ, flags,
                                                                         held_back):
    assert avx512_held_back(core, environ, flags) is held_back


class _Haswell(OpenBlas):
    found, core_name, version = True, "Haswell", "OpenBLAS 0.3.31"


def pin_haswell_on_an_avx512_cpu(monkeypatch):
    """As on these machines: OPENBLAS_CORETYPE=Haswell on a CPU with AVX-512."""
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    monkeypatch.setattr(config, "loaded_openblas", _Haswell)
    monkeypatch.setattr(config, "cpu_flags", lambda: AVX512_CPU)


@pytest.fixture
def haswell_pinned_on_avx512(monkeypatch):
    pin_haswell_on_an_avx512_cpu(monkeypatch)


def test_a_held_back_blas_gets_a_note_saying_what_to_do(haswell_pinned_on_avx512):
    advice = config.blas_advice()
    assert "OPENBLAS_CORETYPE=Haswell holds OpenBLAS to its Haswell kernels" in advice
    assert "env -u OPENBLAS_CORETYPE" in advice
    assert f"note: {advice}" in config.show()


def test_no_note_when_openblas_chose_for_itself(monkeypatch):
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    monkeypatch.setattr(config, "loaded_openblas", _Haswell)
    monkeypatch.setattr(config, "cpu_flags", lambda: AVX512_CPU)
    assert config.blas_advice() is None and "note:" not in config.show()


def test_cpu_flags_are_read_from_proc_cpuinfo_where_there_is_one():
    flags = openblas.cpu_flags()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            listed = any(line.startswith("flags") for line in cpuinfo)
    except OSError:
        listed = False
    assert bool(flags) == listed
