"""Reads and writes at masks, flat positions and index tuples: ``masked_select``,
``masked_scatter``, ``take``, ``take_along_dim``, ``put``, ``index_put`` (module functions
and Tensor methods), and the in-place ``masked_scatter_``, ``put_`` and ``index_put_``
(Tensor methods; ``index_put_`` is a module function too, as in PyTorch).

Each is one op of ``ops/masked_select.py``, ``ops/take_put.py`` or ``ops/index_put.py``,
except ``take_along_dim``, which is PyTorch's own composition: the input and the indices
broadcast over the other dims, then one ``gather`` (so ``grad_fn`` reads
``GatherBackward0``). A mask's number of True elements, which shapes the result of
``masked_select`` and the selection of ``index_put``, is counted here, where there are
values. The in-place forms follow ``scatter_``'s rules (``scatter_functions.py``).
"""

from __future__ import annotations

from . import dtypes
from . import functions as F
from .autocasting import autocast_op
from .int_arguments import as_int
from .ops import shapes
from .ops.index_put import IndexPut
from .ops.masked_select import MaskedScatter, MaskedSelect
from .ops.nonzero import count_nonzero
from .ops.take_put import Put, Take
from .scatter_functions import _in_place, unwritten
from .tensor_arguments import require_tensor


def masked_select(input, mask):
    """The elements of ``input`` where the bool ``mask`` (broadcast with it) is True, in
    C order, as a 1-D tensor.

    Raises:
        DataDependentShapeError (a ``NotImplementedError``) on meta: the length depends on
        the mask's values.
    """
    require_tensor("masked_select", "mask", mask, 2)
    return MaskedSelect(count=_true_count(mask))(input, mask)


def masked_scatter(input, mask, source):
    """``input`` (broadcast with the bool ``mask``) with its elements where ``mask`` is True
    replaced, in C order, by the first elements of ``source`` (same dtype, read flat)."""
    require_tensor("masked_scatter", "source", source, 3)
    return MaskedScatter()(input, mask, source)


def take(input, index):
    """The elements of ``input``, read as a 1-D tensor, at the positions of ``index`` (an
    int64 tensor of any shape, the result's shape; negative positions count from the end)."""
    return Take()(input, F._index_tensor("take", index))


def take_along_dim(input, indices, dim: int | None = None):
    """The elements of ``input`` at ``indices``' positions along ``dim`` (as ``gather``, but
    the two broadcast over the other dims); with ``dim=None``, both are read flat."""
    indices = F._index_tensor("take_along_dim", indices)
    if dim is None:
        return F.gather(F.reshape(input, (-1,)), 0, F.reshape(indices, (-1,)))
    dim = as_int("take_along_dim", "dim", dim)
    x_shape, index_shape = tuple(input.shape), tuple(indices.shape)
    if len(x_shape) != len(index_shape):
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {len(x_shape)} dimensions for "
                           f"input, and {len(index_shape)} dimensions for indices")
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype}; convert them with .long()")
    if not x_shape:
        raise IndexError(f"take_along_dim(): Dimension specified as {dim} but tensor has no "
                         "dimensions; leave dim=None for a 0-d input")
    axis = shapes.normalize_dim("take_along_dim", dim, len(x_shape))
    x_target = _broadcast_except(x_shape, index_shape, axis)
    index_target = _broadcast_except(index_shape, x_shape, axis)
    if x_target != x_shape:
        input = input.expand(*x_target)
    if index_target != index_shape:
        indices = indices.expand(*index_target)
    return F.gather(input, axis, indices)


def put(input, index, source, accumulate: bool = False):
    """``input``, read as a 1-D tensor, with ``source``'s elements written (or, with
    ``accumulate``, added) at the positions of ``index`` (int64, as many as ``source``
    has elements; negative positions count from the end)."""
    index = F._index_tensor("put", index)
    require_tensor("put", "source", source, 3)
    return Put(accumulate=bool(accumulate))(input, index, source)


@autocast_op("index_put")
def index_put(input, indices, values, accumulate: bool = False):
    """``input`` with ``values`` written at ``input[indices]`` (or, with ``accumulate``,
    added: repeated positions add up); ``indices`` is a tuple of int64/int32 tensors and
    bool masks over the leading dims, and ``values`` broadcast to the selection."""
    indices = _index_tuple(indices)
    require_tensor("index_put", "values", values, 3)
    counts = tuple(_true_count(i) if i.dtype is dtypes.bool_ else None for i in indices)
    return IndexPut(accumulate=bool(accumulate), counts=counts)(input, values, *indices)


# -- in-place forms -----------------------------------------------------------------------
def masked_scatter_(self, mask, source):
    """In-place ``masked_scatter`` (the mask broadcasts to this tensor's shape)."""
    return _in_place(self, "masked_scatter_", source, masked_scatter, mask, source)


def put_(self, index, source, accumulate: bool = False):
    """In-place ``put``."""
    return _in_place(self, "put_", source, put, index, source, accumulate)


def index_put_(input, indices, values, accumulate: bool = False):
    """In-place ``index_put`` (into an ``expand`` view too, without ``accumulate``, with
    PyTorch's deprecation warning)."""
    positions = None if accumulate else lambda: index_put(
        unwritten(input), indices, input.new_ones((), dtype=dtypes.bool_))
    return _in_place(input, "index_put_", values, index_put, indices, values, accumulate,
                     positions=positions)


# -- helpers ------------------------------------------------------------------------------
def _true_count(mask) -> int | None:
    """How many elements of ``mask`` are True (nonzero), or None on a backend without
    values (meta): the op's shape rule decides what it can without it."""
    return count_nonzero(mask) if mask._backend.stores_data else None


def _index_tuple(indices) -> tuple:
    """``indices`` as a tuple of Tensors, with PyTorch's TypeErrors."""
    tensor = F._tensor_type or F._find_tensor_type()
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 2) must be tuple of "
                        f"Tensors, not {type(indices).__name__}")
    for position, index in enumerate(indices):
        if not isinstance(index, tensor):
            raise TypeError(f"index_put(): expected Tensor as element {position} in argument "
                            f"'indices', but got {type(index).__name__}; index the dims "
                            "before it with full-range index tensors (arange)")
    return tuple(indices)


def _broadcast_except(shape: tuple, other: tuple, axis: int) -> tuple:
    """``shape`` broadcast with ``other`` along every dim but ``axis``, where it keeps its
    own size (``take_along_dim``'s rule)."""
    own = list(other)
    own[axis] = shape[axis]
    try:
        return shapes.broadcast("take_along_dim", own, shape)
    except shapes.ShapeError:
        raise shapes.ShapeRuntimeError(
            "take_along_dim", f"input and indices must broadcast together along every dim but "
            f"dim {axis}, but got shapes {shapes.fmt(shape)} and {shapes.fmt(other)}") from None

