"""``count_nonzero``: how many elements over the given dims are not zero (no gradient).

(``ops/nonzero.py`` counts all of them as a Python int, to size ``nonzero``'s output;
this is the tensor-valued reduction users call.)
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function


class CountNonzero(Function):
    """The number of nonzero elements (NaN counts) over ``dim``: None or an empty tuple for
    every dim, an int, or a tuple of ints.

    Shape:
        the input's shape without the reduced dims, int64.

    Raises:
        IndexError for a dim out of range, RuntimeError for a dim listed twice.
    """

    op_name, backward_name, differentiable = "count_nonzero", "CountNonzeroBackward0", False
    dim = None

    def infer(self, x):
        shape = x._data.shape
        self.axes = shapes.reduction_dims(self.op_name, self.dim, len(shape))
        return shapes.reduce_shape(self.op_name, shape, self.axes, False), dtypes.int64

    def forward(self, backend, x):
        nonzero = backend.binary("ne", x, x.dtype.type(0))
        out = backend.astype(backend.sum(nonzero, self.axes, False), dtypes.int64)
        return backend.asarray(out, None) if out.ndim == 0 else out
