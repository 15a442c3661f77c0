"""What the tests expect of devices, written once: the "cuda" test parameter, and the
device a tensor reports."""

from __future__ import annotations

import functools

import pytest

import minitorch_meta as mt
from minitorch_meta.backends.cupy_backend import cuda_unavailable_reason


@functools.cache
def cuda_reason() -> str | None:
    """Why CUDA cannot be used in this test run, or None (asked once: conftest installs the
    CuPy stand-in, when asked to, before the first call)."""
    return cuda_unavailable_reason()


def cuda_param():
    """pytest's ``"cuda"`` parameter: marked ``cuda``, and skipped, with the reason, where
    CUDA cannot be used."""
    marks = [pytest.mark.cuda]
    if cuda_reason() is not None:
        marks.append(pytest.mark.skip(reason=f"CUDA not usable here: {cuda_reason()}"))
    return pytest.param("cuda", id="cuda", marks=marks)


def tensor_device(name: str) -> mt.device:
    """The device a tensor made with ``device=name`` reports, as in PyTorch: ``"cuda"`` means
    the current GPU, so its tensors say ``cuda:0`` (and ``device("cuda:0") != device("cuda")``
    there too); ``"cpu"`` and ``"meta"`` are themselves."""
    device = mt.device(name)
    if device.type == "cuda" and device.index is None:
        return mt.device("cuda", mt.cuda.current_device())
    return device
