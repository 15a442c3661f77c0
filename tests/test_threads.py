"""``set_num_threads`` / ``get_num_threads``: the BLAS's thread count, PyTorch's API."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import threads
from minitorch_meta.backends.openblas import OpenBlas

needs_openblas = pytest.mark.skipif(
    not OpenBlas().found,
    reason="NumPy's BLAS here is not an OpenBLAS this process can reach, so there is no "
           "thread count to set (set_num_threads then only warns, tested below)")


@pytest.fixture
def restore_threads():
    before = mt.get_num_threads()
    yield
    mt.set_num_threads(before)


def test_get_num_threads_is_a_positive_int():
    n = mt.get_num_threads()
    assert isinstance(n, int) and n >= 1


@needs_openblas
@pytest.mark.parametrize("n", [1, 2, 3])
def test_set_then_get_gives_the_count_back(restore_threads, n):
    mt.set_num_threads(n)
    assert mt.get_num_threads() == n


@needs_openblas
def test_the_count_is_numpys_blas_count(restore_threads):
    """It is the BLAS that NumPy itself calls: our products and NumPy's see one count."""
    mt.set_num_threads(1)
    assert OpenBlas().get_num_threads() == 1
    a = np.ones((64, 64), np.float32)
    np.testing.assert_array_equal((mt.tensor(a) @ mt.tensor(a)).numpy(), a @ a)  # still right


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_a_count_that_is_not_a_positive_int_is_refused_as_pytorch_does(bad):
    with pytest.raises(RuntimeError, match="set_num_threads expects a positive integer, got"):
        mt.set_num_threads(bad)
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    if not isinstance(bad, (bool, str, float)):  # PyTorch's binding rejects these with TypeError
        with pytest.raises(RuntimeError):
            torch.set_num_threads(bad)


class _NoBlas:
    found = False


def test_without_a_reachable_blas_set_warns_and_get_counts_cores(monkeypatch):
    monkeypatch.setattr(threads, "_blas", lambda: _NoBlas())
    with pytest.warns(RuntimeWarning, match="thread count is unchanged"):
        mt.set_num_threads(1)
    assert mt.get_num_threads() >= 1
