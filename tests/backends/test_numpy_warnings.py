"""Floating-point edge cases are silent, as in PyTorch: no NumPy RuntimeWarning from our ops."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import numpy as np
import minitorch_meta as mt

x = mt.tensor([0.0, 1.0, -1.0])
results = [x / 0, x.log(), (x * 1e30) * 1e30, mt.tensor([1000.0]).exp(), x.sqrt()]
assert np.isnan(results[0].numpy()[0]) and np.isinf(results[0].numpy()[1])
assert np.isnan(results[1].numpy()[2]) and np.isinf(results[3].numpy()[0])
opposite = mt.tensor([float("inf"), -float("inf")])  # reductions too: inf + -inf is nan
assert all(np.isnan(r.item()) for r in (opposite.sum(), opposite.mean(), opposite.sum(0)))
try:
    np.divide(np.zeros(1), 0)  # NumPy used directly keeps its own warnings
except RuntimeWarning:
    print("numpy still warns")
"""


def test_ops_raise_no_runtime_warning_but_numpy_still_does():
    """Run with RuntimeWarnings as errors, in a fresh interpreter (the filter is set on import)."""
    done = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", SCRIPT],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "numpy still warns"
