"""``unique``, ``unique_consecutive`` and ``bincount``: outputs whose size is the data's.

As with ``nonzero``, the caller first reads what the shape depends on (how many distinct
values or slices there are; the largest value to count) and hands it to the op as a
hyper-parameter; a meta tensor has no values, so that step raises
``DataDependentShapeError`` there, as PyTorch's meta refuses these ops.

``unique`` sorts with the stable ``argsort`` kernel (slices along ``dim`` in lexicographic
order: one stable sort per column, last column first) and marks where a run of equal
neighbours begins; ``unique_consecutive`` marks the same without sorting. The marks give
everything: the values (a boolean pick), the inverse (a running count of marks, put back
in the input's order) and the counts (the distance between marks). NaN is never equal to
itself, so each NaN is its own value, as in PyTorch. ``bincount`` is one ``index_add``.
None of them has a gradient; as in PyTorch, ``unique``'s values (not the inverse or the
counts) and ``bincount``'s weighted counts still have a graph node when the input (the
weights) requires grad, one that refuses backward.
"""

from __future__ import annotations

import math

from .. import dtypes
from ..errors import DataDependentShapeError
from . import shapes
from .function import Function

_INTEGERS = (dtypes.int64, dtypes.int32, dtypes.int16, dtypes.int8, dtypes.uint8)


def check_unique(op: str, x, dim) -> int | None:
    """``dim`` as an axis (None: the flattened input), after PyTorch's checks.

    Raises:
        IndexError for a dim out of range or a dim of a 0-d tensor; RuntimeError when
        another dim than ``dim`` has size 0 (no slice would have elements).
    """
    shape = tuple(x._data.shape)
    if dim is None:
        return None
    if not shape:
        raise IndexError(f"{op}(): Dimension specified as {dim} but tensor has no dimensions; "
                         "use dim=None for a 0-d tensor")
    axis = shapes.normalize_dim(op, dim, len(shape))
    if any(size == 0 for d, size in enumerate(shape) if d != axis):
        raise RuntimeError(f"{op}(): There are 0 sized dimensions, and they aren't selected, so "
                           f"unique cannot be applied (input of shape {shapes.fmt(shape)}, "
                           f"dim {dim})")
    return axis


def plan_unique(op: str, x, axis: int | None, consecutive: bool) -> tuple:
    """``(count, order, first)``: how many distinct values (or slices along ``axis``) ``x``
    holds, the order that sorts them (None when ``consecutive``), and a bool vector that
    is True where a run of equal neighbours begins in that order.

    Raises:
        DataDependentShapeError on a backend without data (meta).
    """
    backend = x._backend
    if not backend.stores_data:
        raise DataDependentShapeError(
            f"{op}: the number of distinct values of a meta tensor (shape "
            f"{tuple(x._data.shape)}) is unknown, so the output's size is too (it depends on "
            f"the values); PyTorch's meta refuses {op} as well. Run it on a real device")
    rows = as_rows(backend, x._data, axis)
    order = None if consecutive else lexicographic_order(backend, rows)
    ordered = rows if order is None else backend.getitem(rows, order)
    n = rows.shape[0]
    first = backend.full((n,), True, dtypes.bool_)
    if n > 1:
        differs = backend.binary("ne", backend.getitem(ordered, slice(1, None)),
                                 backend.getitem(ordered, slice(0, -1)))
        backend.setitem(first, slice(1, None), backend.max(differs, 1, False))
    count = int(backend.to_numpy(backend.sum(first, None, False)))
    return count, order, first


def as_rows(backend, x, axis: int | None):
    """``x`` as a 2-D array with one row per element (``axis`` None) or per slice along
    ``axis``, the slice flattened."""
    if axis is None:
        return backend.reshape(x, (x.size, 1))
    others = tuple(d for d in range(x.ndim) if d != axis)
    moved = backend.transpose(x, (axis,) + others)
    return backend.reshape(moved, (x.shape[axis], math.prod(x.shape[d] for d in others)))


def lexicographic_order(backend, rows):
    """int64 positions that sort the rows of a 2-D array lexicographically (stable): one
    stable sort per column, last column first, each keeping the order of the ones after."""
    columns = rows.shape[1]
    order = backend.argsort(backend.getitem(rows, (slice(None), columns - 1)), 0, False)
    for c in reversed(range(columns - 1)):
        column = backend.getitem(rows, (order, c))
        order = backend.getitem(order, backend.argsort(column, 0, False))
    return order


