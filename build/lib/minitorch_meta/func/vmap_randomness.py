"""``vmap``'s ``randomness`` modes, applied to the default generators of the backends.

- ``'error'``: while the function runs, each backend's default generator is replaced by
  a ``_RefusingGenerator``, which raises PyTorch's error at the first draw. This sees a
  draw before it happens (nothing is consumed) and works on CUDA too, whose generator
  state CuPy does not expose (comparing states before and after could not).
- ``'same'``: one seed per backend is drawn from its generator before the loop; every
  element then runs with a fresh generator from that seed, so all draw the same numbers.
- ``'different'``: the generators are left alone; each element's draws follow the last.

The original generators are put back in ``finally``. Draws from an explicit
``generator=`` are not affected, and the meta backend draws nothing.
"""

from __future__ import annotations

from contextlib import contextmanager

from ..backends import registry

MODES = ("error", "different", "same")

RANDOM_IN_ERROR_MODE = ("vmap: called random operation while in randomness error mode. "
                        "Please either use the 'same' or 'different' randomness flags on "
                        "vmap or perform the randomness operation out of vmap")


def check_mode(randomness) -> None:
    if randomness not in MODES:
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


class _RefusingGenerator:
    """Stands in for a default generator: any use (a draw) raises."""

    def __getattr__(self, name):
        raise RuntimeError(RANDOM_IN_ERROR_MODE)


def _data_backends() -> list:
    return [b for b in registry.created_backends() if b.stores_data]


def same_seeds() -> dict:
    """For ``'same'``: one seed per backend, drawn from (and advancing) its generator."""
    from .. import dtypes

    seeds = {}
    for backend in _data_backends():
        draw = backend.integers((), 0, 2 ** 62, dtypes.int64, None)
        seeds[id(backend)] = int(backend.to_numpy(draw))
    return seeds


@contextmanager
def randomness_for_element(randomness: str, seeds: dict):
    """The default generators one element's call runs with (see the module)."""
    if randomness == "different":
        yield
        return
    backends = _data_backends()
    originals = [b.generator for b in backends]
    try:
        for backend in backends:
            if randomness == "error":
                backend.generator = _RefusingGenerator()
            elif id(backend) in seeds:
                backend.generator = backend.new_generator(seeds[id(backend)])
        yield
    finally:
        for backend, original in zip(backends, originals):
            backend.generator = original
