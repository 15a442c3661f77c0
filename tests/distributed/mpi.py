"""Running test scripts on several processes with ``mpirun`` (Open MPI), with a timeout.

Tests that need MPI use ``requires_mpi``: they are skipped, with the reason, when
``mpirun`` or mpi4py is missing (``make test`` installs both). Open MPI refuses to run as
root unless ``OMPI_ALLOW_RUN_AS_ROOT`` and ``OMPI_ALLOW_RUN_AS_ROOT_CONFIRM`` are set, as
they are here in the child's environment only; ``--oversubscribe`` lets 2 ranks start on a
machine with fewer free cores.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).parent / "scripts"
MPIRUN = shutil.which("mpirun")
HAS_MPI4PY = importlib.util.find_spec("mpi4py") is not None
TIMEOUT = 120  # seconds for any one mpirun: a hang fails the test instead of blocking it

_REASON = ("mpirun not found: install Open MPI (apt-get install openmpi-bin libopenmpi-dev)"
           if MPIRUN is None else
           "mpi4py is not installed: pip install 'minitorch_meta[distributed]'"
           if not HAS_MPI4PY else None)
requires_mpi = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")


def environment() -> dict:
    """The parent's environment, allowed to run as root, one BLAS thread per rank."""
    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONUNBUFFERED="1")
    # A run of these tests under an MPI launcher must not make the plain-python children
    # believe they are ranks of that job.
    for name in ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK",
                 "MV2_COMM_WORLD_SIZE"):
        env.pop(name, None)
    return env


def mpirun(processes: int, *args: str, timeout: float = TIMEOUT, cwd=None,
           tag_output: bool = False) -> subprocess.CompletedProcess:
    """``mpirun -n processes python args...`` with this interpreter; output as text."""
    command = [MPIRUN, "-n", str(processes), "--oversubscribe"]
    if tag_output:
        command.append("--tag-output")  # prefixes each line with [job,rank]<stdout>:
    command += [sys.executable, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=environment())


def python(*args: str, timeout: float = TIMEOUT, cwd=None) -> subprocess.CompletedProcess:
    """The same script as one plain process (world size 1, no MPI launcher)."""
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=environment())


def script(name: str) -> str:
    return str(SCRIPTS / name)
