"""``linalg.cholesky_ex``: the Cholesky factorisation, differentiable (QR is ``qr.py``).

Backward (real matrices; PyTorch's ``cholesky_backward``), for ``A = L Lᵀ``:
``Φ = tril(Lᵀ gL)``, ``P = (Φ + tril(Φ, -1)ᵀ) / 2`` (symmetric) and ``gA = L⁻ᵀ P L⁻¹``: a
symmetric gradient, as PyTorch's, though only the lower triangle of ``A`` is read. The
graph formula is the same with tensor ops (the triangles as constant masks, the solves by
``solve_triangular``), so it can be differentiated to any order.
"""

from __future__ import annotations

from .. import dtypes
from . import linalg_checks as checks
from . import linalg_graph as lg
from .function import Function
from .matrix_arrays import add, mT, mul, scalar, triangle


class LinalgCholeskyEx(Function):
    """The Cholesky factor of each symmetric positive-definite matrix (lower, or its
    transpose with ``upper``), read from the lower triangle; and ``info``.

    Shape:
        ``(*, n, n)`` -> the factor ``(*, n, n)`` and ``info`` int32 ``(*)``.

    Raises:
        RuntimeError for a non-square or non-float input; ``LinAlgError`` for a matrix
        that is not positive-definite with ``check_errors``.
    """

    op_name, backward_name = "linalg.cholesky_ex", "LinalgCholeskyExBackward0"
    multiple_outputs, saved_for_backward = True, ("output",)
    upper, check_errors = False, False

    def infer(self, a):
        shape = checks.square_shape(self.op_name, a)
        return [(shape, a._dtype), (shape[:-2], dtypes.int32)]

    def forward(self, backend, a):
        lower, info = backend.cholesky(a)
        if self.check_errors:
            checks.raise_for_info(backend, self.op_name, info, checks.NOT_POSITIVE_DEFINITE)
        if self.recording:
            self.lower = lower
        return (mT(backend, lower) if self.upper else lower), info

    def backward(self, backend, g):
        lower = self.lower
        lower_t = mT(backend, lower)
        g = mT(backend, g) if self.upper else g
        phi = triangle(backend, backend.matmul(lower_t, g), upper=False)
        p = mul(backend, add(backend, phi, mT(backend, triangle(backend, phi, False, -1))),
                scalar(phi, 0.5))
        left, _ = backend.solve(lower_t, p)  # L⁻ᵀ P
        right, _ = backend.solve(lower_t, mT(backend, left))  # (L⁻ᵀ P L⁻¹)ᵀ, symmetric
        return (right,)

    def backward_graph(self, grad):
        from .linalg_solve import LinalgSolveTriangular

        output = self.graph_output(mT(self.backend, self.lower) if self.upper else self.lower)
        lower = lg.mT(output) if self.upper else output
        g = lg.mT(grad) if self.upper else grad
        lower_t = lg.mT(lower)
        phi = lg.masked_triangle(self, lower_t.matmul(g), upper=False)
        p = (phi + lg.mT(lg.masked_triangle(self, phi, False, -1))) * 0.5
        left = LinalgSolveTriangular(upper=True)(lower_t, p)  # L⁻ᵀ P
        # (L⁻ᵀ P L⁻¹)ᵀ, symmetric (an op instance is one graph node: a new one per solve)
        return (LinalgSolveTriangular(upper=True)(lower_t, lg.mT(left)),)
