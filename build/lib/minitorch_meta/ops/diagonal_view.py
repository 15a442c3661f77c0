"""``diagonal`` (a strided view of a diagonal) and ``diag_embed`` (its inverse, a copy).

A diagonal of dims ``(d1, d2)`` steps ``stride[d1] + stride[d2]`` elements from one
element to the next, so ``diagonal_view`` is one ``as_strided`` view, started at the
diagonal's first element: writes through it reach the input, as PyTorch's view does.
``diag_embed`` writes its input through that same view into zeros, and each op's
backward is the other's forward.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function


def diagonal_length(rows: int, cols: int, offset: int) -> int:
    """How many elements the ``offset``-th diagonal of a ``(rows, cols)`` matrix holds
    (``offset`` > 0: above the main diagonal; 0 when it lies outside the matrix)."""
    return max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))


def diagonal_axes(op: str, ndim: int, dim1: int, dim2: int) -> tuple:
    """``dim1`` and ``dim2`` normalised against ``ndim`` dims.

    Raises:
        IndexError for a dim out of range; RuntimeError when both name one dim.
    """
    axis1 = shapes.normalize_dim(op, dim1, ndim)
    axis2 = shapes.normalize_dim(op, dim2, ndim)
    if axis1 == axis2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return axis1, axis2


def diagonal_shape(shape: tuple, offset: int, axis1: int, axis2: int) -> tuple:
    """The other dims in order, then the diagonal's length (PyTorch's layout)."""
    rest = tuple(s for d, s in enumerate(shape) if d not in (axis1, axis2))
    return rest + (diagonal_length(shape[axis1], shape[axis2], offset),)


def diagonal_view(backend, a, offset: int, axis1: int, axis2: int):
    """A view of ``a``'s ``offset``-th diagonal over ``axis1`` (rows) and ``axis2``
    (columns), of shape ``diagonal_shape``: writing into it writes into ``a``."""
    out_shape = diagonal_shape(a.shape, offset, axis1, axis2)
    start = [slice(None)] * a.ndim
    if out_shape[-1]:  # otherwise the start may lie past the end; nothing is read anyway
        start[axis1], start[axis2] = slice(max(0, -offset), None), slice(max(0, offset), None)
    first = backend.getitem(a, tuple(start))
    strides = backend.strides(first)
    out_strides = tuple(s for d, s in enumerate(strides) if d not in (axis1, axis2))
    return backend.as_strided(first, out_shape, out_strides + (strides[axis1] + strides[axis2],))


class Diagonal(Function):
    """The ``offset``-th diagonal of the matrices over dims ``dim1`` (rows) and ``dim2``
    (columns), as a view (``offset`` > 0: above the main diagonal).

    Shape:
        the input's shape without ``dim1`` and ``dim2``, then the diagonal's length:
        ``(2, 3, 4)``, ``dim1=1, dim2=2`` -> ``(2, 3)``.

    Raises:
        IndexError for a dim out of range (a 0-d or 1-d input has no two dims);
        RuntimeError when ``dim1`` and ``dim2`` are one dim.
    """

    op_name, backward_name = "diagonal", "DiagonalBackward0"
    is_view = True
    offset, dim1, dim2 = 0, 0, 1

    def infer(self, x):
        shape = tuple(x._data.shape)
        self.axes = diagonal_axes(self.op_name, len(shape), self.dim1, self.dim2)
        return diagonal_shape(shape, self.offset, *self.axes), x._dtype

    def forward(self, backend, x):
        return diagonal_view(backend, x, self.offset, *self.axes)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        gx = backend.full(tuple(shape), 0, dtype)
        backend.setitem(diagonal_view(backend, gx, self.offset, *self.axes), Ellipsis, gy)
        return (gx,)

    def backward_graph(self, grad):
        from .view_scatter import DiagonalScatter  # it imports this module

        shape, dtype = self.input_specs[0]
        zeros = self.constant(self.backend.full(tuple(shape), 0, dtype))
        return (DiagonalScatter(offset=self.offset, dim1=self.dim1, dim2=self.dim2)(zeros, grad),)


class DiagEmbed(Function):
    """Zero matrices over the new dims ``dim1`` and ``dim2`` whose ``offset``-th diagonal
    holds the input's last dim (``diagonal``'s inverse).

    Shape:
        the input's shape without its last dim ``n``, with two dims of ``n + |offset|``
        inserted at ``dim1`` and ``dim2`` (counted among the output's dims):
        ``(2, 3)`` -> ``(2, 3, 3)``.

    Raises:
        IndexError for a dim out of range; RuntimeError when ``dim1`` and ``dim2`` are one
        dim.
    """

    op_name, backward_name = "diag_embed", "DiagEmbedBackward0"
    offset, dim1, dim2 = 0, -2, -1

    def infer(self, x):
        shape = tuple(x._data.shape)
        self.axes = diagonal_axes(self.op_name, len(shape) + 1, self.dim1, self.dim2)
        size = shape[-1] + abs(self.offset)  # a 0-d input failed the dims' check
        out = list(shape[:-1])
        for axis in sorted(self.axes):
            out.insert(axis, size)
        self.out_shape = tuple(out)
        return self.out_shape, x._dtype

    def forward(self, backend, x):
        out = backend.full(self.out_shape, 0, dtypes.from_numpy(x.dtype))
        backend.setitem(diagonal_view(backend, out, self.offset, *self.axes), Ellipsis, x)
        return out

    def backward(self, backend, gy):
        return (backend.copy(diagonal_view(backend, gy, self.offset, *self.axes)),)

    def backward_graph(self, grad):
        return (Diagonal(offset=self.offset, dim1=self.dim1, dim2=self.dim2)(grad),)
