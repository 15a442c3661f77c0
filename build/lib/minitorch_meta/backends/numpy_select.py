"""``where`` for NumPy without a branch per element.

``np.where`` picks each element with a branch, so a condition that is true about half the
time at random (relu's backward: where the output is nonzero) mispredicts often. Measured
here on 1.2M float32 values with such a condition: 4.4 ms, against 0.25 ms for the
product ``gy * (out != 0)``. The product is not a select, though: an infinite or NaN
gradient times a zero mask gives NaN where PyTorch's select gives 0.

So the select runs on the values' bits: the condition becomes an integer mask of all ones
or all zeros, and ``(a & mask) | (b & ~mask)`` picks ``a`` or ``b`` bit for bit (NaN
payloads and signed zeros included), in SIMD loops with no branch. ``np.where`` keeps the
small arrays (its per-call cost is lower) and the cases this cannot take (bool or mixed
results, object arrays).
"""

from __future__ import annotations

import numpy as np

# Below this many elements, np.where's single call is cheaper than the bit passes.
MIN_ELEMENTS = 4096

# The signed integer of each width: -1 is all ones, so ``-condition`` is the mask.
_MASK_TYPES = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def branchless_where(condition, a, b):
    """``np.where(condition, a, b)``: the same result, bit for bit, and the same dtype."""
    if not _takes_bit_path(condition, a, b):
        return np.where(condition, a, b)
    dtype = np.result_type(a, b)
    mask_type = _MASK_TYPES[dtype.itemsize]
    shape = np.broadcast_shapes(np.shape(condition), np.shape(a), np.shape(b))
    mask = np.broadcast_to(condition, shape).astype(mask_type)
    np.negative(mask, out=mask)  # 1 -> all ones, 0 -> 0
    chosen = np.bitwise_and(_bits(a, dtype, mask_type), mask)
    b_bits = _bits(b, dtype, mask_type)
    if b_bits.ndim > 0 or b_bits != 0:  # a zero of all-zero bits (+0) needs no pass
        np.invert(mask, out=mask)
        np.bitwise_and(b_bits, mask, out=mask)
        np.bitwise_or(chosen, mask, out=chosen)
    return chosen.view(dtype)


def _takes_bit_path(condition, a, b) -> bool:
    if not (isinstance(condition, np.ndarray) and condition.dtype == np.bool_):
        return False
    if not any(isinstance(v, np.ndarray) for v in (a, b)):
        return False
    dtype = np.result_type(a, b)
    if dtype.kind not in "fiu" or dtype.itemsize not in _MASK_TYPES:
        return False
    shape = np.broadcast_shapes(np.shape(condition), np.shape(a), np.shape(b))
    return int(np.prod(shape)) >= MIN_ELEMENTS


def _bits(value, dtype, mask_type):
    """``value`` in ``dtype`` (a Python number or an array), seen as integers of its width."""
    return np.asarray(value, dtype=dtype).view(mask_type)
