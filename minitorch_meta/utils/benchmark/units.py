"""The time units of ``torch.utils.benchmark``: picking one for a time, naming it, and
trimming a number to its significant figures.

PyTorch computes these on default-dtype (float32) tensors of the Python floats, so a time
just under a power of ten can round up to it there and change the unit or the digits printed.
The helpers here round to float32 at the same steps, so that a table prints the same units
and digits as PyTorch's for the same times.
"""

from __future__ import annotations

import math

import numpy as np

_UNIT_OF_THOUSANDS = {-3: "ns", -2: "us", -1: "ms"}
_SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
_ENGLISH = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}


def float32_log10(x: float) -> float:
    """``log10(x)`` with ``x`` and the result rounded to float32 (as a float32 tensor's
    ``log10`` gives it); nan for a negative ``x``, -inf for 0."""
    x32 = float(np.float32(x))
    if x32 < 0 or math.isnan(x32):
        return math.nan
    if x32 == 0:
        return -math.inf
    return float(np.float32(math.log10(x32)))


def select_unit(t: float) -> tuple[str, float]:
    """The unit that shows the time ``t`` (seconds) with one to three digits before the point,
    and its scale: ``select_unit(2.5e-5) == ("us", 1e-6)``. Times of a second or more are
    in seconds."""
    thousands = float32_log10(t) // 3
    time_unit = _UNIT_OF_THOUSANDS.get(int(thousands), "s")
    return time_unit, _SCALE[time_unit]


def unit_to_english(u: str) -> str:
    """The English name of a unit from ``select_unit`` (``"us"`` -> ``"microsecond"``)."""
    return _ENGLISH[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures (``trim_sigfig(3.14159, 2) == 3.1``)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(math.ceil(float32_log10(abs(x))))
    scale = 10 ** (magnitude - n)
    # round half to even, in float32, then scaled back in float32 (PyTorch's tensor steps)
    rounded = np.round(np.float32(x / scale))
    return float(rounded * np.float32(scale))
