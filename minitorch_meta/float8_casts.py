"""Conversions into and out of the 8-bit float dtypes, bit for bit as PyTorch's CPU makes them.

The arrays are ``ml_dtypes``' NumPy dtypes, whose own casts round to nearest-even as
PyTorch's do, but treat the edges differently. PyTorch 2.13 (measured):

- ``float8_e4m3fn`` saturates: a finite value beyond ±448, and ±inf, become ±448 (ml_dtypes
  makes NaN); NaN keeps its sign (``0x7f`` or ``0xff``).
- ``float8_e5m2`` overflows to ±inf, as ml_dtypes; NaN is ``0x7f`` with the NaN's sign
  (ml_dtypes writes ``0x7e``).
- ``float8_e4m3fnuz`` and ``float8_e5m2fnuz``: as ml_dtypes (inf, NaN and overflow are the
  one NaN ``0x80``; -0.0 is 0.0).
- ``float8_e8m0fnu`` (a power of two, ``2 ** (bits - 127)``) keeps the float32 exponent and
  rounds the magnitude to nearest (ties to even, of the implicit bit), ignoring the sign;
  0.0 becomes ``2 ** -127`` (bits 0), inf and NaN the NaN ``0xff`` (ml_dtypes makes NaN of
  zero and of every negative number).

Every source goes through float32 first (an int64, a float64 or another float8), as
PyTorch's conversion does, so a float64 near a midpoint rounds twice, as there.

Out of a float8, values are exact in float32; PyTorch's NaNs carry its own payloads
(``float8_e4m3fn``'s NaN is ``0x7ff00000``, a fnuz NaN ``0x7f800001``), read from a table
of the 256 values, and float16 gets them as the CPU's hardware narrowing makes them (quiet,
the top fraction bits kept). Other dtypes take the float32 value through NumPy.
"""

from __future__ import annotations

import numpy as np

from . import dtypes

_SIGN8 = np.uint8(0x80)
_FLOAT8_NUMPY = frozenset(d.numpy for d in dtypes.FLOAT8)
#: The float8 dtypes whose NaN PyTorch converts to the integer 0 (the others' NaN, as a
#: float32 NaN, becomes the integer dtype's smallest value, or 0 in a 1-byte one)
_NAN_TO_ZERO = frozenset({dtypes.float8_e4m3fnuz, dtypes.float8_e5m2fnuz,
                          dtypes.float8_e8m0fnu})


def is_float8(array_dtype) -> bool:
    """Whether a NumPy dtype is one of the float8 ones (ml_dtypes' kinds vary: "V" for most,
    "f" for float8_e5m2)."""
    return array_dtype in _FLOAT8_NUMPY


def to_float8(a: np.ndarray, target: dtypes.dtype) -> np.ndarray:
    """The NumPy array ``a`` (any real dtype, float8 ones included) converted to the float8
    dtype ``target`` by PyTorch's rules (module docstring)."""
    single = _as_float32(a)
    if target is dtypes.float8_e8m0fnu:
        return _to_e8m0(single)
    with np.errstate(over="ignore", invalid="ignore"):  # the edges are fixed below
        out = single.astype(target.numpy)
    if target is dtypes.float8_e4m3fn:
        bits = out.view(np.uint8)
        overflowed = ((bits & 0x7F) == 0x7F) & ~np.isnan(single)
        bits[overflowed] = (bits[overflowed] & _SIGN8) | np.uint8(0x7E)  # ±448
    elif target is dtypes.float8_e5m2:
        bits = out.view(np.uint8)
        nan = np.isnan(single)
        bits[nan] = _sign_bits(single[nan]) | np.uint8(0x7F)
    return out


def from_float8(a: np.ndarray, source: dtypes.dtype, target: dtypes.dtype) -> np.ndarray:
    """The float8 array ``a`` (of dtype ``source``) converted to ``target`` as PyTorch does:
    to float32 exactly, with PyTorch's NaN payloads, then on to ``target``."""
    single = _FLOAT32_TABLES[source][a.view(np.uint8)]
    if target is dtypes.float32:
        return single
    if target in dtypes.FLOAT8:
        return to_float8(single, target)
    if target is dtypes.float16:
        return _to_float16(single)
    if target is dtypes.bfloat16:  # PyTorch's NaN there is 0x7fc0, whatever the sign
        return np.where(np.isnan(single), np.float32(np.nan), single).astype(target.numpy)
    if source in _NAN_TO_ZERO and target.numpy.kind in "iu":
        single = np.where(np.isnan(single), np.float32(0), single)
    with np.errstate(invalid="ignore"):  # NaN and inf to an integer: as NumPy and PyTorch
        return single.astype(target.numpy)


