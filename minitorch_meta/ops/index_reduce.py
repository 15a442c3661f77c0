"""``index_reduce``: ``source``'s slices along ``dim`` reduced into the input's slices at
the positions of an index vector ("prod", "mean", "amax" or "amin").

It is ``scatter_reduce`` with another index: slice ``i`` of ``source`` goes to slice
``index[i]`` of the input, so the positions are the index vector at ``dim`` broadcast with
``arange``\\ s over the other dims (one advanced index of ``source``'s shape). Forward and
the first-order gradients are therefore ``ScatterReduce``'s, which are PyTorch's formulas
for ``IndexReduceBackward0`` too (the shared gradient of "amax"/"amin" ties, "prod"'s
treatment of zeros, no gradient to an overwritten input with ``include_self=False``).

"mean", "amax" and "amin" have a gradient linear in the output's gradient, with weights
fixed by forward: their second-order formula is that product, recorded. "prod"'s gradient
depends on the inputs themselves: its second-order formula is ``ScatterReduce``'s (the
products again, recorded, as a ``scatter_reduce`` whose index is the vector broadcast over
``source``'s shape), refusing as PyTorch's when two zeros of ``source`` meet.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .gather import index_bounds
from .scatter import INDEX_DTYPES
from .scatter_reduce import ScatterReduce
from .selection_graph import picked, written_mask, zeroed

REDUCTIONS = ("prod", "mean", "amax", "amin")


class IndexReduce(ScatterReduce):
    """The input with ``source[..., i, ...]`` reduced into its slice ``index[i]`` along
    ``dim``, for each ``i`` (``reduce``: "prod", "mean", "amax" or "amin");
    ``include_self`` says whether the input's value takes part where something is written.

    Shape:
        the input's shape and dtype; ``index`` a vector (or a 0-d tensor) of int64 or
        int32; ``source`` of the input's dtype and number of dims, its size at ``dim`` the
        index's length and the input's sizes elsewhere.

    Raises:
        RuntimeError for an unknown ``reduce``, an index of another dtype, a source of
        another dtype or shape; IndexError for an index with more than one dim, a dim out
        of range, or a position outside ``[0, size)`` (data backends only).
    """

    op_name, backward_name = "index_reduce", "IndexReduceBackward0"
    source_name = "source"

    def infer(self, x, index, source):
        if self.reduce not in REDUCTIONS:
            raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax "
                               f"or amin but got {self.reduce}.")
        shape, index_shape = tuple(x._data.shape), tuple(index._data.shape)
        source_shape = tuple(source._data.shape)
        if index._dtype not in INDEX_DTYPES:
            raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but "
                               f"got: {index._dtype}; convert it with .long()")
        if len(index_shape) > 1:
            raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got an "
                             f"index of shape {shapes.fmt(index_shape)}; flatten it first")
        if source._dtype is not x._dtype:
            raise RuntimeError(f"index_reduce_(): self ({x._dtype}) and source "
                               f"({source._dtype}) must have the same scalar type; convert "
                               f"source with .to({x._dtype})")
        self.axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
        self.x_shape, self.src_shape = shape or (1,), source_shape or (1,)
        if len(source_shape) != len(shape) or any(
                s != t for d, (s, t) in enumerate(zip(self.src_shape, self.x_shape))
                if d != self.axis):
            raise RuntimeError(f"index_reduce_(): source tensor shape must match self tensor "
                               f"shape, excluding the specified dimension. Got self.shape = "
                               f"{shapes.fmt(shape)} source.shape = {shapes.fmt(source_shape)}")
        count = index._data.size
        if self.src_shape[self.axis] != count:
            raise RuntimeError(f"index_reduce_(): Number of indices ({count}) should be equal "
                               f"to source.size(dim): ({self.src_shape[self.axis]}), for dim: "
                               f"{self.axis}")
        # every element of ``source`` is read: the "block" ``ScatterReduce`` reads is all
        self.index_shape = self.src_shape
        self.out_dtype = x._dtype
        return shape, x._dtype

    def _picks(self, backend, index) -> tuple:
        """The output position of each element of ``source``: the index vector at ``dim``,
        ranges elsewhere, broadcasting to ``source``'s shape."""
        size = self.x_shape[self.axis]
        if index.size:
            for position in index_bounds(backend, index):
                if not 0 <= position < size:
                    raise IndexError(f"index_reduce_(): index {position} is out of bounds for "
                                     f"dimension {self.axis} with size {size}")
        vector = backend.astype(backend.reshape(index, (index.size,)), dtypes.int64)
        picks = []
        for d, extent in enumerate(self.src_shape):
            kept = [1] * len(self.src_shape)
            kept[d] = extent
            along = vector if d == self.axis else backend.arange(0, extent, 1, dtypes.int64)
            picks.append(backend.reshape(along, tuple(kept)))
        return tuple(picks)

    def _scatter_index(self, backend, index):
        """The index vector at ``dim``, broadcast over ``source``'s shape: ``scatter``'s
        index that sends ``source``'s elements where this op does."""
        along = self._picks(backend, index)[self.axis]
        return backend.binary("add", along, backend.full(self.src_shape, 0, dtypes.int64))

    @property
    def backward_graph(self):
        """The recorded gradient formula: ``ScatterReduce``'s for "prod" (the products
        again), a linear one for "mean", "amax" and "amin"."""
        return super().backward_graph if self.reduce == "prod" else \
            self._linear_backward_graph

    def _linear_backward_graph(self, grad):
        """``grad`` divided by how many values share each output element and weighted by
        whether each value reached it (its "amax"/"amin" winners), as recorded ops."""
        input_weight, source_weight, divisor = self._linear_weights(self.backend)
        shared = grad.reshape(self.x_shape) / self.constant(divisor)
        gx = gsource = None
        if self.needs_input_grad[0]:
            gx = shared if input_weight is None else shared * self.constant(input_weight)
            if not self.include_self:  # overwritten: the input's value never reached it
                gx = zeroed(self, gx, written_mask(self.backend, self.x_shape, self.picks))
            gx = gx.reshape(tuple(self.input_specs[0][0]))
        if self.needs_input_grad[2]:
            gsource = picked(self, shared, self.picks)
            if source_weight is not None:
                gsource = gsource * self.constant(source_weight)
            gsource = gsource.reshape(tuple(self.input_specs[2][0]))
        return gx, None, gsource

    def _linear_weights(self, backend) -> tuple:
        """``(input weight, source weight, divisor)`` of the gradient (None: a weight of 1),
        the arrays ``_grads_mean`` and ``_grads_amax`` use."""
        if self.reduce == "mean":
            return None, None, self.count
        value = backend.getitem(self.out, self.picks)
        input_wins = backend.astype(backend.binary("eq", self.x, self.out), self.out_dtype)
        source_wins = backend.astype(backend.binary("eq", self.values, value), self.out_dtype)
        winners = backend.binary("add", input_wins, backend.index_add(
            self.x_shape, self.picks, source_wins, self.out_dtype))
        return input_wins, source_wins, winners
