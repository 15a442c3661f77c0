"""``isclose`` and ``allclose``: elementwise closeness with PyTorch's rules.

Equal elements are close whatever the tolerances (so ``inf`` is close to ``inf``); NaN is
close to NaN only with ``equal_nan``; otherwise ``|input - other| <= atol + rtol * |other|``
for a finite difference (for complex tensors, ``|.|`` is the modulus; an element with a
NaN part is NaN). Integer and bool inputs are compared in the default float dtype, as
PyTorch does.
"""

from __future__ import annotations

from . import dtypes
from .math_functions import _tensors, isfinite, isnan, logical_and, logical_or


def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False):
    """Whether each element of ``input`` is close to ``other`` (a bool tensor, broadcast).

    Raises:
        TypeError: an argument is not a Tensor.
        RuntimeError: the dtypes differ, or a tolerance is negative.
    """
    _tensors("isclose", input, other)
    if input.dtype is not other.dtype:
        names = dtypes.SCALAR_TYPE_NAMES
        raise RuntimeError(f"{names[input.dtype]} did not match {names[other.dtype]}: "
                           "isclose() compares tensors of one dtype; convert one with .to()")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value:g}")
    close = input == other
    inexact = input.is_floating_point() or input.is_complex()  # (complex: |z| distances)
    if equal_nan and inexact:
        close = logical_or(close, logical_and(isnan(input), isnan(other)))
    if rtol == 0 and atol == 0:
        return close
    if not inexact:
        default = dtypes.get_default_dtype()
        input, other = input.to(default), other.to(default)
    allowed = abs(other * rtol) + atol
    actual = abs(input - other)
    within = logical_and(isfinite(actual), actual <= allowed)
    return logical_or(close, within)


def allclose(input, other, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether every element of ``input`` is close to ``other`` (see ``isclose``)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())
