"""``torch.backends.mps``: Apple's Metal device does not exist here, so that
``"mps" if torch.backends.mps.is_available() else "cpu"`` picks the CPU."""

from __future__ import annotations


def is_available() -> bool:
    """False: minitorch_meta has no Metal backend."""
    return False


def is_built() -> bool:
    """False: minitorch_meta has no Metal backend."""
    return False
