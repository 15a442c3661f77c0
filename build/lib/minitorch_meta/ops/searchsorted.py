"""``searchsorted`` and ``bucketize``: where values would go in sorted sequences.

Both run on the ``searchsorted`` kernel (one sorted row for every value, or one row per
batch of values). The op adds PyTorch's rules around it: the sorted sequence and the
values are compared in their promoted dtype, a ``sorter`` (the positions ``argsort``
gives) reads an unsorted sequence in order, and a batched sequence ``(..., m)`` serves
values ``(..., k)`` with the same leading dims. The output is positions: no gradient.
"""

from __future__ import annotations

import math

from .. import dtypes
from . import shapes
from .function import Function
from .sorting import along_axis


class SearchSorted(Function):
    """For each value, the position in its sorted row that keeps the row sorted if the
    value were inserted there: before the equal elements, or after them (``right``).

    Inputs: ``sorted_sequence`` (1-D, or ``(..., m)`` with the values' leading dims),
    ``values`` and an optional int64 ``sorter`` of the sequence's shape.

    Shape:
        the values' shape; int64, or int32 with ``out_int32``.

    Raises:
        RuntimeError for a 0-d sequence, leading dims that differ, 0-d values with a
        batched sequence, or a sorter of another shape or dtype; NotImplementedError
        when the compared dtype is bool.
    """

    op_name, backward_name, differentiable = "searchsorted", "SearchsortedBackward0", False
    right, out_int32 = False, False

    def infer(self, sorted_sequence, values, sorter=None):
        s_shape, v_shape = tuple(sorted_sequence._data.shape), tuple(values._data.shape)
        if sorter is not None:
            check_sorter(self.op_name, s_shape, sorter)
        if not v_shape and len(s_shape) != 1:
            raise shapes.ShapeError(
                self.op_name, f"input value can be a scalar only when boundaries tensor "
                f"dimension is 1, but we got boundaries tensor dim({len(s_shape)}) and input "
                f"value's dim(0) numel(1); give the values the sequence's leading dims")
        if not s_shape:
            raise shapes.ShapeError(self.op_name, "boundaries tensor should have positive "
                                                  "dimension, but got 0 dimension")
        if len(s_shape) > 1 and (len(s_shape) != len(v_shape) or s_shape[:-1] != v_shape[:-1]):
            raise shapes.ShapeError(
                self.op_name, f"boundaries tensor should be 1 dimension or the first N-1 "
                f"dimensions of boundaries tensor and input value tensor must match, but we "
                f"got boundaries tensor {shapes.fmt(s_shape)} and input value tensor "
                f"{shapes.fmt(v_shape)}")
        self.common = dtypes.promote_tensors(sorted_sequence._dtype, False,
                                             values._dtype, not v_shape)
        if self.common is dtypes.bool_:
            raise NotImplementedError(f"{self.op_name}: not implemented for bool (the sorted "
                                      "sequence and the values are compared as bool); convert "
                                      "them first, e.g. with .int()")
        return v_shape, dtypes.int32 if self.out_int32 else dtypes.int64

    def forward(self, backend, sorted_sequence, values, sorter=None):
        if sorter is not None:
            check_sorter_range(backend, self.op_name, sorter, sorted_sequence.shape[-1])
            sorted_sequence = backend.getitem(
                sorted_sequence, along_axis(backend, sorter, sorter.ndim - 1))
        s = backend.astype(sorted_sequence, self.common)
        v = backend.astype(values, self.common)
        if s.ndim > 1:  # one row of the sequence per row of values
            rows, m = math.prod(s.shape[:-1]), s.shape[-1]
            found = backend.searchsorted(backend.reshape(s, (rows, m)),
                                         backend.reshape(v, (rows, v.shape[-1])), self.right)
            found = backend.reshape(found, v.shape)
        else:
            found = backend.searchsorted(s, v, self.right)
        return backend.astype(found, dtypes.int32) if self.out_int32 else found


class Bucketize(SearchSorted):
    """``SearchSorted`` with a 1-D sequence of ``boundaries`` (given after the input by the
    public function): the bucket of each element.

    Shape:
        the input's shape; int64, or int32 with ``out_int32``.

    Raises:
        RuntimeError for boundaries that are not 1-D.
    """

    op_name, backward_name = "bucketize", "BucketizeBackward0"

    def infer(self, boundaries, values, sorter=None):
        ndim = boundaries._data.ndim
        if ndim != 1:
            raise shapes.ShapeError(self.op_name, f"boundaries tensor must be 1 dimension, but "
                                                  f"got dim({ndim}) (shape "
                                                  f"{shapes.fmt(boundaries._data.shape)})")
        return super().infer(boundaries, values)


def check_sorter(op: str, shape: tuple, sorter) -> None:
    """PyTorch's checks of a ``sorter``: the sequence's shape, int64."""
    if tuple(sorter._data.shape) != shape:
        raise shapes.ShapeError(op, f"boundary and sorter must have the same size, but got "
                                    f"boundary tensor {shapes.fmt(shape)} and got sorter tensor "
                                    f"{shapes.fmt(sorter._data.shape)}")
    if sorter._dtype is not dtypes.int64:
        raise RuntimeError(f"{op}: sorter must be a tensor of long dtype but got dtype "
                           f"{sorter._dtype}; argsort gives one, or convert with .long()")


def check_sorter_range(backend, op: str, sorter, m: int) -> None:
    """Every position of ``sorter`` lies in ``[0, m)`` (read from the data, as PyTorch does).

    Raises:
        RuntimeError naming the positions found.
    """
    if sorter.size == 0:
        return
    low = int(backend.to_numpy(backend.min(sorter, None, False)))
    high = int(backend.to_numpy(backend.max(sorter, None, False)))
    if low < 0 or high >= m:
        raise RuntimeError(f"{op}: sorter index out of range: it must hold positions in "
                           f"[0, {m - 1}] along the last dim (as argsort gives them), but holds "
                           f"values from {low} to {high}")
