"""Crossing the stand-in's border: device arrays in, NumPy arrays out, and back.

CuPy refuses host NumPy arrays where it computes; ``unwrap`` refuses them the same way,
except where CuPy converts host data itself (``asarray``, indices).
"""

from __future__ import annotations

import numpy as np


def unwrap(value, allow_host: bool, where: str):
    """``value`` with every device array replaced by its NumPy array (in tuples, lists and
    dicts too); a host NumPy array raises ``TypeError`` unless ``allow_host``."""
    from .array import DeviceArray

    if isinstance(value, DeviceArray):
        return value._host
    if isinstance(value, np.ndarray):
        if allow_host:
            return value
        raise TypeError(f"Unsupported type {type(value)}: {where} got a host NumPy array "
                        f"(shape {value.shape}) where CuPy needs a device array; move it "
                        "with cupy.asarray first (the CuPy stand-in)")
    if isinstance(value, (list, tuple)):
        return type(value)(unwrap(item, allow_host, where) for item in value)
    if isinstance(value, dict):
        return {key: unwrap(item, allow_host, where) for key, item in value.items()}
    return value


def wrap(value):
    """A result of NumPy as CuPy gives it: arrays on the device, and a scalar as a 0-d
    device array (CuPy's reductions and elements never give a scalar)."""
    from .array import DeviceArray

    if isinstance(value, np.ndarray):
        return DeviceArray(value)
    if isinstance(value, np.generic):
        return DeviceArray(np.asarray(value))
    if type(value) in (tuple, list):
        return type(value)(wrap(item) for item in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # NumPy's named results
        return type(value)(*(wrap(item) for item in value))
    return value
