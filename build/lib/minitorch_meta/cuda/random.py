"""The CUDA generators (``torch.cuda.seed``, ``initial_seed``, ``get_rng_state``, ...).

Each GPU's backend has its own default generator (CuPy's), seeded by ``manual_seed`` and
friends; ``random.seed_backend`` records the seed on the backend, which ``initial_seed``
reports. The state of a CuPy generator cannot be read or restored (``cupy_backend`` says
why), so ``get_rng_state``/``set_rng_state`` raise ``NotImplementedError`` on a GPU; where
CUDA cannot be used they answer as PyTorch's CPU-only build does (``get_rng_state`` raises,
the others do nothing).
"""

from __future__ import annotations

from ..random import fresh_seed, seed_backend
from .devices import backend_of


def _usable() -> bool:
    from . import is_available

    return is_available()


def seed() -> None:
    """Seed the current GPU's generator from the OS; does nothing without CUDA."""
    if _usable():
        seed_backend(backend_of(None), fresh_seed())


def seed_all() -> None:
    """Seed every GPU's generator from one seed drawn from the OS; does nothing without CUDA."""
    from . import device_count

    value = fresh_seed()
    for index in range(device_count()):
        seed_backend(backend_of(index), value)


def initial_seed() -> int:
    """The seed the current GPU's generator was last seeded with.

    Raises:
        CudaUnavailableError: when CUDA cannot be used here.
    """
    return backend_of(None).generator_seed


def get_rng_state(device="cuda"):
    """Raises: the state of a CUDA generator cannot be read here (``NotImplementedError``
    saying why), or ``CudaUnavailableError`` when CUDA cannot be used."""
    backend = backend_of(device)
    return backend.generator_state(backend.generator)


def set_rng_state(new_state, device="cuda") -> None:
    """Raises ``NotImplementedError`` (saying why) on a GPU; does nothing without CUDA, as
    PyTorch's CPU-only build."""
    if _usable():
        backend = backend_of(device)
        backend.set_generator_state(backend.generator, new_state)


def get_rng_state_all() -> list:
    """``get_rng_state`` of every GPU: ``[]`` without CUDA."""
    from . import device_count

    return [get_rng_state(index) for index in range(device_count())]


def set_rng_state_all(new_states) -> None:
    """``set_rng_state`` of every GPU, in order; does nothing without CUDA."""
    for index, state in enumerate(new_states):
        set_rng_state(state, index)
