"""``index_add``, ``index_copy`` and ``index_fill``: whole slices along ``dim`` written at
the positions of an index vector (the inverse of ``index_select``).

Each is one advanced index, ``(:, ..., :, index)``, into the output: ``index_add`` adds
``alpha * source`` through the ``index_add`` kernel (a scatter-add: a position listed twice
gets both slices), ``index_copy`` writes ``source``'s slices (listed twice: the last one
wins, where PyTorch leaves it unspecified) and ``index_fill`` writes one value. Their
checks and messages are PyTorch's, which differ from op to op (``index_fill`` takes
negative positions, the others do not).
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function
from .gather import check_range, index_bounds
from .graph_backward import reduce_to_input
from .masked import fill_scalar
from .selection_graph import kept, picked, written_mask, zeroed


class IndexUpdate(Function):
    """What the three ops share: the index vector's checks, the selection it makes and
    the output's shape. ``source`` (``index_add``, ``index_copy``) holds one slice per
    position, in the index's order; ``index_fill``'s third input is its 0-d value tensor.

    Shape:
        the input's shape and dtype; ``source`` has the input's shape with the index's
        length at ``dim`` (a 0-d input or source counts as one of one element).
    """

    saved_for_backward = (1,)  # backward reads the index
    dim = 0
    index_dtypes = (dtypes.int64, dtypes.int32)

    def infer(self, x, index, source=None):
        shape, index_shape = tuple(x._data.shape), tuple(index._data.shape)
        self.check_index(index._dtype, index_shape)
        self.axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
        self.x_shape = shape or (1,)
        self.count = index._data.size
        self.x_dtype = x._dtype
        if source is not None:
            self.check_source(shape, source)
        self.out_dtype = x._dtype
        return shape, x._dtype

    def check_index(self, dtype, index_shape) -> None:
        if dtype not in self.index_dtypes:
            raise RuntimeError(f"{self.op_name}_(): Expected dtype int32/int64 for index but "
                               f"got: {dtype}; convert it with .long()")
        if len(index_shape) > 1:
            raise IndexError(f"{self.op_name}_(): Index is supposed to be a vector, but got "
                             f"an index of shape {shapes.fmt(index_shape)}; flatten it first")

    def check_source(self, shape, source) -> None:
        source_shape = tuple(source._data.shape)
        if source._dtype is not self.x_dtype:
            raise RuntimeError(f"{self.op_name}_(): self ({self.x_dtype}) and source "
                               f"({source._dtype}) must have the same dtype; convert source "
                               f"with .to({self.x_dtype})")
        full = source_shape or (1,)
        if len(full) != len(self.x_shape) or any(
                s != t for d, (s, t) in enumerate(zip(full, self.x_shape)) if d != self.axis):
            raise RuntimeError(f"{self.op_name}_(): source tensor shape must match self tensor "
                               f"shape, excluding the specified dimension. Got self.shape = "
                               f"{shapes.fmt(shape)} source.shape = {shapes.fmt(source_shape)}")
        if full[self.axis] != self.count:
            raise RuntimeError(f"{self.op_name}_(): Number of indices ({self.count}) should be "
                               f"equal to source.size(dim) ({full[self.axis]}), for dim: "
                               f"{self.axis}")

    def selection(self, backend, index) -> tuple:
        """``(:, ..., :, positions)``: the index as a vector at ``dim``, after the range
        check (a data backend only reaches here)."""
        self.check_positions(backend, index, self.x_shape[self.axis])
        return (slice(None),) * self.axis + (backend.reshape(index, (self.count,)),)

    def check_positions(self, backend, index, size: int) -> None:
        check_range(backend, f"{self.op_name}_", index, size, self.axis)

    def zeroed(self, backend, gy):
        """``gy`` with zeros on the written slices, which do not reach the output."""
        gx = backend.copy(backend.reshape(gy, self.x_shape))
        backend.setitem(gx, self.selected, gy.dtype.type(0))
        return backend.reshape(gx, gy.shape)

    def written(self):
        """A bool array of the input's shape, True on the written slices."""
        mask = written_mask(self.backend, self.x_shape, self.selected)
        return self.backend.reshape(mask, tuple(self.input_specs[0][0]))

    def zeroed_graph(self, grad):
        """``zeroed`` as a recorded op (``backward_graph``)."""
        return zeroed(self, grad, self.written())

    def source_graph(self, grad):
        """The written slices of ``grad``, in the index's order and ``source``'s shape,
        as a recorded op: ``source``'s gradient (``backward_graph``)."""
        read = picked(self, grad.reshape(self.x_shape), self.selected)
        return read.reshape(tuple(self.input_specs[2][0]))

    def source_shape(self) -> tuple:
        """The input's shape with the index's length at ``dim``."""
        return tuple(self.count if d == self.axis else s for d, s in enumerate(self.x_shape))


