"""Random number generation: ``manual_seed``, ``seed``, ``initial_seed``, the CPU state
(``get_rng_state``/``set_rng_state``) and explicit ``Generator`` objects.

Each backend owns a default generator (NumPy's PCG64 on the CPU, CuPy's on CUDA), seeded
from one process-wide seed (kept in ``backends.registry``, as PyTorch keeps its default
generators process-wide): ``manual_seed`` or ``seed`` sets it and reseeds every backend,
including those created later. Until then it is drawn from the OS once (PyTorch starts
from a fixed seed instead). A ``Generator`` passed as ``generator=`` is independent of all.
"""

from __future__ import annotations

import contextlib
import operator
import os
import zlib

from .backends import registry
from .device import to_device


def manual_seed(seed: int) -> Generator:
    """Seed every backend's default generator (cpu and cuda alike); returns the cpu one,
    ``torch.default_generator``."""
    from .default_generator import default_generator as cpu_generator

    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        # (a NumPy integer or a 0-d integer tensor is an int; a float is refused, where
        # PyTorch would silently drop its fraction)
        raise TypeError(f"manual_seed expects an int, got {seed!r}")
    registry.set_seed(operator.index(seed))
    return cpu_generator


def seed() -> int:
    """Seed every backend's default generator from the OS (not reproducible); returns the
    seed, a 64-bit unsigned int that ``manual_seed`` takes to repeat the streams."""
    value = fresh_seed()
    registry.set_seed(value)
    return value


def fresh_seed() -> int:
    """A non-deterministic 64-bit seed."""
    return int.from_bytes(os.urandom(8), "little")


def initial_seed() -> int:
    """The seed of the cpu default generator: the last ``manual_seed``'s or ``seed``'s
    (``torch.default_generator``'s too), else the one drawn at start-up."""
    return registry.get_backend(to_device("cpu")).generator_seed


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Run the block, then put the default generators back as they were: the cpu one and
    the CUDA ones of ``devices`` (every visible GPU by default). ``enabled=False`` and
    ``device_type="meta"`` fork nothing.

    Raises:
        NotImplementedError: a CUDA device is forked (CuPy does not expose its state).
    """
    if device_type == "meta" or not enabled:
        yield
        return
    from . import cuda

    devices = range(cuda.device_count()) if devices is None else devices
    forked = [(device, cuda.get_rng_state(device)) for device in devices]
    cpu_state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for device, state in forked:
            cuda.set_rng_state(state, device)


def get_rng_state():
    """The cpu default generator's state, a uint8 tensor ``set_rng_state`` takes back."""
    return default_generator().get_state()


def set_rng_state(new_state) -> None:
    """Restore the cpu default generator to ``new_state`` (from ``get_rng_state``).

    Raises:
        TypeError: ``new_state`` is not a uint8 tensor.
        RuntimeError: it does not hold a state of the right size.
    """
    default_generator().set_state(new_state)


def seed_backend(backend, seed) -> None:
    """Give ``backend`` a default generator derived from ``seed`` and its device, and note
    ``seed`` on it as ``generator_seed`` (``cuda.initial_seed`` reports it)."""
    if backend.stores_data:
        backend.generator_seed = int(seed)
        # Different devices get different but reproducible streams from one seed.
        stream = zlib.crc32(str(backend.device).encode())  # stable across processes
        backend.generator = backend.new_generator([seed, stream])


def default_generator() -> Generator:
    """A ``Generator`` view of the cpu backend's default generator."""
    g = Generator("cpu")
    g._rng = registry.get_backend(to_device("cpu")).generator
    g._seed = registry.process_seed()
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

    def get_state(self):
        """This generator's state as a uint8 cpu tensor (40 bytes for a cpu generator)."""
        from .factories import from_numpy

        return from_numpy(registry.get_backend(self.device).generator_state(self._rng))

    def set_state(self, new_state) -> Generator:
        """Restore the state ``get_state`` returned; the generator then repeats its draws."""
        from . import dtypes
        from .tensor import Tensor

        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor (a uint8 tensor from get_state()), "
                            f"but got {type(new_state).__name__}")
        if new_state.dtype is not dtypes.uint8:
            raise TypeError(f"RNG state must be a torch.ByteTensor (uint8, as get_state() "
                            f"returns), got dtype {new_state.dtype}")
        state = new_state.detach()._host().reshape(-1)
        registry.get_backend(self.device).set_generator_state(self._rng, state)
        return self

    def _for(self, backend):
        """The generator to use for a tensor on ``backend`` (devices must agree)."""
        if backend.device.type != self.device.type:
            raise RuntimeError(f"expected a '{backend.device.type}' generator for a tensor on "
                               f"'{backend.device}', got a generator on '{self.device}'")
        return self._rng


def generator_for(generator, backend):
    """The backend generator that ``generator=`` names for a tensor on ``backend``: None
    (the device's default) for None.

    Raises:
        TypeError: ``generator`` is not a ``Generator`` (PyTorch's message);
        RuntimeError: it belongs to another device type.
    """
    if generator is None:
        return None
    if not isinstance(generator, Generator):
        raise TypeError(f"argument 'generator' must be torch.Generator, not "
                        f"{type(generator).__name__}")
    return generator._for(backend)
