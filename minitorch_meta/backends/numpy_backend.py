"""The CPU backend: the shared ``xp`` kernels over NumPy."""

from __future__ import annotations

import numpy as np

from ..device import CPU
from .host_allocator import keep_large_buffers
from .xp import XpBackend


class NumpyBackend(XpBackend):
    """Arrays are ``numpy.ndarray``; GEMMs go to NumPy's BLAS."""

    def __init__(self):
        super().__init__(CPU, np, np.lib.stride_tricks.as_strided)
        # Large temporaries are reused from the heap rather than page-faulted every step.
        self.keeps_large_buffers = keep_large_buffers()

    def to_numpy(self, a):
        return a

    def synchronize(self):
        pass  # NumPy calls return when their work is done

    def scatter_add(self, target, index, values):
        np.add.at(target, index, values)