class Unique(Function):
    """The distinct values (or slices along ``dim``) of the input, sorted (``consecutive``:
    one per run of equal neighbours, in the input's order), with the inverse (where each
    element or slice went) and the counts.

    ``count``, ``order`` and ``first`` come from ``plan_unique``.

    Shape:
        values ``(count,)`` for ``dim=None``, else the input's shape with ``count`` at
        ``dim``; the inverse has the input's shape (``dim=None``) or ``(size of dim,)``;
        the counts ``(count,)``. Inverse and counts are int64.
    """

    op_name, backward_name = "unique", "Unique2Backward0"
    multiple_outputs = True  # the values have a graph node; the inverse and counts none
    axis = None
    #: the ATen op named by the error of a backward through the values
    aten_name = "_unique2"

    @property
    def _name_parts(self) -> tuple:
        """``(backward_name, aten_name)`` as PyTorch's: ``dim`` calls another op."""
        if self.axis is None:
            return self.backward_name, self.aten_name
        return "UniqueDimBackward0", "unique_dim"

    def infer(self, x):
        shape = tuple(x._data.shape)
        if self.axis is None:
            values, inverse = (self.count,), shape
        else:
            values = shape[:self.axis] + (self.count,) + shape[self.axis + 1:]
            inverse = (shape[self.axis],)
        return [(values, x._dtype), (inverse, dtypes.int64), ((self.count,), dtypes.int64)]

    def forward(self, backend, x):
        rows = as_rows(backend, x, self.axis)
        n = rows.shape[0]
        ordered = rows if self.order is None else backend.getitem(rows, self.order)
        values = self._values(backend, x, backend.getitem(ordered, self.first))
        group = backend.binary("sub", backend.cumsum(backend.astype(self.first, dtypes.int64),
                                                     0), 1)
        if self.order is None:
            inverse = group
        else:
            inverse = backend.empty((n,), dtypes.int64)
            backend.setitem(inverse, self.order, group)
        inverse = backend.reshape(inverse, x.shape if self.axis is None else (n,))
        starts = backend.getitem(backend.arange(0, n, 1, dtypes.int64), self.first)
        ends = backend.full((self.count,), n, dtypes.int64)
        backend.setitem(ends, slice(0, -1), backend.getitem(starts, slice(1, None)))
        return values, inverse, backend.binary("sub", ends, starts)

    def backward(self, backend, grad):
        raise NotImplementedError(f"the derivative for '{self._name_parts[1]}' is not "
                                  "implemented.")

    def name(self) -> str:
        return self._name_parts[0]

    def _values(self, backend, x, picked):
        """The picked rows back in the input's layout, ``count`` along ``dim``."""
        if self.axis is None:
            return backend.reshape(picked, (self.count,))
        others = tuple(d for d in range(x.ndim) if d != self.axis)
        picked = backend.reshape(picked, (self.count,) + tuple(x.shape[d] for d in others))
        back = [0] * x.ndim
        for position, d in enumerate((self.axis,) + others):
            back[d] = position
        return backend.copy(backend.transpose(picked, tuple(back)))


class UniqueConsecutive(Unique):
    """``Unique`` without sorting: one value per run of equal neighbours."""

    op_name, backward_name = "unique_consecutive", "UniqueConsecutiveBackward0"
    aten_name = "unique_consecutive"

    @property
    def _name_parts(self) -> tuple:
        return self.backward_name, self.aten_name  # with a ``dim`` too


def check_bincount(x, weights, minlength: int):
    """The output dtype of ``bincount``, after PyTorch's checks.

    Raises:
        NotImplementedError for a float or bool input; RuntimeError for an input that is
        not 1-D, weights of another shape, or a negative ``minlength``.
    """
    if x._dtype not in _INTEGERS:
        raise NotImplementedError(f"bincount: not implemented for {x._dtype} input; it counts "
                                  "non-negative integers (convert with .long())")
    if x._data.ndim != 1:
        raise RuntimeError(f"bincount only supports 1-d non-negative integral inputs, but got "
                           f"an input of shape {shapes.fmt(x._data.shape)}")
    if weights is not None and tuple(weights._data.shape) != tuple(x._data.shape):
        raise RuntimeError(f"bincount: weights should be 1-d and have the same length as "
                           f"input, but got weights of shape {shapes.fmt(weights._data.shape)} "
                           f"for an input of shape {shapes.fmt(x._data.shape)}")
    if minlength < 0:
        raise RuntimeError(f"bincount: minlength should be >= 0, but got {minlength}")
    if weights is None:
        return dtypes.int64
    return weights._dtype if weights._dtype.is_floating_point else dtypes.float64


def bincount_length(x, minlength: int) -> int:
    """``max(largest value + 1, minlength)``, read from the data.

    Raises:
        DataDependentShapeError on meta; RuntimeError for a negative value.
    """
    backend = x._backend
    if not backend.stores_data:
        raise DataDependentShapeError(
            f"bincount: the largest value of a meta tensor (shape {tuple(x._data.shape)}) is "
            "unknown, so the output's size is too (minlength is only its least size); "
            "PyTorch's meta refuses bincount as well. Run it on a real device")
    if x._data.size == 0:
        return minlength
    low = int(backend.to_numpy(backend.min(x._data, None, False)))
    if low < 0:
        raise RuntimeError(f"bincount only supports 1-d non-negative integral inputs, but "
                           f"the input holds {low}")
    return max(int(backend.to_numpy(backend.max(x._data, None, False))) + 1, minlength)


class Bincount(Function):
    """How often each value ``0 .. length - 1`` occurs in a 1-D integer input, or the sum
    of the ``weights`` at its occurrences. ``length`` comes from ``bincount_length``.

    Shape:
        ``(length,)``; int64 without weights, else the weights' float dtype (float64 for
        integer or bool weights).
    """

    # PyTorch's weighted counts have a graph node that refuses backward
    op_name, backward_name = "bincount", "torch::autograd::NotImplemented"
    minlength = 0

    @property
    def _shown_edges(self) -> tuple:
        """PyTorch's node lists the weights only (the input is integers)."""
        return self._next_nodes[1:]

    def backward(self, backend, grad):
        raise RuntimeError("derivative for aten::bincount is not implemented")

    def infer(self, x, weights=None):
        self.out_dtype = check_bincount(x, weights, self.minlength)
        return (self.length,), self.out_dtype

    def forward(self, backend, x, weights=None):
        if weights is None:
            values = backend.full(x.shape, 1, dtypes.int64)
        else:
            values = backend.astype(weights, self.out_dtype)
        return backend.index_add((self.length,), backend.astype(x, dtypes.int64), values,
                                 self.out_dtype)
