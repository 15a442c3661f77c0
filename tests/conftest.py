"""Shared test fixtures: the devices present, and PyTorch as an optional reference."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from minitorch_meta.backends.cupy_backend import cuda_unavailable_reason

_CUDA_REASON = cuda_unavailable_reason()


def _device_params():
    params = [pytest.param("cpu", id="cpu")]
    marks = [pytest.mark.cuda]
    if _CUDA_REASON is not None:
        marks.append(pytest.mark.skip(reason=f"CUDA not usable here: {_CUDA_REASON}"))
    params.append(pytest.param("cuda", id="cuda", marks=marks))
    return params


@pytest.fixture(params=_device_params())
def device(request):
    """Every data device present: cpu always, cuda where CuPy sees a GPU (skipped otherwise)."""
    return request.param


@pytest.fixture(params=[*_device_params(), pytest.param("meta", id="meta")])
def any_device(request):
    """Every data device present, and meta (shapes, dtypes and flags only)."""
    return request.param


@pytest.fixture(autouse=True)
def _seed():
    mt.manual_seed(0)
