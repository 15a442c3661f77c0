"""A rank that fails stops the whole job, with its error shown, within seconds."""

from __future__ import annotations

import time

from .mpi import mpirun, requires_mpi, script

TIMEOUT = 90  # a hang would take this long and then fail the test
WITHIN = 30  # an abort takes about a second; this leaves room on a busy machine


@requires_mpi
def test_an_uncaught_exception_on_one_rank_aborts_every_rank():
    start = time.monotonic()
    done = mpirun(2, script("failing_rank.py"), timeout=TIMEOUT)
    elapsed = time.monotonic() - start
    assert done.returncode != 0
    assert elapsed < WITHIN, f"the job took {elapsed:.1f} s to stop"
    assert "[rank 1/2] RuntimeError: boom on rank 1" in done.stderr
    assert "[rank 1/2] uncaught RuntimeError: aborting every rank" in done.stderr
    assert "rank 0 was not stopped" not in done.stdout


@requires_mpi
def test_a_cli_error_on_every_rank_exits_with_its_status(tmp_path):
    # A global batch of 15 does not split across 2 processes: every rank reports it.
    start = time.monotonic()
    done = mpirun(2, "-m", "minitorch_meta", "train", "--distributed", "--batch-size", "15",
                  "--dataset", str(tmp_path), timeout=TIMEOUT)
    assert time.monotonic() - start < WITHIN
    assert done.returncode == 2, done.stdout + done.stderr
    assert "minitorch_meta train: error: the batch size 15 is the global batch, split across " \
           "2 processes, so it must be a multiple of 2; use e.g. 14" in done.stderr
    assert "[rank 0/2]" in done.stderr or "[rank 1/2]" in done.stderr
