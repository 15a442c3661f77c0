"""Two processes with the same global batch follow one process: same weights at the end,
to float tolerance, and identical weights across ranks after every step."""

from __future__ import annotations

import numpy as np

from .mpi import mpirun, python, requires_mpi, script


@requires_mpi
def test_two_processes_end_with_the_weights_of_one(tmp_path):
    one, two = tmp_path / "one.npz", tmp_path / "two.npz"
    single = python(script("train_steps.py"), str(one))
    assert single.returncode == 0, single.stderr
    double = mpirun(2, script("train_steps.py"), str(two))
    assert double.returncode == 0, double.stdout + double.stderr

    one, two = np.load(one), np.load(two)
    assert int(one["world"]) == 1 and int(two["world"]) == 2
    assert int(one["steps"]) == int(two["steps"]) == 12  # 2 epochs of 48 samples, batch 8
    # The ranks start from different seeds: only rank 0's broadcast weights (the lazy
    # layer's included) make them equal, and the averaged gradients keep them equal.
    assert float(two["mismatch"]) == 0.0
    np.testing.assert_allclose(two["losses"], one["losses"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(two["params"], one["params"], rtol=1e-5, atol=1e-6)


@requires_mpi
def test_collectives_on_two_ranks():
    done = mpirun(2, script("collectives.py"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok 0" in done.stdout and "ok 1" in done.stdout  # lines of ranks may interleave
