"""``nonzero``: the coordinates of the nonzero elements (no gradient).

How many rows the result has depends on the values, so the caller counts them first
(``count_nonzero``) and the op's shape rule takes that count as a hyper-parameter. A meta
tensor has no values to count: ``count_nonzero`` raises there, as PyTorch's meta does.

The forward composes existing kernels: one comparison gives the mask, and for each dim a
broadcast ``arange`` of that dim's positions is read through the mask (boolean indexing
walks in C order, so row ``i`` of the result is the ``i``-th nonzero element).
"""

from __future__ import annotations

from .. import dtypes
from ..errors import DataDependentShapeError
from .function import Function


def count_nonzero(x, op: str = "nonzero") -> int:
    """How many elements of the tensor ``x`` are nonzero (NaN counts as nonzero); ``op``
    names the caller in the error.

    Raises:
        DataDependentShapeError on a backend without data (meta).
    """
    backend = x._backend
    if not backend.stores_data:
        raise DataDependentShapeError(
            f"{op}: the number of nonzero elements of a meta tensor (shape "
            f"{tuple(x._data.shape)}) is unknown, so the output's size is too (it depends on "
            f"the values); PyTorch's meta refuses {op} as well. Run it on a real device, "
            "or keep a boolean mask and use where/masked_fill, whose shapes are known")
    mask = backend.binary("ne", x._data, x._dtype.numpy.type(0))
    return int(backend.to_numpy(backend.sum(mask, None, False)))


class Nonzero(Function):
    """One row of coordinates per nonzero element of the input, in C order.

    ``count`` is the number of nonzero elements (``count_nonzero``).

    Shape:
        ``(count, input.dim())``, int64.
    """

    op_name, backward_name, differentiable = "nonzero", "NonzeroBackward0", False

    def infer(self, x):
        return (self.count, x._data.ndim), dtypes.int64

    def forward(self, backend, x):
        shape = x.shape
        out = backend.empty((self.count, len(shape)), dtypes.int64)
        if not self.count or not shape:
            return out
        mask = backend.binary("ne", x, x.dtype.type(0))
        zeros = backend.full(shape, 0, dtypes.int64)
        for d, size in enumerate(shape):
            along = [1] * len(shape)
            along[d] = size
            positions = backend.reshape(backend.arange(0, size, 1, dtypes.int64), tuple(along))
            grid = backend.binary("add", zeros, positions)
            backend.setitem(out, (slice(None), d), backend.getitem(grid, mask))
        return out
