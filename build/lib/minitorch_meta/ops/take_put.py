"""``take`` and ``put``: elements at flat positions, the input read as if it were 1-D.

A position counts in C order over all elements; a negative one counts from the end
(``-1`` is the last element), as in PyTorch. Positions are checked where there are
values (data backends), before any kernel, and negative ones are turned into their
non-negative equivalents once, so that NumPy and CuPy index alike. Then each op is one
advanced index into the flattened input: ``take`` reads through it (backward adds back
with ``index_add``, since a position may be read twice), ``put`` writes through it, or
adds (``accumulate=True``, the ``accumulate`` kernel: repeated positions add up).
"""

from __future__ import annotations

import math

from .. import dtypes
from . import shapes
from .function import Function
from .gather import index_bounds
from .selection_graph import picked, placed, written_mask, zeroed


def flat_positions(backend, op: str, index, numel: int):
    """``index`` as a vector of non-negative positions in ``[0, numel)``.

    Raises:
        IndexError for a position outside ``[-numel, numel)`` (on CUDA this reads two
        numbers back to the host).
    """
    positions = backend.reshape(index, (index.size,))
    if not index.size:
        return positions
    low, high = index_bounds(backend, positions)
    for value in (low, high):
        if not -numel <= value < numel:
            raise IndexError(f"{op}(): out of range: tried to access index {value} on a tensor "
                             f"of {numel} elements (positions run from {-numel} to "
                             f"{numel - 1})")
    if low < 0:
        wrapped = backend.binary("add", positions, positions.dtype.type(numel))
        positions = backend.where(backend.binary("lt", positions, positions.dtype.type(0)),
                                  wrapped, positions)
    return positions


def _require_long(op: str, dtype) -> None:
    if dtype is not dtypes.int64:
        raise RuntimeError(f"{op}(): Expected a long tensor for index, but got {dtype}; "
                           "convert it with .long()")


class Take(Function):
    """The input's elements at the flat positions of ``index``.

    Shape:
        the index's shape, the input's dtype.

    Raises:
        RuntimeError for an index that is not int64; IndexError for a non-empty index into
        an empty input, or a position outside ``[-numel, numel)`` (data backends only).
    """

    op_name, backward_name = "take", "TakeBackward0"
    saved_for_backward = (1,)  # backward reads the index

    def infer(self, x, index):
        _require_long(self.op_name, index._dtype)
        self.numel = math.prod(x._data.shape)
        if not self.numel and index._data.size:
            raise IndexError(f"take(): tried to take from an empty tensor (shape "
                             f"{shapes.fmt(x._data.shape)}) with a non-empty index of shape "
                             f"{shapes.fmt(index._data.shape)}")
        return tuple(index._data.shape), x._dtype

    def forward(self, backend, x, index):
        positions = flat_positions(backend, self.op_name, index, self.numel)
        if self.recording:
            self.positions = positions
        out = backend.getitem(backend.reshape(x, (self.numel,)), positions)
        return backend.reshape(out, index.shape)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        gx = backend.index_add((self.numel,), (self.positions,),
                               backend.reshape(gy, (gy.size,)), dtype)
        return backend.reshape(gx, tuple(shape)), None

    def backward_graph(self, grad):
        shape, dtype = self.input_specs[0]
        gx = placed(self, grad.reshape(-1), (self.positions,), (self.numel,), dtype)
        return gx.reshape(tuple(shape)), None


class Put(Function):
    """The input with ``source``'s elements (read flat, in C order) written at the flat
    positions of ``index``, or added there with ``accumulate=True`` (repeated positions
    add up; without it, the last write wins where PyTorch leaves the winner unspecified).

    Shape:
        the input's shape and dtype; ``source`` has the input's dtype and as many elements
        as the index, in any shape.

    Raises:
        RuntimeError for an index that is not int64 or a source of another dtype;
        IndexError for a source and an index of different sizes, a non-empty index into
        an empty input, or a position outside ``[-numel, numel)`` (data backends only).
    """

    op_name, backward_name = "put", "PutBackward0"
    saved_for_backward = (1,)  # backward reads the index
    accumulate = False

    def infer(self, x, index, source):
        # PyTorch's messages name the in-place form, which its ``put`` runs.
        _require_long("put_", index._dtype)
        if source._dtype is not x._dtype:
            raise RuntimeError(f"put_(): self and source expected to have the same dtype, but "
                               f"got self.dtype = {x._dtype} and source.dtype = "
                               f"{source._dtype}; convert source with .to({x._dtype})")
        self.numel, count = math.prod(x._data.shape), index._data.size
        if source._data.size != count:
            raise IndexError(f"put_(): Expected source and index to have the same number of "
                             f"elements, but got source.numel() = {source._data.size}, "
                             f"index.numel() = {count}")
        if not self.numel and count:
            raise IndexError(f"put_(): Tried to put elements into an empty tensor (shape "
                             f"{shapes.fmt(x._data.shape)}) at a non-empty index of shape "
                             f"{shapes.fmt(index._data.shape)}")
        return tuple(x._data.shape), x._dtype

    def forward(self, backend, x, index, source):
        positions = flat_positions(backend, "put_", index, self.numel)
        if self.recording:
            self.positions = positions
        out = backend.copy(backend.reshape(x, (self.numel,)))
        values = backend.reshape(source, (source.size,))
        if self.accumulate:
            backend.accumulate(out, (positions,), values)
        else:
            backend.setitem(out, positions, values)
        return backend.reshape(out, x.shape)

    def backward(self, backend, gy):
        gx = gsource = None
        flat = backend.reshape(gy, (gy.size,))
        if self.needs_input_grad[0]:
            if self.accumulate:
                gx = gy
            else:  # the overwritten elements do not reach the output
                gx = backend.copy(flat)
                backend.setitem(gx, self.positions, gy.dtype.type(0))
                gx = backend.reshape(gx, gy.shape)
        if self.needs_input_grad[2]:
            # PyTorch's formula, ``grad.take(index)``, with or without accumulate (a
            # position written twice gives both writes its gradient).
            gsource = backend.reshape(backend.getitem(flat, self.positions),
                                      tuple(self.input_specs[2][0]))
        return gx, None, gsource

    def backward_graph(self, grad):
        gx = gsource = None
        flat = grad.reshape(-1)
        if self.needs_input_grad[0]:
            gx = grad
            if not self.accumulate:
                written = written_mask(self.backend, (self.numel,), self.positions)
                gx = zeroed(self, flat, written).reshape(tuple(grad.shape))
        if self.needs_input_grad[2]:
            gsource = picked(self, flat, self.positions).reshape(tuple(self.input_specs[2][0]))
        return gx, None, gsource
