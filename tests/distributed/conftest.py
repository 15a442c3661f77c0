"""Every distributed test starts and ends outside any process group, whatever launched it."""

from __future__ import annotations

import pytest

import minitorch_meta.distributed as dist
from minitorch_meta.distributed import process_group


@pytest.fixture(autouse=True)
def no_group(monkeypatch):
    for name in process_group.MPI_LAUNCHER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    dist.destroy_process_group()
    yield
    dist.destroy_process_group()