class IndexAdd(IndexUpdate):
    """The input with ``alpha * source[..., i, ...]`` added to its slice ``index[i]`` along
    ``dim``, for each ``i`` (positions listed twice get both).

    Raises:
        RuntimeError for an index that is not int64/int32, a source of another dtype or
        shape, or a position outside ``[0, size)`` (data backends only); IndexError for an
        index with more than one dim.
    """

    op_name, backward_name = "index_add", "IndexAddBackward0"
    alpha = 1

    def infer(self, x, index, source):
        self.scale = fill_scalar(self.op_name, self.alpha, x._dtype)
        return super().infer(x, index, source)

    def forward(self, backend, x, index, source):
        selected = self.selection(backend, index)
        if self.recording:
            self.selected = selected
        values = backend.reshape(source, self.source_shape())
        if self.alpha != 1:
            values = backend.binary("mul", values, self.scale)
        added = backend.index_add(self.x_shape, selected, values, self.out_dtype)
        return backend.binary("add", x, backend.reshape(added, x.shape))

    def backward(self, backend, gy):
        gsource = None
        if self.needs_input_grad[2]:
            gsource = backend.getitem(backend.reshape(gy, self.x_shape), self.selected)
            if self.alpha != 1:
                gsource = backend.binary("mul", gsource, self.scale)
            gsource = backend.reshape(gsource, tuple(self.input_specs[2][0]))
        return (gy if self.needs_input_grad[0] else None), None, gsource

    def backward_graph(self, grad):
        gsource = None
        if self.needs_input_grad[2]:
            gsource = self.source_graph(grad)
            if self.alpha != 1:
                gsource = gsource * self.alpha
        return (grad if self.needs_input_grad[0] else None), None, gsource


class IndexCopy(IndexUpdate):
    """The input with its slice ``index[i]`` along ``dim`` replaced by
    ``source[..., i, ...]``, for each ``i``.

    Raises:
        RuntimeError for an index that is not int64, a source of another dtype or shape;
        IndexError for an index with more than one dim or a position outside
        ``[0, size)`` (data backends only).
    """

    op_name, backward_name = "index_copy", "IndexCopyBackward0"
    index_dtypes = (dtypes.int64,)

    def check_index(self, dtype, index_shape) -> None:
        if dtype not in self.index_dtypes:
            raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                               f"{dtype}; convert it with .long()")
        if len(index_shape) > 1:
            raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got "
                             f"{len(index_shape)})")

    def check_positions(self, backend, index, size: int) -> None:
        try:
            super().check_positions(backend, index, size)
        except RuntimeError as error:  # PyTorch's index_copy raises IndexError here
            raise IndexError(str(error)) from None

    def forward(self, backend, x, index, source):
        selected = self.selection(backend, index)
        if self.recording:
            self.selected = selected
        out = backend.copy(backend.reshape(x, self.x_shape))
        backend.setitem(out, selected, backend.reshape(source, self.source_shape()))
        return backend.reshape(out, x.shape)

    def backward(self, backend, gy):
        gx = self.zeroed(backend, gy) if self.needs_input_grad[0] else None
        gsource = None
        if self.needs_input_grad[2]:
            gsource = backend.getitem(backend.reshape(gy, self.x_shape), self.selected)
            gsource = backend.reshape(gsource, tuple(self.input_specs[2][0]))
        return gx, None, gsource

    def backward_graph(self, grad):
        gx = self.zeroed_graph(grad) if self.needs_input_grad[0] else None
        gsource = self.source_graph(grad) if self.needs_input_grad[2] else None
        return gx, None, gsource


class IndexFill(IndexUpdate):
    """The input with ``value`` (the number ``fill``, or a 0-d tensor, the third input)
    written over its slices at the index's positions along ``dim``; a negative position
    counts from the end.

    Raises:
        IndexError for an index that is not int64 or a position outside ``[-size, size)``
        (data backends only); RuntimeError for an index with more than one dim, a value
        tensor with dims, or a number the input's dtype cannot hold.
    """

    op_name = "index_fill"
    index_dtypes = (dtypes.int64,)
    fill = None

    @property
    def backward_name(self):
        return "IndexFillBackward1" if self.fill is None else "IndexFillBackward0"

    def infer(self, x, index, value=None):
        if value is not None and value._data.ndim != 0:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value._data.ndim} dimension(s).")
        if self.fill is not None:
            self.scalar = fill_scalar(self.op_name, self.fill, x._dtype)
        return super().infer(x, index)

    def check_index(self, dtype, index_shape) -> None:
        if dtype not in self.index_dtypes:
            raise IndexError(f"index_fill_(): Expected dtype int64 for index, but got "
                             f"{dtype}; convert it with .long()")
        if len(index_shape) > 1:
            raise RuntimeError(f"index_fill_(): Index has to be a vector/scalar, but got an "
                               f"index of shape {shapes.fmt(index_shape)}")

    def check_positions(self, backend, index, size: int) -> None:
        if not self.count:
            return
        for position in index_bounds(backend, index):
            if not -size <= position < size:
                raise IndexError(f"index_fill_(): index {position} is out of bounds for "
                                 f"dimension {self.axis} with size {size}")

    def forward(self, backend, x, index, value=None):
        selected = self.selection(backend, index)
        if self.recording:
            self.selected = selected
        fill = self.scalar if value is None else backend.astype(value, self.out_dtype)
        out = backend.copy(backend.reshape(x, self.x_shape))
        backend.setitem(out, selected, fill)
        return backend.reshape(out, x.shape)

    def backward(self, backend, gy):
        gx = self.zeroed(backend, gy) if self.needs_input_grad[0] else None
        gvalue = None
        if len(self.needs_input_grad) > 2 and self.needs_input_grad[2]:
            # Each filled element once, however often the index lists its slice.
            filled = written_mask(backend, self.x_shape, self.selected)
            picked = backend.where(filled, backend.reshape(gy, self.x_shape), gy.dtype.type(0))
            gvalue = backend.asarray(backend.sum(picked, None, False), None)
            gvalue = backend.astype(gvalue, self.input_specs[2][1])
        return gx, None, gvalue

    def backward_graph(self, grad):
        gx = self.zeroed_graph(grad) if self.needs_input_grad[0] else None
        gvalue = None
        if len(self.needs_input_grad) > 2 and self.needs_input_grad[2]:
            gvalue = reduce_to_input(kept(self, grad, self.written()).sum(),
                                     self.input_specs[2])
        return gx, None, gvalue
