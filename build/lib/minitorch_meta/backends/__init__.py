"""Backends: one per device type, each owning arrays of that device and the kernel set.

``registry`` maps a device type to its backend; ``base.Backend`` lists the kernels a new
accelerator must implement; ``xp`` implements them once over an array module (NumPy or
CuPy); ``meta`` stores shapes only. ``cudnn`` and ``mps`` hold only PyTorch's flags and
``is_available()`` checks, so that scripts written for PyTorch run unchanged.
"""

from . import cudnn, mps
from .base import Backend
from .registry import get_backend, register_backend, registered_types

__all__ = ["Backend", "cudnn", "mps", "get_backend", "register_backend", "registered_types"]
