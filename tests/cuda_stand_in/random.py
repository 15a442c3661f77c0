"""The stand-in's ``cupy.random``: NumPy's generators, with CuPy's ``Generator`` methods only.

The streams are NumPy's, not cuRAND's: tests compare distributions and shapes on CUDA,
never the numbers drawn.
"""

from __future__ import annotations

import numpy as np

from .conversion import unwrap, wrap


class Generator:
    """``cupy.random.Generator`` (from ``default_rng``): only the methods CuPy's has."""

    METHODS: frozenset = frozenset()  # set by ``build_random`` from the installed CuPy

    def __init__(self, seed=None):
        self._host = np.random.default_rng(unwrap(seed, True, "default_rng"))

    def __getattr__(self, name):
        if name not in self.METHODS:
            raise AttributeError(f"'cupy.random.Generator' object has no attribute '{name}' "
                                 "(CuPy's generator lacks it; the CuPy stand-in)")
        method = getattr(self._host, name)

        def draw(*args, **kwargs):
            return wrap(method(*unwrap(args, False, name), **unwrap(kwargs, False, name)))
        return draw


def build_random(real_random):
    """The stand-in ``cupy.random`` module."""
    from .namespace import StandInNamespace

    Generator.METHODS = frozenset(
        name for name in dir(real_random.Generator) if not name.startswith("_"))
    return StandInNamespace("cupy.random", real_random, np.random, {
        "default_rng": Generator,
        "Generator": Generator,
    })
