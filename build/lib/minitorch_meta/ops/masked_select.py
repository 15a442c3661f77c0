"""``masked_select`` and ``masked_scatter``: the elements where a boolean mask holds, read
out in C order into a vector, or written in from one.

The input and the mask broadcast together (PyTorch's out-of-place rule), and both ops
work on the two expanded to that shape. Boolean indexing (``getitem``/``setitem`` with the
mask) walks in C order, which is the order both ops use.

``masked_select``'s length depends on the values, so the caller counts the mask's True
elements first, as for ``nonzero``, and the count is a hyper-parameter of the shape rule;
on meta it is unknown and the rule refuses after its other checks. ``masked_scatter``'s
output has the broadcast shape, known on meta too; only "enough source elements" needs
the values, so it is checked on data backends.
"""

from __future__ import annotations

import math

from .. import dtypes
from ..errors import DataDependentShapeError
from . import shapes
from .function import Function
from .graph_backward import reduce_to_input
from .selection_graph import picked, placed, zeroed


def mask_broadcast(op: str, x, mask) -> tuple:
    """The shape ``x`` and the bool ``mask`` broadcast to, with PyTorch's errors.

    Raises:
        RuntimeError for a mask that is not bool; ShapeRuntimeError when they do not
        broadcast.
    """
    if mask._dtype is not dtypes.bool_:
        raise RuntimeError(f"{op}: expected BoolTensor for mask, but got mask with dtype "
                           f"{mask._dtype}; make one with a comparison (x > 0) or .bool()")
    x_shape, mask_shape = tuple(x._data.shape), tuple(mask._data.shape)
    if x_shape == mask_shape:
        return x_shape
    try:
        return shapes.broadcast(op, x_shape, mask_shape)
    except shapes.ShapeError:
        raise shapes.ShapeRuntimeError(
            op, f"mask of shape {shapes.fmt(mask_shape)} cannot be broadcast with the input "
            f"of shape {shapes.fmt(x_shape)}: trailing dimensions must be equal or 1") from None


def expanded(backend, a, shape: tuple):
    """``a`` broadcast to ``shape`` as a new array (``a`` itself when it has that shape)."""
    if tuple(a.shape) == shape:
        return a
    out = backend.empty(shape, dtypes.from_numpy(a.dtype))
    backend.setitem(out, Ellipsis, a)
    return out


class MaskedSelect(Function):
    """The elements of the input where ``mask`` is True, in C order, as a vector.

    ``count`` is the number of True elements of the mask as given (before broadcasting),
    or None where the values are unknown (meta).

    Shape:
        ``(n,)`` with ``n`` the True elements of the mask broadcast with the input; the
        input's dtype.

    Raises:
        RuntimeError for a mask that is not bool; ShapeRuntimeError when the input and
        the mask do not broadcast; DataDependentShapeError on meta.
    """

    op_name, backward_name = "masked_select", "MaskedSelectBackward0"
    saved_for_backward = (1,)  # backward reads the mask
    count = None

    def infer(self, x, mask):
        self.shape = mask_broadcast(self.op_name, x, mask)
        if self.count is None:
            raise DataDependentShapeError(
                f"masked_select: the number of True elements of a meta mask (shape "
                f"{tuple(mask._data.shape)}) is unknown, so the output's length is too (it "
                "depends on the values); PyTorch's meta refuses masked_select as well. Run it "
                "on a real device, or keep the shape with masked_fill or where")
        mask_size = math.prod(mask._data.shape)
        # Broadcasting repeats the mask whole, so its count grows by the same factor.
        length = self.count * (math.prod(self.shape) // mask_size) if mask_size else 0
        return (length,), x._dtype

    def forward(self, backend, x, mask):
        mask = expanded(backend, mask, self.shape)
        if self.recording:
            self.mask = mask
        return backend.getitem(expanded(backend, x, self.shape), mask)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        gx = backend.full(self.shape, 0, dtype)
        backend.setitem(gx, self.mask, gy)
        return backend.sum_to_shape(gx, tuple(shape)), None

    def backward_graph(self, grad):
        shape, dtype = self.input_specs[0]
        return reduce_to_input(placed(self, grad, self.mask, self.shape, dtype),
                               self.input_specs[0]), None


class MaskedScatter(Function):
    """The input (broadcast with ``mask``) with the elements where ``mask`` is True
    replaced, in C order, by ``source``'s first elements (read flat, in C order).

    Shape:
        the input and the mask broadcast together; the input's dtype. ``source`` has the
        input's dtype, any shape, and at least as many elements as the mask has True
        elements after broadcasting.

    Raises:
        RuntimeError for a mask that is not bool, a source of another dtype, or, on data
        backends, a source with too few elements; ShapeRuntimeError when the input and
        the mask do not broadcast.
    """

    op_name, backward_name = "masked_scatter", "MaskedScatterBackward0"
    saved_for_backward = (1,)  # backward reads the mask

    def infer(self, x, mask, source):
        if mask._dtype is not dtypes.bool_:
            raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                               f"dtype {mask._dtype}; make one with a comparison (x > 0) or "
                               ".bool()")
        if source._dtype is not x._dtype:
            raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes "
                               f"but got {x._dtype} and {source._dtype}; convert source with "
                               f".to({x._dtype})")
        self.shape = mask_broadcast(self.op_name, x, mask)
        self.source_size = math.prod(source._data.shape)
        return self.shape, x._dtype

    def forward(self, backend, x, mask, source):
        mask = expanded(backend, mask, self.shape)
        count = int(backend.to_numpy(backend.sum(mask, None, False)))  # one read-back on CUDA
        if count > self.source_size:
            raise RuntimeError(f"masked_scatter: Number of elements of source < number of ones "
                               f"in mask: the mask holds {count} True element(s) but source has "
                               f"{self.source_size} element(s)")
        if self.recording:
            self.mask, self.count = mask, count
        out = backend.copy(expanded(backend, x, self.shape))
        flat = backend.reshape(source, (self.source_size,))
        backend.setitem(out, mask, backend.getitem(flat, slice(0, count)))
        return out

    def backward(self, backend, gy):
        gx = gsource = None
        if self.needs_input_grad[0]:
            shape = tuple(self.input_specs[0][0])
            gx = backend.sum_to_shape(backend.where(self.mask, gy.dtype.type(0), gy), shape)
        if self.needs_input_grad[2]:
            # The source's unread tail gets zeros.
            shape, dtype = self.input_specs[2]
            gsource = backend.full((self.source_size,), 0, dtype)
            backend.setitem(gsource, slice(0, self.count), backend.getitem(gy, self.mask))
            gsource = backend.reshape(gsource, tuple(shape))
        return gx, None, gsource

    def backward_graph(self, grad):
        gx = gsource = None
        if self.needs_input_grad[0]:
            gx = reduce_to_input(zeroed(self, grad, self.mask), self.input_specs[0])
        if self.needs_input_grad[2]:
            shape, dtype = self.input_specs[2]
            read = placed(self, picked(self, grad, self.mask), slice(0, self.count),
                          (self.source_size,), dtype)
            gsource = read.reshape(tuple(shape))
        return gx, None, gsource
