"""Backends: one per device type, each owning arrays of that device and the kernel set.

``registry`` maps a device type to its backend; ``base.Backend`` lists the kernels a new
accelerator must implement; ``xp`` implements them once over an array module (NumPy or
CuPy); ``meta`` stores shapes only.
"""

from .base import Backend
from .registry import get_backend, register_backend, registered_types

__all__ = ["Backend", "get_backend", "register_backend", "registered_types"]
