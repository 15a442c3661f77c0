"""``finfo`` and ``iinfo``: the numerical limits of a dtype, as PyTorch's.

``torch.finfo(torch.float32).eps``, ``.tiny`` and ``.resolution`` are derived from the
IEEE 754 layout of each float width, and the ranges come from ``_finite_range`` (the one
the clamp bounds are checked against), so nothing here asks an array library.
"""

from __future__ import annotations

import math

from . import dtypes
from .ops.elementwise import _finite_range

#: significand bits (without the implicit one) and exponent bits of each float width
_IEEE_LAYOUT = {2: (10, 5), 4: (23, 8), 8: (52, 11)}
#: bfloat16: float32's exponent with 7 fraction bits (the other 2-byte float)
_BFLOAT16_LAYOUT = (7, 8)


def _dtype_argument(function: str, dtype) -> dtypes.dtype:
    if not isinstance(dtype, dtypes.dtype):
        raise TypeError(f"{function}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    return dtype


class finfo:  # noqa: N801 - PyTorch's name
    """The limits of a floating-point dtype (the default dtype, float32, when none is given).

    Attributes: ``bits``, ``eps`` (the gap between 1 and the next float), ``max``, ``min``
    (``-max``), ``tiny`` and ``smallest_normal`` (the smallest positive normal number),
    ``resolution`` (``10 ** -precision``, the decimal digits the type keeps) and ``dtype``
    (the dtype's name, a string, as in PyTorch).

    A complex dtype has the limits of its parts (``finfo(torch.complex64)`` is float32's),
    as in PyTorch.

    Raises:
        TypeError for a dtype that is not floating-point, or an argument that is no dtype.
    """

    def __init__(self, type=None):  # noqa: A002 - PyTorch's name
        dtype = dtypes.get_default_dtype() if type is None else _dtype_argument("finfo", type)
        dtype = dtype.to_real()
        if not dtype.is_floating_point:
            raise TypeError(f"torch.finfo() requires a floating point input type, got {dtype}. "
                            "Use torch.iinfo to handle integer types")
        if dtype in dtypes.FLOAT8:
            self._float8(dtype)
            return
        fraction, exponent = (_BFLOAT16_LAYOUT if dtype is dtypes.bfloat16
                              else _IEEE_LAYOUT[dtype.itemsize])
        max_exponent = 2 ** (exponent - 1) - 1
        self.bits = 8 * dtype.itemsize
        self.eps = 2.0 ** -fraction
        self.min, self.max = _finite_range(dtype)
        self.tiny = self.smallest_normal = 2.0 ** (1 - max_exponent)
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = dtype.name

    def _float8(self, dtype) -> None:
        """PyTorch's numbers of an 8-bit float (``dtypes.FLOAT8_LIMITS``)."""
        self.bits = 8
        self.eps, self.max, self.min, self.tiny = dtypes.FLOAT8_LIMITS[dtype]
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = dtype.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801 - PyTorch's name
    """The limits of an integer dtype: ``bits``, ``min``, ``max`` and ``dtype`` (its name).

    Raises:
        TypeError for a floating-point or bool dtype, or an argument that is no dtype.
    """

    def __init__(self, type):  # noqa: A002 - PyTorch's name
        dtype = _dtype_argument("iinfo", type)
        if dtype is dtypes.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if dtype.is_floating_point or dtype.is_complex:
            raise TypeError(f"torch.iinfo() requires an integer input type, got {dtype}. "
                            "Use torch.finfo to handle floating-point types")
        self.bits = 8 * dtype.itemsize
        self.min, self.max = _finite_range(dtype)
        self.dtype = dtype.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
