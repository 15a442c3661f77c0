"""``sort`` and ``topk``: values along a dim in order, with the indices they came from.

``sort`` runs on ``argsort`` (stable: equal values keep their order, as with PyTorch's
``stable=True``; NaN counts as the largest value); ``topk`` on ``argtopk``, the first
``k`` of that order, found without sorting the whole dim when ``k`` is small. The values
are gathered with an advanced index built from the order, and backward writes the gradient
back through the same index, so it goes to the chosen positions only.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function
from .selection_graph import placed


class Sort(Function):
    """The elements along ``dim`` in ascending (or ``descending``) order, and their indices.

    Shape:
        both outputs have the input's shape; the indices are int64.
    """

    op_name, multiple_outputs = "sort", True
    saved_for_backward = ()  # backward reads only the order it made, as PyTorch saves indices
    dim, descending, stable = -1, False, None

    @property
    def backward_name(self):
        # PyTorch's ``sort(..., stable=...)`` is another overload, with another node name
        return "SortBackward0" if self.stable is None else "SortBackward1"

    def infer(self, x):
        shape = x._data.shape
        self.axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
        out = self.out_shape(shape)
        return [(out, x._dtype), (out, dtypes.int64)]

    def out_shape(self, shape) -> tuple:
        return tuple(shape)

    def forward(self, backend, x):
        if x.ndim == 0:  # one element: itself, at index 0 (PyTorch's 0-d result)
            return backend.copy(x), backend.full((), 0, dtypes.int64)
        order = self.order(backend, x)
        index = along_axis(backend, order, self.axis)
        if self.recording:
            self.index = index
        return backend.getitem(x, index), order

    def order(self, backend, x):
        """The indices that order ``x`` along the dim (as many as are kept)."""
        return backend.argsort(x, self.axis, self.descending)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        if not shape:
            return (gy,)
        # Each position is chosen at most once, so writing the gradient into place is exact
        # (and much faster than index_add's scatter-add of repeated indices).
        gx = backend.full(tuple(shape), 0, dtype)
        backend.setitem(gx, self.index, gy)
        return (gx,)

    def backward_graph(self, grad):
        shape, dtype = self.input_specs[0]
        if not shape:
            return (grad,)
        return (placed(self, grad, self.index, shape, dtype),)


class Topk(Sort):
    """The ``k`` largest (or smallest, ``largest=False``) elements along ``dim``, in order,
    and their indices. The values come out sorted whatever ``sorted`` says (PyTorch
    leaves the order unspecified then).

    Shape:
        the input's shape with ``k`` along ``dim``; the indices are int64.

    Raises:
        RuntimeError for ``k`` outside ``[0, size of dim]`` and for a bool input (PyTorch's
        CPU kernel has none); IndexError for a dim out of range.
    """

    op_name, backward_name = "topk", "TopkBackward0"
    largest, sorted = True, True

    def infer(self, x):
        if x._dtype is dtypes.bool_:
            raise RuntimeError("topk does not support bool dtypes; convert the input first, "
                               "e.g. with .int()")
        self.descending = self.largest
        return super().infer(x)

    def order(self, backend, x):
        # the first k of the stable order, without sorting the whole dim when k is small
        return backend.argtopk(x, self.axis, self.k, self.largest)

    def out_shape(self, shape) -> tuple:
        size = shape[self.axis] if shape else 1  # a 0-d tensor is one element
        if not 0 <= self.k <= size:
            raise RuntimeError(f"selected index k out of range: k={self.k}, but dimension "
                               f"{self.dim} of the input of shape {shapes.fmt(shape)} has "
                               f"{size} element(s)")
        if not shape:
            return ()
        return tuple(self.k if i == self.axis else s for i, s in enumerate(shape))


def along_axis(backend, order, axis: int) -> tuple:
    """The advanced index that picks ``a[..., order[...], ...]`` along ``axis`` (NumPy's
    ``take_along_axis``), from an int64 ``order``: broadcasting ranges over the other dims.
    """
    index = []
    for d, size in enumerate(order.shape):
        if d == axis:
            index.append(order)
            continue
        kept = [1] * order.ndim
        kept[d] = size
        index.append(backend.reshape(backend.arange(0, size, 1, dtypes.int64), tuple(kept)))
    return tuple(index)
