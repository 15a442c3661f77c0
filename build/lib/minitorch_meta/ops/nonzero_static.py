"""``torch.nonzero_static``: ``nonzero`` with a fixed number of rows (no gradient).

The caller gives the row count ``size``, so the shape is known without the values: it
works on meta, and the forward reads no count back to the host. The first ``size``
nonzero elements are found by a stable descending argsort of the flat "is nonzero" mask
(nonzeros first, each group in C order); the rows past the last nonzero element hold
``fill_value``.
"""

from __future__ import annotations

import math

from .. import dtypes
from .function import Function


class NonzeroStatic(Function):
    """The coordinates of the first ``size`` nonzero elements of the input in C order, one
    row each; rows past the number of nonzero elements hold ``fill_value``.

    Shape:
        ``(size, input.dim())``, int64.
    """

    op_name, backward_name, differentiable = "nonzero_static", "NonzeroStaticBackward0", False

    def infer(self, x):
        return (self.size, x._data.ndim), dtypes.int64

    def forward(self, backend, x):
        shape, size, fill = x.shape, self.size, self.fill_value
        out = backend.full((size, len(shape)), fill, dtypes.int64)
        numel = math.prod(shape)
        found_rows = min(size, numel)
        if not found_rows or not shape:
            return out
        flat = backend.reshape(x, (numel,))
        nonzero = backend.binary("ne", flat, flat.dtype.type(0))  # NaN counts as nonzero
        order = backend.argsort(backend.astype(nonzero, dtypes.int8), 0, True)
        positions = backend.getitem(order, slice(0, found_rows))
        found = backend.getitem(nonzero, positions)  # False once the nonzeros ran out
        filler = backend.full((found_rows,), fill, dtypes.int64)
        stride = numel
        for d, extent in enumerate(shape):
            stride //= extent
            coordinate = backend.binary("remainder",
                                        backend.binary("floor_divide", positions, stride), extent)
            backend.setitem(out, (slice(0, found_rows), d),
                            backend.where(found, coordinate, filler))
        return out


def nonzero_static(input, *, size: int, fill_value: int = -1):
    """The int64 ``(size, input.dim())`` coordinates of the first ``size`` nonzero elements
    of ``input`` in C order (NaN counts as nonzero), padded with rows of ``fill_value`` when
    there are fewer; unlike ``nonzero`` its shape does not depend on the values.

    Shape:
        input ``(*)`` of any rank; output ``(size, input.dim())``.

    Raises:
        TypeError: ``input`` is no tensor, or ``size``/``fill_value`` is not an int.
        RuntimeError: ``size`` is negative (PyTorch's message).
    """
    from ..tensor import Tensor

    if not isinstance(input, Tensor):
        raise TypeError(f"nonzero_static(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    for name, value in (("size", size), ("fill_value", fill_value)):
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise TypeError(f"nonzero_static(): argument '{name}' must be int, not "
                            f"{type(value).__name__}")
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got "
                           f"size={size}")
    return NonzeroStatic(size=size.__index__(), fill_value=fill_value.__index__())(input)
