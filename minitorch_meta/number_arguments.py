"""``as_float``: a real-number argument (a norm's ``p``, a distribution's parameter, a
tolerance) as a Python float, with PyTorch's ``TypeError`` for anything else.

``float("2")`` would accept a string and ``float("a")`` raise ``ValueError``; PyTorch's
argument parser takes numbers only (0-d tensors and NumPy scalars included) and raises
``TypeError``, so code that catches either sees the same exception here.
"""

from __future__ import annotations

from numbers import Real


def as_float(op: str, name: str, value) -> float:
    """``value`` (a real number, a NumPy scalar or a 0-d tensor) as a Python float.

    Raises:
        TypeError: ``value`` is a string, a complex number, a sequence or anything else.
    """
    if isinstance(value, Real):  # int, float, bool and NumPy's real scalars
        return float(value)
    if hasattr(value, "_data") and value.dim() == 0 and not value.is_complex():
        return float(value)  # a 0-d real tensor (its item)
    raise TypeError(f"{op}(): argument '{name}' must be float, not {type(value).__name__}")
