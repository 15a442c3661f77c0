"""``diag`` and ``trace``: a matrix's diagonal, read out or written in.

Both index the diagonal with one pair of ``arange`` index arrays (rows, columns). Reading
is a gather (``getitem``); writing, and each backward of a read, is a write into zeros
(``setitem``): a diagonal holds each position once, so no scatter-add is needed.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .diagonal_view import diagonal_length
from .function import Function
from .selection_graph import picked, placed


class Diag(Function):
    """A vector's elements on the ``diagonal``-th diagonal of a square zero matrix, or a
    matrix's ``diagonal``-th diagonal as a vector (0: the main one; positive: above it;
    negative: below it). A copy in both directions.

    Shape:
        ``(n,) -> (n + |k|, n + |k|)``; ``(H, W) -> (L,)`` where ``L`` is the diagonal's
        length, ``min(H, W - k)`` for ``k >= 0`` and ``min(H + k, W)`` below (0 when it
        lies outside the matrix).

    Raises:
        RuntimeError for an input that is neither 1-D nor 2-D.
    """

    op_name = "diag"
    diagonal = 0

    @property
    def backward_name(self):
        # PyTorch's diag is diag_embed for a vector and a diagonal copy for a matrix
        embeds = len(self.input_specs[0][0]) == 1
        return "DiagEmbedBackward0" if embeds else "DiagonalBackward0_copy"

    def infer(self, x):
        shape, k = tuple(x._data.shape), self.diagonal
        if len(shape) == 1:
            self.length = shape[0]
            n = shape[0] + abs(k)
            out = (n, n)
        elif len(shape) == 2:
            rows, cols = shape
            self.length = diagonal_length(rows, cols, k)
            out = (self.length,)
        else:
            raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {len(shape)}D (shape "
                               f"{shapes.fmt(shape)}); index or flatten it to a vector or a "
                               "matrix first")
        self.out_shape = out
        return out, x._dtype

    def forward(self, backend, x):
        index = diagonal_index(backend, self.length, self.diagonal)
        if x.ndim == 2:
            return backend.getitem(x, index)
        return place(backend, self.out_shape, index, x)

    def backward(self, backend, gy):
        shape = tuple(self.input_specs[0][0])
        index = diagonal_index(backend, self.length, self.diagonal)
        if len(shape) == 1:
            return (backend.getitem(gy, index),)
        return (place(backend, shape, index, gy),)

    def backward_graph(self, grad):
        shape, dtype = self.input_specs[0]
        index = diagonal_index(self.backend, self.length, self.diagonal)
        if len(shape) == 1:
            return (picked(self, grad, index),)
        return (placed(self, grad, index, shape, dtype),)


class Trace(Function):
    """The sum of a matrix's main diagonal; integers sum to int64, as ``sum`` does.

    Shape:
        ``(H, W) -> ()``.

    Raises:
        RuntimeError for an input that is not 2-D; NotImplementedError for a bool one
        (PyTorch has no bool trace).
    """

    op_name, backward_name = "trace", "TraceBackward0"

    def infer(self, x):
        shape = x._data.shape
        if len(shape) != 2:
            raise RuntimeError(f"trace: expected a matrix, but got tensor with dim "
                               f"{len(shape)} (shape {shapes.fmt(shape)})")
        if x._dtype is dtypes.bool_:
            raise NotImplementedError("\"trace\" not implemented for 'Bool'; convert the "
                                      "input first, e.g. with .int()")
        self.length = min(shape)
        self.out_dtype = x._dtype if x._dtype.is_floating_point else dtypes.int64
        return (), self.out_dtype

    def forward(self, backend, x):
        on_diagonal = backend.getitem(x, diagonal_index(backend, self.length, 0))
        total = backend.asarray(backend.sum(on_diagonal, None, False), None)
        return backend.astype(total, self.out_dtype)

    def backward(self, backend, gy):
        shape = tuple(self.input_specs[0][0])
        return (place(backend, shape, diagonal_index(backend, self.length, 0), gy),)

    def backward_graph(self, grad):
        shape, dtype = self.input_specs[0]
        index = diagonal_index(self.backend, self.length, 0)
        return (placed(self, grad.expand(self.length), index, shape, dtype),)


def diagonal_index(backend, length: int, offset: int) -> tuple:
    """``(rows, cols)`` int64 index arrays of the ``offset``-th diagonal's ``length``
    elements (``offset`` > 0: above the main diagonal)."""
    row, col = max(0, -offset), max(0, offset)
    return (backend.arange(row, row + length, 1, dtypes.int64),
            backend.arange(col, col + length, 1, dtypes.int64))


def place(backend, shape: tuple, index: tuple, values):
    """Zeros of ``shape`` in ``values``' dtype, with ``values`` written at ``index``."""
    out = backend.full(shape, 0, dtypes.from_numpy(values.dtype))
    backend.setitem(out, index, values)
    return out
