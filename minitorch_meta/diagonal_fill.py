"""``Tensor.fill_diagonal_``: ``fill_value`` written on the main diagonal, in place.

The diagonal's positions are a handful of integers known from the shape alone, so they are
listed on the host and the value is written through one advanced-index store (as ``eye``
writes its ones); on meta the store writes nothing. A matrix taller than wide has, with
``wrap=True``, its diagonal start again every ``columns + 1`` rows, as NumPy's and
PyTorch's do: the positions are every ``columns + 1``-th element in row-major order.
"""

from __future__ import annotations

from numbers import Number

from . import dtypes
from .ops import masked


def fill_diagonal_(self, fill_value: float, wrap: bool = False):
    """Write ``fill_value`` at ``self[i, i, ..., i]`` for every ``i`` (converted to this
    tensor's dtype as ``fill_`` converts it) and return this tensor.

    Shape:
        2 dims of any sizes, or more dims all of one size; the tensor keeps its shape.

    Raises:
        RuntimeError: fewer than 2 dims, unequal sizes with more than 2 dims (PyTorch's
            messages), or a write refused by the in-place rules (a leaf that requires grad,
            a tensor inside an autograd graph).
        TypeError: ``fill_value`` is not a number (or a 0-d tensor, read as its number).
    """
    value = _number(fill_value)
    shape = tuple(self.shape)
    if len(shape) < 2:
        raise RuntimeError(f"dimensions must larger than 1 (fill_diagonal_ got a tensor with "
                           f"{len(shape)} dimension(s))")
    if len(shape) > 2 and len(set(shape)) > 1:
        raise RuntimeError(f"all dimensions of input must be of equal length (fill_diagonal_ "
                           f"got shape {shape})")
    self._check_inplace("fill_diagonal_")
    index = tuple(self._backend.asarray(positions, dtypes.int64)
                  for positions in _diagonal_positions(shape, wrap))
    self._store(index, masked.fill_scalar("fill_diagonal_", value, self._dtype))
    return self


def _diagonal_positions(shape: tuple, wrap: bool) -> tuple:
    """One list per dim: the coordinates of the diagonal's elements."""
    if len(shape) > 2:
        return (list(range(shape[0])),) * len(shape)
    rows, columns = shape
    # Without wrap the diagonal stops after min(rows, columns) elements; with it a tall
    # matrix's diagonal restarts below, one empty row after each square block.
    end = rows * columns if wrap else min(rows, columns) * columns
    flat = range(0, end, columns + 1)
    return [p // columns for p in flat], [p % columns for p in flat]


def _number(value):
    """``fill_value`` as a Python number: a 0-d tensor or NumPy scalar gives its item."""
    if getattr(value, "shape", None) == () and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, Number):
        return value  # (a complex one fits a real tensor only with a zero imaginary part)
    raise TypeError(f"fill_diagonal_(): argument 'fill_value' (position 1) must be Number, "
                    f"not {type(value).__name__}")
