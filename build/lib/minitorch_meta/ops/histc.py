"""``histc``: a histogram of equal-width bins between ``min`` and ``max``.

PyTorch's rules: ``min == max`` (both 0 by default) means the data's own range, and a
range of one point is widened by 1 on each side; elements outside the range, and NaN,
are not counted; the last bin includes its right edge. An element's bin is computed as
PyTorch's CPU kernel does, in the input's dtype: ``trunc((x - min) * bins / (max - min))``,
so an element on a bin edge lands where PyTorch puts it. The counting is one
``index_add`` into ``bins + 1`` slots, the last one collecting the uncounted elements.
The output is counts: no gradient (PyTorch has none either).
"""

from __future__ import annotations

import math

from .. import dtypes
from .function import Function


class Histc(Function):
    """How many elements of the input fall into each of ``bins`` equal-width bins over
    ``[min, max]``, in the input's floating-point dtype.

    Shape:
        ``(bins,)``, the input's dtype.

    Raises:
        NotImplementedError for an input that is not floating-point; RuntimeError for
        ``bins < 1``, a range that is not finite, or ``max < min``.
    """

    op_name, backward_name, differentiable = "histc", "HistcBackward0", False
    bins, min, max = 100, 0.0, 0.0

    def infer(self, x):
        if not x._dtype.is_floating_point:
            raise NotImplementedError(f"histc: not implemented for {x._dtype} input; it bins "
                                      "floating-point values (convert with .float())")
        if self.bins <= 0:
            raise RuntimeError(f"histc: bins must be > 0, but got {self.bins}")
        if self.min != self.max:  # else the range is the data's: checked in forward
            check_range(self.min, self.max)
        return (self.bins,), x._dtype

    def forward(self, backend, x):
        low, high = float(self.min), float(self.max)
        if low == high and x.size:  # the data's range (a read of two numbers)
            low = float(backend.to_numpy(backend.min(x, None, False)))
            high = float(backend.to_numpy(backend.max(x, None, False)))
        if low == high:
            low, high = low - 1, high + 1
        check_range(low, high)
        scalar = x.dtype.type  # edges and arithmetic in the input's dtype, as PyTorch's
        left, right = scalar(low), scalar(high)
        counted = backend.binary("logical_and", backend.binary("ge", x, left),
                                 backend.binary("le", x, right))
        position = backend.binary("div", backend.binary("mul", backend.binary("sub", x, left),
                                                        scalar(self.bins)), right - left)
        # Zero where not counted, so that NaN is never cast to an integer.
        position = backend.astype(backend.where(counted, position, scalar(0)), dtypes.int64)
        slot = backend.where(counted, backend.binary("minimum", position, self.bins - 1),
                             self.bins)
        out_dtype = dtypes.from_numpy(x.dtype)
        counts = backend.index_add((self.bins + 1,), slot,
                                   backend.full(x.shape, 1, out_dtype), out_dtype)
        return backend.copy(backend.getitem(counts, slice(0, self.bins)))


def check_range(low: float, high: float) -> None:
    """The histogram's range is finite and not reversed."""
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"histc: range of [{low:g}, {high:g}] is not finite; give a finite "
                           "min and max (the data's own range holds inf or NaN)")
    if not low < high:
        raise RuntimeError(f"histc: max must be larger than min, but got min={low:g} and "
                           f"max={high:g}")
