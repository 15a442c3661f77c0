"""``torch.geqrf``: the QR factorisation of each matrix in LAPACK's compact form, ``R`` on
and above the diagonal and the Householder vectors below it, with their scales ``tau``
(``linalg.householder_product(a, tau)`` is then ``Q``). As in PyTorch it is not
differentiable: the result has a graph node, whose backward raises.
"""

from __future__ import annotations

from .. import dtypes
from ..errors import ShapeRuntimeError
from . import linalg_checks as checks
from .function import Function
from .matrix_arrays import array_dtype, flat_size, layout, pack


class Geqrf(Function):
    """``a`` and ``tau`` of each matrix, packed into one flat array.

    Shape:
        ``(*, m, n)`` -> flat: ``a`` ``(*, m, n)`` then ``tau`` ``(*, min(m, n))``.

    Raises:
        RuntimeError for fewer than 2 dims; NotImplementedError for a dtype other than
        float32/float64 (PyTorch's messages).
    """

    op_name, backward_name = "torch.geqrf", "GeqrfBackward0"

    def infer(self, a):
        shape = tuple(a._data.shape)
        if len(shape) < 2:
            raise ShapeRuntimeError(self.op_name, "input must have at least 2 dimensions.")
        if a._dtype not in (dtypes.float32, dtypes.float64):
            raise NotImplementedError(f"\"geqrf_{a.device.type}\" not implemented for "
                                      f"'{checks.type_name(a._dtype)}'; geqrf takes float32 "
                                      "or float64 tensors")
        *batch, m, n = shape
        self.parts = layout([shape, (*batch, min(m, n))])
        return (flat_size(self.parts),), a._dtype

    def forward(self, backend, a):
        return pack(backend, backend.geqrf(a), self.parts, array_dtype(a))

    def backward(self, backend, grad):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")
