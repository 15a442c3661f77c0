"""``minitorch_meta.cpu`` (``torch.cpu``): the CPU device module; here only its ``amp``."""

from __future__ import annotations

from . import amp


def is_available() -> bool:
    """The CPU is always there (``torch.cpu.is_available``)."""
    return True


__all__ = ["amp", "is_available"]
