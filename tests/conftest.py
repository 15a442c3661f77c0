"""Shared test fixtures: the devices present, and PyTorch as an optional reference."""

from __future__ import annotations

import os

import pytest

# With MINITORCH_META_CUDA_STAND_IN=1 the CUDA cases run on a NumPy stand-in for CuPy
# (tests/cuda_stand_in): installed before anything imports CuPy.
STAND_IN = os.environ.get("MINITORCH_META_CUDA_STAND_IN") == "1"
if STAND_IN:
    from tests import cuda_stand_in

    cuda_stand_in.install()

import minitorch_meta as mt  # noqa: E402
from tests.devices import cuda_param, cuda_reason  # noqa: E402


def pytest_report_header(config):
    if STAND_IN:
        return ("cuda: a NumPy stand-in for CuPy (tests/cuda_stand_in); no GPU runs, the "
                "CUDA code path and CuPy's API rules are checked")
    return f"cuda: {cuda_reason() or 'usable'}"


def _device_params():
    return [pytest.param("cpu", id="cpu"), cuda_param()]


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


@pytest.fixture
def torch_ref():
    """PyTorch, seeded, where installed: the reference the comparisons check against (the
    tests that take it skip, saying why, where it is not installed)."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for this comparison "
                                                "and is not installed")
    torch.manual_seed(0)
    return torch