def float8_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The product of two float8 arrays of one dtype, as PyTorch's CPU kernel makes it: in
    float32, rounded once to the dtype by PyTorch's rules."""
    d = dtypes.from_numpy(a.dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # inf * 0 is NaN, as in PyTorch
        product = _as_float32(a) * _as_float32(b)
    return to_float8(product, d)


def rounded_scalar(value, target: dtypes.dtype):
    """The number ``value`` as a NumPy scalar of the float8 dtype ``target``, rounded by
    PyTorch's rules (a 0-d tensor's ``.item()`` first)."""
    if hasattr(value, "_data"):
        value = value.item()
    return to_float8(np.asarray(value), target)[()]


def _as_float32(a: np.ndarray) -> np.ndarray:
    if is_float8(a.dtype):
        return from_float8(a, dtypes.from_numpy(a.dtype), dtypes.float32)
    if a.dtype.kind == "c":
        a = a.real
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(a, dtype=np.float32)


def _sign_bits(single: np.ndarray) -> np.ndarray:
    return ((single.view(np.uint32) >> 24) & 0x80).astype(np.uint8)


def _to_e8m0(single: np.ndarray) -> np.ndarray:
    """float32 -> float8_e8m0fnu: the exponent field, rounded up when the fraction's top bit
    is set and either a lower bit is set or the value is normal (ties to even, where the
    implicit bit is the last kept one); an exponent of 255 (inf, NaN) stays the NaN."""
    bits = single.view(np.uint32)
    exponent = (bits >> 23) & 0xFF
    half = (bits & 0x400000) != 0
    below = (bits & 0x3FFFFF) != 0
    up = half & (below | (exponent > 0)) & (exponent < 255)
    return (exponent + up).astype(np.uint8).view(dtypes.float8_e8m0fnu.numpy)


def _to_float16(single: np.ndarray) -> np.ndarray:
    """float32 -> float16 with the NaNs an x86 CPU's conversion makes: quiet, with the top
    10 fraction bits (NumPy's own makes ``0x7c01`` of a signalling NaN such as ``0x7f800001``)."""
    with np.errstate(over="ignore"):  # beyond float16's range is inf, as in PyTorch
        half = single.astype(np.float16)
    nan = np.isnan(single)
    if nan.any():
        bits = single[nan].view(np.uint32)
        sign = (bits >> 16) & 0x8000
        half.view(np.uint16)[nan] = (sign | 0x7E00 | ((bits >> 13) & 0x3FF)).astype(np.uint16)
    return half


def _float32_table(d: dtypes.dtype) -> np.ndarray:
    """The float32 value of each of the 256 bit patterns of ``d``, NaNs as PyTorch's."""
    patterns = np.arange(256, dtype=np.uint8)
    table = patterns.view(d.numpy).astype(np.float32)
    bits = table.view(np.uint32)
    nan = np.isnan(table)
    sign = np.where(patterns >= 0x80, np.uint32(0x80000000), np.uint32(0))
    if d is dtypes.float8_e4m3fn:
        bits[nan] = sign[nan] | 0x7FF00000
    elif d is dtypes.float8_e5m2:
        # PyTorch widens the byte as float16's top half, which the CPU makes quiet
        fraction = (patterns.astype(np.uint32) & 0x3) << 21
        bits[nan] = sign[nan] | 0x7FC00000 | fraction[nan]
    else:  # the fnuz NaN 0x80 and e8m0's 0xff: a signalling NaN of payload 1
        bits[nan] = 0x7F800001
    if d is dtypes.float8_e8m0fnu:
        bits[0] = 0x00400000  # 2 ** -127, a float32 subnormal (ml_dtypes gives the same)
    return table


_FLOAT32_TABLES = {d: _float32_table(d) for d in dtypes.FLOAT8}
