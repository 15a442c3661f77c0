"""Reduced QR factorisation, for ``nn.init.orthogonal_``.

Not differentiable (``differentiable = False``: its outputs never carry a gradient), which
is why it is not offered as ``torch.linalg.qr``: PyTorch's is, and a silent missing
gradient would be a trap. Initialisers run under ``no_grad`` and need none.
"""

from __future__ import annotations

from .function import Function
from .shapes import ShapeError, fmt


class Qr(Function):
    """``(q, r)`` with ``a = q @ r``, ``q`` orthonormal columns, ``r`` upper triangular.

    Shape:
        ``(m, n)`` -> ``q`` ``(m, k)`` and ``r`` ``(k, n)``, ``k = min(m, n)``.

    Raises:
        ShapeError: the input is not 2-D. TypeError: it is not floating-point.
    """

    op_name, backward_name = "qr", "LinalgQrBackward0"
    multiple_outputs, differentiable = True, False

    def infer(self, a):
        shape = a._data.shape
        if len(shape) != 2:
            raise ShapeError(self.op_name, f"expected a 2-D matrix, got shape {fmt(shape)}")
        if not a._dtype.is_floating_point:
            raise TypeError(f"qr: expected a floating-point tensor, got dtype {a._dtype}")
        m, n = shape
        k = min(m, n)
        return [((m, k), a._dtype), ((k, n), a._dtype)]

    def forward(self, backend, a):
        return backend.qr(a)
