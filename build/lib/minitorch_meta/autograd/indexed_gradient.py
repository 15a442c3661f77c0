"""A gradient that is zero except where an index picks: what ``x[index]`` sends back to ``x``.

Written out, such a gradient is an array of ``x``'s size, mostly zeros. A backward through
``x.unbind(0)``, ``x.split(1)`` or a loop over ``x[k]`` would then make and sum ``n`` of
them: ``n`` times ``x``'s size. The engine instead adds each one into a single buffer in
place (``backend.accumulate``), and writes one out in full only when a node reads it.
"""

from __future__ import annotations


class IndexedGradient:
    """``values`` at ``index`` of an otherwise zero array of ``shape`` and ``dtype``."""

    __slots__ = ("index", "values", "shape", "dtype")

    def __init__(self, index, values, shape: tuple, dtype):
        self.index, self.values, self.shape, self.dtype = index, values, shape, dtype

    def dense(self, backend):
        """The gradient as a full array (a new one, owned by the caller)."""
        return backend.index_add(self.shape, self.index, self.values, self.dtype)

    def add_into(self, backend, buffer) -> None:
        """Add this gradient into ``buffer`` in place."""
        backend.accumulate(buffer, self.index, self.values)
