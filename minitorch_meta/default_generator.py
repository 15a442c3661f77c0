"""``torch.default_generator``: the CPU backend's default random generator as a
``Generator`` object, the one ``torch.manual_seed`` seeds and ``torch.rand`` draws from.

It holds no state of its own: each use reads the CPU backend's current generator (which
``manual_seed`` replaces), so ``torch.default_generator.manual_seed(0)`` then
``torch.rand(3)`` draws what ``torch.manual_seed(0)`` then ``torch.rand(3)`` draws. As in
PyTorch, its ``manual_seed`` and ``seed`` reseed the CPU generator only (``torch.manual_seed``
reseeds every device's).
"""

from __future__ import annotations

from .backends import registry
from .device import to_device
from .int_arguments import is_int
from .random import Generator, fresh_seed, seed_backend


class DefaultGenerator(Generator):
    """The CPU default generator (``torch.default_generator``): ``manual_seed``, ``seed``,
    ``initial_seed``, ``get_state`` and ``set_state`` act on the generator that
    ``torch.rand`` and friends draw from."""

    def __init__(self) -> None:  # no generator of its own: ``_rng`` reads the backend's
        self.device = to_device("cpu")

    @staticmethod
    def _backend():
        return registry.get_backend(to_device("cpu"))

    @property
    def _rng(self):
        return self._backend().generator

    def manual_seed(self, seed: int) -> DefaultGenerator:
        """Reseed the CPU default generator with ``seed`` (as ``torch.manual_seed`` does
        for the CPU); returns this generator.

        Raises:
            RuntimeError: ``seed`` is not an int (PyTorch's message).
        """
        if not is_int(seed):
            raise RuntimeError(f"manual_seed expected a long, but got "
                               f"{type(seed).__name__}")
        seed_backend(self._backend(), seed)
        return self

    def seed(self) -> int:
        """Reseed the CPU default generator from the OS; returns the seed."""
        value = fresh_seed()
        seed_backend(self._backend(), value)
        return value

    def initial_seed(self) -> int:
        """The seed the CPU default generator was last seeded with."""
        return self._backend().generator_seed


#: the one view of the CPU default generator (stateless: see the module's docstring)
default_generator = DefaultGenerator()

__all__ = ["DefaultGenerator", "default_generator"]
