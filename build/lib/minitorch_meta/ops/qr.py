"""``linalg.qr``: ``A = Q R``, batched and differentiable (``nn.init.orthogonal_`` uses it
too, under ``no_grad``).

Backward (real matrices; PyTorch's ``linalg_qr_backward``): with ``m >= n``,
``M = R gRᵀ - gQᵀ Q`` and ``gA = (gQ + Q copyltu(M)) R⁻ᵀ``, where
``copyltu(M) = tril(M) + tril(M, -1)ᵀ``. A wide ``A = [X | Y]`` (``m < n``) with
``R = [U | V]``: ``gY = Q gV`` and ``gX`` is the square case's with ``gQ + Y gVᵀ``.
``mode='r'`` keeps no ``Q``, and ``mode='complete'`` with ``m > n`` a ``Q`` that ``A`` does
not determine: there backward raises, as PyTorch's. The graph formula is in
``decomposition_graph.py``.
"""

from __future__ import annotations

from . import decomposition_graph as dg
from . import linalg_checks as checks
from .function import Function
from .matrix_arrays import add, array_dtype, flat_size, layout, mT, pack, sub, triangle, unpack

QR_MODES = ("reduced", "complete", "r")


class LinalgQr(Function):
    """``Q`` and ``R`` of each matrix, packed into one flat array (``Q`` empty for
    ``mode='r'``).

    Shape:
        ``(*, m, n)``, ``k = min(m, n)``: ``'reduced'`` ``Q`` ``(*, m, k)``, ``R``
        ``(*, k, n)``; ``'complete'`` ``Q`` ``(*, m, m)``, ``R`` ``(*, m, n)``; ``'r'``
        ``Q`` ``(0,)``, ``R`` ``(*, k, n)``.
    """

    op_name, backward_name = "linalg.qr", "LinalgQrBackward0"
    saved_for_backward = ("output",)
    mode = "reduced"

    def infer(self, a):
        if self.mode not in QR_MODES:
            raise RuntimeError(f"qr received unrecognized mode '{self.mode}' but expected one "
                               "of 'reduced' (default), 'r', or 'complete'")
        shape = checks.matrix_shape(self.op_name, a)
        *batch, m, n = shape
        k = m if self.mode == "complete" else min(m, n)
        q = (0,) if self.mode == "r" else (*batch, m, k)
        self.parts = layout([q, (*batch, k, n)])
        return (flat_size(self.parts),), a._dtype

    def forward(self, backend, a):
        q, r = backend.qr(a, self.mode)
        if self.recording:
            self.q, self.r = q, r
        if q is None:
            q = backend.empty((0,), array_dtype(a))
        return pack(backend, (q, r), self.parts, array_dtype(a))

    def _check_differentiable(self):
        m, n = self.input_specs[0][0][-2:]
        if self.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                               "are going to differentiate through linalg.qr.")
        if self.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when "
                               "mode='complete' and nrows > ncols.")

    def backward(self, backend, g):
        m, n = self.input_specs[0][0][-2:]
        self._check_differentiable()
        q, r = self.q, self.r
        gq, gr = unpack(backend, g, self.parts)
        if m >= n:
            return (qr_backward_tall(backend, q, r, gq, gr),)
        # A = [X | Y] with X = Q U square: Y = Q V moves with Q too.
        left, right = (Ellipsis, slice(0, m)), (Ellipsis, slice(m, n))
        gv = backend.getitem(gr, right)
        y = backend.matmul(q, backend.getitem(r, right))
        gx = qr_backward_tall(backend, q, backend.getitem(r, left),
                              add(backend, gq, backend.matmul(y, mT(backend, gv))),
                              backend.getitem(gr, left))
        ga = backend.empty(gx.shape[:-1] + (n,), array_dtype(gx))
        backend.setitem(ga, left, gx)
        backend.setitem(ga, right, backend.matmul(q, gv))
        return (ga,)

    def backward_graph(self, grad):
        self._check_differentiable()
        q, r = dg.packed_output(self, (self.q, self.r))
        gq, gr = dg.unpacked(grad, self.parts)
        return (dg.qr_backward(self, q, r, gq, gr),)


def qr_backward_tall(backend, q, r, gq, gr):
    """``gA`` for ``A = Q R`` with ``m >= n`` (module docstring)."""
    m = sub(backend, backend.matmul(r, mT(backend, gr)), backend.matmul(mT(backend, gq), q))
    sym = add(backend, triangle(backend, m, False), mT(backend, triangle(backend, m, False, -1)))
    b = add(backend, gq, backend.matmul(q, sym))
    x_t, _ = backend.solve(r, mT(backend, b))  # (B R⁻ᵀ)ᵀ = R⁻¹ Bᵀ
    return mT(backend, x_t)
