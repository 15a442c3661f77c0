"""Index-building functions: ``argwhere``, ``tril_indices``/``triu_indices`` and
``unravel_index``.

``argwhere`` is ``nonzero`` (its size is read from the data, so meta refuses it).
``unravel_index`` is PyTorch's composition, a ``floor_divide`` by each dim's stride and a
``remainder`` by its size, so an index outside the shape wraps around as in PyTorch.
The triangle indices are factories whose size follows from ``row``, ``col`` and
``offset`` alone (so meta gives their shape without data); on a data device each
position's row is found with the ``searchsorted`` kernel over the running count of the
rows' lengths. None has a gradient.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

from . import dtypes
from . import functions as F
from .backends.registry import get_backend
from .device import to_device


def argwhere(input):  # noqa: A002 - PyTorch's name
    """The coordinates of the nonzero elements of ``input``, one row each, in C order
    (``nonzero(input)``).

    Shape:
        ``(count, input.dim())``, int64.

    Raises:
        DataDependentShapeError (a ``NotImplementedError``) on meta: the count depends on
        the values.
    """
    from .ops.nonzero import Nonzero, count_nonzero

    return Nonzero(count=count_nonzero(input, "argwhere"))(input)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None,
                 layout=None, requires_grad: bool = False):
    """The coordinates of the lower triangle of a ``row`` x ``col`` matrix, row by row:
    row ``i`` holds the columns ``j <= i + offset``. Row 0 of the result holds the row
    indices, row 1 the column indices.

    Shape:
        ``(2, count)``, int64 unless ``dtype`` (int32 or int64) says otherwise.
    """
    return _triangle_indices("tril_indices", True, row, col, offset, dtype, device, layout,
                             requires_grad)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None,
                 layout=None, requires_grad: bool = False):
    """The coordinates of the upper triangle of a ``row`` x ``col`` matrix, row by row:
    row ``i`` holds the columns ``j >= i + offset``.

    Shape:
        ``(2, count)``, int64 unless ``dtype`` (int32 or int64) says otherwise.
    """
    return _triangle_indices("triu_indices", False, row, col, offset, dtype, device, layout,
                             requires_grad)


def _triangle_indices(op: str, lower: bool, row, col, offset, dtype, device, layout,
                      requires_grad: bool):
    row, col, offset = (_position_int(op, name, k, value) for k, (name, value) in
                        enumerate((("row", row), ("col", col), ("offset", offset)), 1))
    for name, value in (("row", row), ("col", col)):
        if value < 0:
            raise RuntimeError(f"{op}: {name} must be non-negative, got {value}")
    dtype = dtypes.int64 if dtype is None else dtypes.to_dtype(dtype)
    if dtype not in (dtypes.int64, dtypes.int32):
        raise NotImplementedError(f'"{op}" not implemented for {dtype}: the indices are '
                                  "int64 or int32")
    if layout is not None and str(layout) != "torch.strided":
        raise RuntimeError(f"{op}: only the strided layout is supported, got {layout}")
    count = _lower_count(row, col, offset) if lower else row * col - _lower_count(
        row, col, offset - 1)
    backend = get_backend(to_device(device))
    out = backend.empty((2, count), dtype)
    if count and backend.stores_data:  # meta: the shape is all there is
        _fill_triangle(backend, out, lower, row, col, offset)
    result = F._find_tensor_type()._make(out, backend)
    return result.requires_grad_(True) if requires_grad else result


def _position_int(op: str, name: str, position: int, value) -> int:
    if not _is_int(value) or isinstance(value, bool):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be int, not "
                        f"{type(value).__name__}")
    return operator.index(value)


def _is_int(value) -> bool:
    """A Python or NumPy integer (anything with ``__index__`` but a tensor)."""
    return hasattr(type(value), "__index__") and not _is_tensor(value)


def _lower_count(row: int, col: int, offset: int) -> int:
    """How many positions of a ``row`` x ``col`` matrix have ``j <= i + offset``: row ``i``
    has ``clamp(i + offset + 1, 0, col)`` of them, summed in closed form."""
    start = offset + 1
    return _clamped_sum(start + row, col) - _clamped_sum(start, col)


def _clamped_sum(n: int, col: int) -> int:
    """``sum(min(u, col) for u in range(n))`` (0 for ``n <= 0``)."""
    if n <= 0:
        return 0
    if n <= col + 1:
        return n * (n - 1) // 2
    return col * (col + 1) // 2 + (n - col - 1) * col


def _fill_triangle(backend, out, lower: bool, row: int, col: int, offset: int) -> None:
    """Write the coordinates into ``out`` (2, count): each row's run of columns
    ``[first, stop)``, the runs one after the other."""
    int64 = dtypes.int64
    rows = backend.arange(0, row, 1, int64)
    diagonal = backend.binary("add", rows, offset + 1 if lower else offset)
    bound = backend.binary("minimum", backend.binary("maximum", diagonal, 0), col)
    first = backend.full((row,), 0, int64) if lower else bound
    stop = bound if lower else backend.full((row,), col, int64)
    lengths = backend.binary("sub", stop, first)
    ends = backend.cumsum(lengths, 0)
    position = backend.arange(0, out.shape[1], 1, int64)
    # The row of a position: how many runs end at or before it.
    which = backend.searchsorted(ends, position, True)
    run_start = backend.binary("sub", backend.getitem(ends, which),
                               backend.getitem(lengths, which))
    column = backend.binary("add", backend.binary("sub", position, run_start),
                            backend.getitem(first, which))
    backend.setitem(out, 0, which)
    backend.setitem(out, 1, column)


def unravel_index(indices, shape) -> tuple:
    """The coordinates, in a C-ordered tensor of ``shape``, of each flat index in
    ``indices`` (an integer tensor): one int64 tensor per dim of ``shape``. An index outside
    ``[0, numel)`` wraps around (``-1`` is the last element), as in PyTorch.

    Shape:
        ``len(shape)`` tensors of ``indices``' shape, int64.

    Raises:
        TypeError for indices that are not integer or a shape that is not ints;
        ValueError for a negative size; RuntimeError (PyTorch's ZeroDivisionError) when
        a size is 0 and there are indices.
    """
    if not _is_tensor(indices):
        raise TypeError(f"unravel_index(): argument 'indices' must be Tensor, not "
                        f"{type(indices).__name__}")
    if indices.dtype.is_floating_point or indices.dtype is dtypes.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    sizes = _shape_sizes(shape)
    if 0 in sizes:  # no element: every coordinate would be taken modulo 0
        if indices.numel():
            raise RuntimeError(f"ZeroDivisionError: unravel_index: the shape {sizes} has no "
                               f"elements, so no flat index lies in it (got {indices.numel()} "
                               "indices)")
        from .factories import zeros

        return tuple(zeros(tuple(indices.shape), dtype=dtypes.int64, device=indices.device)
                     for _ in sizes)
    strides = [math.prod(sizes[d + 1:]) for d in range(len(sizes))]  # C order
    from .factories import tensor

    strides, sizes = (tensor(list(v), dtype=dtypes.int64, device=indices.device)
                      for v in (strides, sizes))
    coordinates = F.reshape(indices, tuple(indices.shape) + (1,)).floor_divide(
        strides).remainder(sizes)
    return F.unbind(coordinates, -1)


def _shape_sizes(shape) -> tuple:
    """``unravel_index``'s ``shape``: an int or a sequence of non-negative ints."""
    if _is_int(shape):
        shape = (shape,)
    if not isinstance(shape, Sequence):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got "
                        f"{type(shape)}")
    for size in shape:
        if not _is_int(size):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got "
                            f"{type(size)}")
    sizes = tuple(operator.index(s) for s in shape)
    if any(s < 0 for s in sizes):
        raise ValueError(f"'shape' cannot have negative values, but got {sizes}")
    return sizes


def _is_tensor(value) -> bool:
    # Looked up at call time: ``tensor.py`` imports this module (for the Tensor methods).
    return isinstance(value, F._tensor_type or F._find_tensor_type())
