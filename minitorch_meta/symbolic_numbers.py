"""PyTorch's ``sym_*`` helpers: ``sym_float``, ``sym_int``, ``sym_max``, ``sym_min``,
``sym_not``, ``sym_sqrt``, ``sym_sum`` and ``sym_ite``.

In PyTorch they take symbolic sizes (``SymInt``, ``SymFloat``, ``SymBool``) while a model is
traced with dynamic shapes, and plain Python numbers otherwise. There is no symbolic tracing
here, so every size is a plain number, and these are what PyTorch's helpers do with plain
numbers (and tensors): Python's own conversions and operators, with PyTorch's type rules and
its errors (``AssertionError`` where PyTorch raises one).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

# What sym_max/sym_min take, and which of those make the result a float (PyTorch's lists).
_NUMBER_TYPES = (np.integer, np.floating, int, float)
_FLOAT_TYPES = (np.floating, float)


def sym_float(a) -> float:
    """``a`` as a Python float (``float(a)``: numbers, one-element tensors, strings)."""
    return builtins.float(a)


def sym_int(a) -> int:
    """``a`` as a Python int, truncated toward zero (``int(a)``: ``sym_int(-2.7)`` is -2)."""
    return builtins.int(a)


def sym_max(a, b):
    """The larger of the numbers ``a`` and ``b``; a float if either is a float (unlike
    ``max``, so that ``sym_max(1, 1.0)`` and ``sym_max(1.0, 1)`` agree).

    Raises:
        AssertionError: ``a`` or ``b`` is not an int or a float (a tensor, say), as in
            PyTorch.
    """
    return _extreme(builtins.max, "sym_max", a, b)


def sym_min(a, b):
    """The smaller of the numbers ``a`` and ``b``; a float if either is a float.

    Raises:
        AssertionError: ``a`` or ``b`` is not an int or a float, as in PyTorch.
    """
    return _extreme(builtins.min, "sym_min", a, b)


def _extreme(pick, name: str, a, b):
    for value in (a, b):
        if not isinstance(value, _NUMBER_TYPES):
            raise AssertionError(f"expected {_NUMBER_TYPES}, got {type(value)}: {name} takes "
                                 "Python or NumPy ints and floats; for tensors use "
                                 "torch.maximum/torch.minimum")
    if isinstance(a, _FLOAT_TYPES) or isinstance(b, _FLOAT_TYPES):
        return builtins.float(pick(a, b))
    return pick(a, b)


def sym_not(a) -> bool:
    """``not a`` (a one-element tensor counts by its value, as ``bool(tensor)``)."""
    return not a


def sym_sqrt(a) -> float:
    """``math.sqrt(a)``, a float (ValueError for a negative number, as Python's)."""
    return math.sqrt(a)


def sym_sum(*args):
    """The sum of numbers (or tensors), given as ``sym_sum([a, b, c])`` or
    ``sym_sum(a, b, c)``: ``sum(...)``, so 0 for none."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def sym_ite(b, t, f):
    """``t if b else f``, for a bool ``b`` and ``t`` and ``f`` of one type.

    Raises:
        AssertionError: ``b`` is not a bool (an int or a tensor neither), or ``t`` and
            ``f`` have different types, as in PyTorch.
    """
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}; pass bool(condition)")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}; give both branches one "
                             "type (e.g. float(t), float(f))")
    return t if b else f
