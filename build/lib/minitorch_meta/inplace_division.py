"""The in-place rounded divisions ``remainder_``, ``fmod_`` and ``floor_divide_`` (also
``%=`` and ``//=``), as Tensor methods.

Each is its out-of-place op written into this tensor, under the rules of ``add_``: refused
on a tensor in an autograd graph while grad mode is on, and refused (RuntimeError) when the
result's dtype is of a higher kind than this tensor's (``int64.remainder_(1.5)`` makes a
float, and ``bool.fmod_(2)`` an int64). A result of a wider type of the same kind is cast
(``int8.remainder_(int64 tensor)``), and the result must have this tensor's shape.
"""

from __future__ import annotations

from . import math_functions as M


def remainder_(self, other):
    """In-place ``remainder``: ``self % other`` with the sign of ``other``."""
    return self._inplace("remainder_", M.remainder, other)


def fmod_(self, other):
    """In-place ``fmod``: C's remainder of ``self / other``, with the sign of ``self``."""
    return self._inplace("fmod_", M.fmod, other)


def floor_divide_(self, other):
    """In-place ``floor_divide``: ``self // other``, rounded toward minus infinity."""
    return self._inplace("floor_divide_", M.floor_divide, other)
