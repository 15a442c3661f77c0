"""``index_put``: ``x[indices] = values`` (or ``+=``) out of place, for a tuple of index
tensors, as one differentiable op.

The indices are integer tensors (int64 or int32; a negative position counts from the
end) and boolean masks, applied to the input's leading dims in order; the integer ones
and each mask's list of True positions broadcast together, as NumPy's advanced indexing
(which the kernels run) and PyTorch's agree. ``values`` broadcast to the selection.

A mask's number of True elements is part of the selection's shape, so the caller counts
it first (``counts``), as for ``nonzero``; on meta it is unknown, and the rule then checks
the values against the selection with that length left open. The output always has the
input's shape, so meta gives it. Integer positions are checked on data backends, before
the kernel, so that one out of range raises PyTorch's error rather than NumPy's, or, on
CuPy, wrapping around.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function
from .gather import index_bounds
from .graph_backward import reduce_to_input
from .masked_select import expanded
from .selection_graph import picked, written_mask, zeroed

_INTEGER_INDEX = (dtypes.int64, dtypes.int32)


class IndexPut(Function):
    """The input with ``values`` written (``accumulate=True``: added, repeated positions
    adding up) at the positions the index tensors select.

    ``counts`` holds, for each index, the number of True elements of a mask (None for an
    integer index, and for a mask whose values are unknown: meta).

    Shape:
        the input's shape and dtype. The indices cover at most the input's dims (a mask
        covers as many dims as it has, with the input's sizes); the selection's shape is
        the indices' broadcast shape (a mask counts as a vector of its True positions)
        followed by the dims left uncovered, and ``values`` (the input's dtype) broadcast
        to it.

    Raises:
        IndexError for a float index, too many indices, a mask of the wrong shape,
        indices that do not broadcast together, or a position outside ``[-size, size)``
        (data backends only); RuntimeError for a uint8 index, values of another dtype,
        or values that do not broadcast to the selection.
    """

    op_name, backward_name = "index_put", "IndexPutBackward0"
    accumulate, counts = False, ()

    def infer(self, x, values, *indices):
        shape = tuple(x._data.shape)
        if values._dtype is not x._dtype:
            raise RuntimeError(f"Index put requires the source and destination dtypes match, "
                               f"got {x._dtype} for the destination and {values._dtype} for "
                               f"the source; convert values with .to({x._dtype})")
        picks, dims = self.picked_shapes(shape, indices)
        known = all(p is not None for p in picks)
        batch = _broadcast_indices([p or (1,) for p in picks])
        self.selection_shape = batch + shape[dims:]
        _check_values(tuple(values._data.shape), self.selection_shape, known)
        self.dims = tuple(self.index_dims(indices))
        self.saved_for_backward = tuple(range(2, 2 + len(indices)))  # backward reads them
        return shape, x._dtype

    def picked_shapes(self, shape: tuple, indices) -> tuple:
        """The shape each index contributes to the selection (a mask: its count, None when
        unknown) and how many of the input's dims the indices cover."""
        picks, dim = [], 0
        for position, index in enumerate(indices):
            dtype, index_shape = index._dtype, tuple(index._data.shape)
            if dtype is dtypes.bool_:
                _check_mask(index_shape, shape, dim)
                count = self.counts[position] if position < len(self.counts) else None
                picks.append(None if count is None else (count,))
                dim += len(index_shape)
            elif dtype in _INTEGER_INDEX:
                picks.append(index_shape)
                dim += 1
            elif dtype is dtypes.uint8:
                raise RuntimeError("index_put(): indexing with a uint8 tensor is not supported "
                                   "(PyTorch no longer reads it as a mask); convert the mask "
                                   "with .bool(), or the positions with .long()")
            else:
                raise IndexError(f"tensors used as indices must be long, int or bool tensors, "
                                 f"but index {position} is {dtype}; convert it with .long()")
            if dim > len(shape):
                raise IndexError(f"too many indices for tensor of dimension {len(shape)} "
                                 f"(got {dim})")
        return picks, dim

    @staticmethod
    def index_dims(indices):
        """The input dim each index starts at."""
        dim = 0
        for index in indices:
            yield dim
            dim += index._data.ndim if index._dtype is dtypes.bool_ else 1

    def forward(self, backend, x, values, *indices):
        shape = x.shape
        for index, dim in zip(indices, self.dims):
            if index.dtype.kind != "b":
                _check_positions(backend, index, dim, shape[dim])
        items = tuple(indices)
        if self.recording:
            self.items = items
        out = backend.copy(x)
        if self.accumulate:
            # The values as a whole selection: a scatter-add need not broadcast them.
            backend.accumulate(out, items, expanded(backend, values, self.selection_shape))
        else:
            backend.setitem(out, items, values)
        return out

    def backward(self, backend, gy):
        gx = gvalues = None
        if self.needs_input_grad[0]:
            if self.accumulate:
                gx = gy
            else:  # the overwritten elements do not reach the output
                gx = backend.copy(gy)
                backend.setitem(gx, self.items, gy.dtype.type(0))
        if self.needs_input_grad[1]:
            # Every pick's gradient, repeated picks too (PyTorch's ``grad[indices]``),
            # summed back over the values' broadcast dims.
            # (No index selects all of ``gy``: a copy, not ``gy[()]``, a scalar when 0-d.)
            picked = backend.getitem(gy, self.items) if self.items else backend.copy(gy)
            gvalues = backend.sum_to_shape(picked, tuple(self.input_specs[1][0]))
        return (gx, gvalues) + (None,) * (len(self.needs_input_grad) - 2)

    def backward_graph(self, grad):
        gx = gvalues = None
        if self.needs_input_grad[0]:
            gx = grad
            if not self.accumulate:
                gx = zeroed(self, grad, written_mask(self.backend, tuple(grad.shape),
                                                     self.items))
        if self.needs_input_grad[1]:
            read = picked(self, grad, self.items) if self.items else grad.clone()
            gvalues = reduce_to_input(read, self.input_specs[1])
        return (gx, gvalues) + (None,) * (len(self.needs_input_grad) - 2)


def _check_mask(mask_shape: tuple, shape: tuple, start: int) -> None:
    for j, size in enumerate(mask_shape):
        if start + j >= len(shape):
            return  # too many indices: the caller's next check says so
        if size != shape[start + j]:
            raise IndexError(f"The shape of the mask {list(mask_shape)} at index {j} does not "
                             f"match the shape of the indexed tensor {list(shape)} at index "
                             f"{start + j}")


def _broadcast_indices(index_shapes: list) -> tuple:
    """The indices' broadcast shape (a mask of unknown count stands as ``(1,)``)."""
    batch = ()
    for index_shape in index_shapes:
        try:
            batch = shapes.broadcast("index_put", batch, index_shape)
        except shapes.ShapeError:
            listed = ", ".join(str(list(s)) for s in index_shapes)
            raise IndexError(f"shape mismatch: indexing tensors could not be broadcast "
                             f"together with shapes {listed}") from None
    return batch


def _check_values(values_shape: tuple, selection: tuple, known: bool) -> None:
    """``values`` broadcast to the selection; where a mask's count is unknown (stood in by
    1), they need only broadcast with it."""
    if shapes.broadcasts_to(values_shape, selection):
        return
    if not known and len(values_shape) <= len(selection):
        try:
            shapes.broadcast("index_put", values_shape, selection)
            return
        except shapes.ShapeError:
            pass
    unknown = "" if known else (" (a meta mask's number of True elements is unknown: it "
                                "counts as 1 here)")
    raise RuntimeError(f"shape mismatch: value tensor of shape {list(values_shape)} cannot be "
                       f"broadcast to indexing result of shape {list(selection)}{unknown}")


def _check_positions(backend, index, dim: int, size: int) -> None:
    """IndexError for a position outside ``[-size, size)`` (reads two numbers back on
    CUDA)."""
    if not index.size:
        return
    for position in index_bounds(backend, index):
        if not -size <= position < size:
            raise IndexError(f"index {position} is out of bounds for dimension {dim} with size "
                             f"{size}")
