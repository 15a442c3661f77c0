"""Random number generation: ``manual_seed`` and explicit ``Generator`` objects.

Each backend owns a default generator (NumPy's PCG64 on the CPU, CuPy's on CUDA).
``manual_seed`` reseeds the default generator of every backend, including those created
later; a ``Generator`` passed as ``generator=`` is independent of them all.
"""

from __future__ import annotations

import zlib

from .backends import registry
from .device import to_device


def manual_seed(seed: int) -> Generator:
    """Seed every backend's default generator (cpu and cuda alike); returns the cpu one."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"manual_seed expects an int, got {seed!r}")
    registry.set_seed(seed)
    return default_generator()


def seed_backend(backend, seed) -> None:
    """Give ``backend`` a default generator derived from ``seed`` and its device."""
    if backend.stores_data:
        # Different devices get different but reproducible streams from one seed.
        stream = zlib.crc32(str(backend.device).encode())  # stable across processes
        backend.generator = backend.new_generator([seed, stream])


def default_generator() -> Generator:
    """A ``Generator`` view of the cpu backend's default generator."""
    g = Generator("cpu")
    g._rng = registry.get_backend(to_device("cpu")).generator
    return g


class Generator:
    """An explicit random generator for one device: ``Generator().manual_seed(0)``."""

    def __init__(self, device="cpu"):
        self.device = to_device(device)
        self._seed = None
        self._rng = registry.get_backend(self.device).new_generator(None)

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self._rng = registry.get_backend(self.device).new_generator(self._seed)
        return self

    def initial_seed(self) -> int | None:
        return self._seed

    def _for(self, backend):
        """The generator to use for a tensor on ``backend`` (devices must agree)."""
        if backend.device.type != self.device.type:
            raise RuntimeError(f"expected a '{backend.device.type}' generator for a tensor on "
                               f"'{backend.device}', got a generator on '{self.device}'")
        return self._rng
