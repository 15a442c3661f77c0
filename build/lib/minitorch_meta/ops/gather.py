"""``index_select`` and ``gather``: elements picked by an integer index tensor.

Both are one advanced index (``getitem``): ``index_select`` puts the index at ``dim``
between full slices; ``gather`` pairs it with ``arange``\\ s over the other dims
(``sorting.along_axis``, NumPy's ``take_along_axis``). An index may pick a position
several times, so backward adds the gradient back with the ``index_add`` kernel (a
scatter-add). The index's values can only be checked where there are values: on a data
backend, before the kernel, so that a negative or too-large index raises PyTorch's error
rather than wrapping around as NumPy's indexing would.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function
from .selection_graph import placed
from .sorting import along_axis

_INDEX_DTYPES = (dtypes.int64, dtypes.int32)


class IndexSelect(Function):
    """The slices of the input at ``index`` (a vector of int64 or int32 positions, or a 0-d
    one) along ``dim``, in the index's order, repeats included.

    Shape:
        the input's shape with ``len(index)`` at ``dim``: ``(3, 4)``, dim 1, 5 positions
        -> ``(3, 5)``; a 0-d input gives a 0-d output (its index holds one position).

    Raises:
        RuntimeError for an index that is not int64/int32, or a position outside the dim
        (data backends only); IndexError for an index with more than one dim, or a dim out
        of range.
    """

    op_name, backward_name = "index_select", "IndexSelectBackward0"
    saved_for_backward = (1,)  # backward reads the index
    dim = 0

    def infer(self, x, index):
        shape, index_shape = tuple(x._data.shape), tuple(index._data.shape)
        if index._dtype not in _INDEX_DTYPES:
            raise RuntimeError(f"index_select(): Expected dtype int32 or int64 for index, but "
                               f"got {index._dtype}; convert it with .long()")
        if len(index_shape) > 1:
            raise IndexError(f"index_select(): Index is supposed to be a vector, but got an "
                             f"index of shape {shapes.fmt(index_shape)}; flatten it first")
        self.axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
        count = index._data.size
        if not shape:
            if count != 1:
                raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, "
                                   f"got {count} value(s)")
            return (), x._dtype
        self.size = shape[self.axis]
        return shape[:self.axis] + (count,) + shape[self.axis + 1:], x._dtype

    def forward(self, backend, x, index):
        if x.ndim == 0:
            check_range(backend, self.op_name, index, 1, 0)
            return backend.copy(x)
        check_range(backend, self.op_name, index, self.size, self.axis)
        selection = (slice(None),) * self.axis + (backend.reshape(index, (index.size,)),)
        if self.recording:
            self.selection = selection
        return backend.getitem(x, selection)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        if not shape:
            return gy, None
        return backend.index_add(tuple(shape), self.selection, gy, dtype), None

    def backward_graph(self, grad):
        shape, dtype = self.input_specs[0]
        if not shape:
            return grad, None
        return placed(self, grad, self.selection, shape, dtype), None


class Gather(Function):
    """``out[i][j][k] = input[i][index[i][j][k]][k]`` for ``dim=1`` (and so on): the
    element of the input at the index's position along ``dim``, and at the same position
    along the other dims.

    Shape:
        the index's shape; it has the input's number of dims, and along every dim but
        ``dim`` it is no larger than the input.

    Raises:
        RuntimeError for an index that is not int64/int32, of another number of dims or
        larger than the input along another dim, or for a position outside ``dim`` (data
        backends only); IndexError for a dim out of range.
    """

    op_name, backward_name = "gather", "GatherBackward0"
    saved_for_backward = (1,)  # backward reads the index
    dim = 0

    def infer(self, x, index):
        shape, index_shape = tuple(x._data.shape), tuple(index._data.shape)
        if index._dtype not in _INDEX_DTYPES:
            raise RuntimeError(f"gather(): Expected dtype int32/int64 for index, but got "
                               f"{index._dtype}; convert it with .long()")
        self.axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
        # A 0-d tensor counts as one of one element, as in PyTorch.
        self.x_shape, self.index_shape = shape or (1,), index_shape or (1,)
        if len(self.index_shape) != len(self.x_shape):
            raise RuntimeError(f"gather(): Index tensor must have the same number of "
                               f"dimensions as input tensor, but got an index of shape "
                               f"{shapes.fmt(index_shape)} for an input of shape "
                               f"{shapes.fmt(shape)}")
        for d, (i, s) in enumerate(zip(self.index_shape, self.x_shape)):
            if d != self.axis and i > s:
                raise RuntimeError(f"gather(): Size does not match at dimension {d} expected "
                                   f"index {shapes.fmt(index_shape)} to be no larger than "
                                   f"self {shapes.fmt(shape)} apart from dimension "
                                   f"{self.axis}")
        return index_shape, x._dtype

    def forward(self, backend, x, index):
        check_range(backend, self.op_name, index, self.x_shape[self.axis], self.axis)
        picks = along_axis(backend, backend.reshape(index, self.index_shape), self.axis)
        if self.recording:
            self.picks = picks
        out = backend.getitem(backend.reshape(x, self.x_shape), picks)
        return backend.reshape(out, index.shape)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        gx = backend.index_add(self.x_shape, self.picks, backend.reshape(gy, self.index_shape),
                               dtype)
        return backend.reshape(gx, tuple(shape)), None

    def backward_graph(self, grad):
        shape, dtype = self.input_specs[0]
        gx = placed(self, grad.reshape(self.index_shape), self.picks, self.x_shape, dtype)
        return gx.reshape(tuple(shape)), None


def check_range(backend, op: str, index, size: int, axis: int) -> None:
    """Raise PyTorch's RuntimeError when a position in ``index`` lies outside
    ``[0, size)``: NumPy would read a negative one from the end, and fail on a large one
    with its own message. On CUDA this reads two numbers back to the host."""
    if index.size == 0:
        return
    for value in index_bounds(backend, index):
        if not 0 <= value < size:
            raise RuntimeError(f"{op}(): index {value} is out of bounds for dimension {axis} "
                               f"with size {size}")


def index_bounds(backend, index) -> tuple:
    """The smallest and the largest position in a non-empty ``index``, as Python ints read
    back to the host (two numbers: on CUDA the check synchronises)."""
    return (int(backend.to_numpy(backend.min(index, None, False))),
            int(backend.to_numpy(backend.max(index, None, False))))
