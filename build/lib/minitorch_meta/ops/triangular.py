"""``tril`` and ``triu``: the lower or upper triangle of each matrix, zeros elsewhere.

One boolean mask over the last two dimensions, from two ``arange``\\ s, chooses with the
``where`` kernel; backward chooses the gradient with the same mask, rebuilt from the
shape rather than saved (it costs one small comparison, and keeps no memory alive).
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function


class Tril(Function):
    """The elements on and below the ``diagonal``-th diagonal of each matrix in the last
    two dims (0: the main diagonal; positive: above it; negative: below it); zeros
    elsewhere.

    Shape:
        the input's shape, ``(*, H, W)`` with at least two dims.

    Raises:
        RuntimeError for an input with fewer than two dims.
    """

    op_name, backward_name = "tril", "TrilBackward0"
    diagonal = 0
    #: the comparison of ``column - row`` with ``diagonal`` that keeps an element
    keep_when = "le"

    def infer(self, x):
        shape = x._data.shape
        if len(shape) < 2:
            raise RuntimeError(f"{self.op_name}: input tensor must have at least 2 dimensions, "
                               f"but got a {len(shape)}-D tensor of shape {shapes.fmt(shape)}")
        return tuple(shape), x._dtype

    def forward(self, backend, x):
        return backend.where(self._kept(backend, x.shape), x, x.dtype.type(0))

    def backward(self, backend, gy):
        return (backend.where(self._kept(backend, gy.shape), gy, gy.dtype.type(0)),)

    def backward_graph(self, grad):
        return (type(self)(diagonal=self.diagonal)(grad),)  # it keeps what forward kept

    def _kept(self, backend, shape):
        """A bool (H, W) mask, True at the elements the triangle keeps."""
        rows, cols = shape[-2:]
        row = backend.reshape(backend.arange(0, rows, 1, dtypes.int64), (rows, 1))
        col = backend.arange(0, cols, 1, dtypes.int64)
        return backend.binary(self.keep_when, backend.binary("sub", col, row), self.diagonal)


class Triu(Tril):
    """The elements on and above the ``diagonal``-th diagonal of each matrix in the last two
    dims (0: the main diagonal; positive: above it; negative: below it); zeros elsewhere.

    Shape:
        the input's shape, ``(*, H, W)`` with at least two dims.

    Raises:
        RuntimeError for an input with fewer than two dims.
    """

    op_name, backward_name = "triu", "TriuBackward0"
    keep_when = "ge"
