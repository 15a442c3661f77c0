"""``var`` and ``std``, and what ``var_mean``/``std_mean`` share with them: PyTorch's three
ways of asking (``var(x, dim, correction=c)``, ``var(x, dim, unbiased, keepdim)`` and
``var(x, unbiased)``), every dim for ``dim`` None or empty, and the warning when the
correction leaves no degrees of freedom.

The variance is a composition (``mean``, ``sub``, ``mul``, ``sum``, ``div``) whose last node
bears PyTorch's name (``VarBackward0``).
"""

from __future__ import annotations

import math

from .caller_warnings import warn_at_caller


def var(input, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction=None):
    """The variance over ``dim`` (an int or a sequence of ints; None or empty: every
    element) with Bessel's ``correction`` (1 by default; ``unbiased=False`` is
    ``correction=0``). ``var(input, unbiased)`` (a bool second argument) works too.

    Shape:
        the input's shape without the reduced dims (kept as 1 with ``keepdim``).

    Raises:
        TypeError when both ``unbiased`` and ``correction`` are given. Warns (UserWarning)
        when ``correction`` is at least the number of elements reduced: the result is then
        inf or nan, as in PyTorch.
    """
    from .functions import _composed

    dim, correction = spread_arguments("var", dim, unbiased, correction)
    return _composed(variance("var", input, dim, keepdim, correction), "VarBackward0", input)


def std(input, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction=None):
    """The standard deviation, ``sqrt(var(...))``, with ``var``'s arguments.

    Shape:
        the input's shape without the reduced dims (kept as 1 with ``keepdim``).
    """
    from .functions import _composed, sqrt

    dim, correction = spread_arguments("std", dim, unbiased, correction)
    return _composed(sqrt(variance("std", input, dim, keepdim, correction)), "StdBackward0", input)


def spread_arguments(op: str, dim, unbiased, correction) -> tuple:
    """``(dim, correction)`` from PyTorch's overloads: a bool ``dim`` is ``unbiased`` (the
    ``(input, unbiased)`` form), an empty ``dim`` is None (every dim), and the correction
    is 1, or 0 for ``unbiased=False``."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}(): pass either unbiased or correction, not both "
                        "(unbiased=False is correction=0)")
    if isinstance(dim, (tuple, list)) and not dim:
        dim = None
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dim, correction


def variance(op: str, input, dim, keepdim: bool, correction):
    """``sum(|x - mean|**2) / max(N - correction, 0)`` over ``dim`` (None: every element;
    real for a complex ``x``), ``N`` the number of elements reduced into each output. Warns
    as PyTorch does (naming ``op``) when ``N - correction <= 0``, at the user's line."""
    from .functions import add, div, mean, mul, sub, sum

    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        named = "std and var" if op in ("var", "std") else op
        raise RuntimeError(f"{named} only support floating point and complex dtypes, but got "
                           f"{input.dtype}; convert the input with .float()")
    centred = sub(input, mean(input, dim, keepdim=True))
    reduced = input.numel() if dim is None else _reduced_count(input, dim)
    _warn_without_freedom(op, input, reduced, correction)
    if input.dtype.is_complex:  # |z - mean|**2: a real variance, as PyTorch's
        squares = add(mul(centred.real, centred.real), mul(centred.imag, centred.imag))
    else:
        squares = mul(centred, centred)
    return div(sum(squares, dim, keepdim), max(reduced - correction, 0))


def _reduced_count(input, dim) -> int:
    """How many elements ``dim`` (one dimension or several, given and in range) spans."""
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return math.prod(input.shape[d] for d in dims)


def _warn_without_freedom(op: str, input, reduced: int, correction) -> None:
    # PyTorch counts the elements per output as input numel / output numel, which is 0
    # for an empty input: an empty input warns whatever its reduced dims.
    per_output = reduced if input.numel() else 0
    if per_output - correction <= 0:
        warn_at_caller(f"{op}(): degrees of freedom is <= 0. Correction should be strictly "
                       "less than the reduction factor (input numel divided by output numel).")
