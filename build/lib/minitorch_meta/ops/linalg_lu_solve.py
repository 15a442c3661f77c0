"""``linalg.lu_solve``: ``X`` with ``A X = B`` from ``A``'s LU factorisation (``P``, ``L``,
``U`` packed by ``lu_factor``), or ``Aᵀ X = B`` (``adjoint``), ``X A = B`` (not ``left``)
or ``X Aᵀ = B``.

Each case is one of the two left systems: ``A X = B`` is ``X = U⁻¹ L⁻¹ Pᵀ B`` and
``Aᵀ X = B`` is ``X = P L⁻ᵀ U⁻ᵀ B``; the right systems are the left ones of the
transposes (``X A = B`` is ``Aᵀ Xᵀ = Bᵀ``). The triangular systems are solved with the
backend's ``solve`` on the triangles, as ``solve_triangular`` does.

Backward, with ``M`` the matrix of the left system (``A`` or ``Aᵀ``) and ``X = M⁻¹ B``:
``gB = M⁻ᵀ gX`` (the other left system), ``gM = -gB Xᵀ``; with ``A = P L U``, the packed
``LU`` gets ``tril(Pᵀ gA Uᵀ, -1)`` below its diagonal and ``triu(Lᵀ Pᵀ gA)`` on and
above it, the gradients of ``L`` and ``U``. The graph formula solves for ``gB`` with
``lu_solve`` itself, so it can be differentiated to any order.
"""

from __future__ import annotations

from .. import dtypes
from ..errors import ShapeRuntimeError
from . import decomposition_graph as dg
from . import linalg_checks as checks
from . import linalg_graph as lg
from .function import Function
from .graph_backward import reduce_to_input
from .linalg_lu import permutation, permutation_matrix, split_lu
from .matrix_arrays import add, mT, sum_to_batch, triangle


class LinalgLuSolve(Function):
    """``X`` from ``LU``, ``pivots`` and ``B`` (module docstring); batch dims broadcast.

    Shape:
        ``LU`` ``(*, n, n)``, ``pivots`` int32 ``(*, n)``, ``B`` ``(*, n, k)`` (``(*, k, n)``
        when not ``left``) -> ``B``'s shape with the batch dims broadcast.

    Raises:
        RuntimeError for shapes or dtypes that do not fit, with PyTorch's messages.
    """

    op_name, backward_name = "linalg.lu_solve", "LinalgLuSolveBackward0"
    saved_for_backward = (0, 1, "output")
    left, adjoint = True, False

    def infer(self, lu, pivots, b):
        op = self.op_name
        lu_shape = checks.square_shape("torch." + op, lu, "A")
        b_shape = tuple(b._data.shape)
        if len(b_shape) < 2:
            raise ShapeRuntimeError(op, "The input tensor B must have at least 2 dimensions.")
        if lu._dtype is not b._dtype:
            raise RuntimeError(f"{op}: Expected LU and B to have the same dtype, but found LU "
                               f"of type {checks.type_name(lu._dtype)} and B of type "
                               f"{checks.type_name(b._dtype)} instead")
        if pivots._dtype is not dtypes.int32:
            raise RuntimeError(f"{op}: pivots should be a Tensor of scalar type torch.int32")
        if tuple(pivots._data.shape) != lu_shape[:-1]:
            raise ShapeRuntimeError(op, "Number of pivots per batch should be same as the "
                                        "dimension of the matrix")
        if (b_shape[-2] if self.left else b_shape[-1]) != lu_shape[-1]:
            raise checks.incompatible(op, lu_shape, b_shape, self.left)
        batch = checks.batch_broadcast(op, lu_shape[:-2], b_shape[:-2])
        return batch + b_shape[-2:], b._dtype

    def _solve(self, backend, b, adjoint: bool):
        """``A⁻¹ b`` (``A⁻ᵀ b`` when ``adjoint``), ``A = P L U``."""
        if adjoint:
            y = backend.solve(mT(backend, self.upper), b)[0]
            return backend.matmul(self.p, backend.solve(mT(backend, self.lower), y)[0])
        y = backend.solve(self.lower, backend.matmul(mT(backend, self.p), b))[0]
        return backend.solve(self.upper, y)[0]

    @property
    def _transposed_adjoint(self) -> bool:
        """Whether the left system solved is ``Aᵀ X' = B'``."""
        return self.adjoint != (not self.left)

    def _primed(self, backend, b):
        return b if self.left else mT(backend, b)

    def forward(self, backend, lu, pivots, b):
        self.lower, self.upper = split_lu(backend, lu)
        self.p = permutation_matrix(backend, permutation(backend, pivots, lu.shape[-1]),
                                    dtypes.from_numpy(lu.dtype))
        x = self._solve(backend, self._primed(backend, b), self._transposed_adjoint)
        if self.recording:
            self.x, self.lu, self.pivots = x, lu, pivots
        return self._primed(backend, x)

    def backward(self, backend, g):
        (lu_shape, _), _, (b_shape, _) = self.input_specs
        adjoint = self._transposed_adjoint
        gb = self._solve(backend, self._primed(backend, g), not adjoint)
        gm = backend.unary("neg", backend.matmul(gb, mT(backend, self.x)))
        ga = mT(backend, gm) if adjoint else gm
        pt_ga = backend.matmul(mT(backend, self.p), ga)
        glu = add(backend,
                  triangle(backend, backend.matmul(pt_ga, mT(backend, self.upper)), False, -1),
                  triangle(backend, backend.matmul(mT(backend, self.lower), pt_ga), True))
        return (sum_to_batch(backend, glu, lu_shape), None,
                sum_to_batch(backend, self._primed(backend, gb), b_shape))

    def backward_graph(self, grad):
        lu_spec, _, b_spec = self.input_specs
        adjoint = self._transposed_adjoint
        lu = self.graph_input(0, self.lu)
        pivots = self.constant(self.pivots)
        # gB' = M⁻ᵀ gX': the other left system, solved by this op again
        gb = LinalgLuSolve(adjoint=not adjoint)(lu, pivots, self._graph_primed(grad))
        x = self.graph_output(self._primed(self.backend, self.x))
        glu = None
        if self.needs_input_grad[0]:
            gm = -(gb.matmul(lg.mT(self._graph_primed(x))))
            pt_ga = self.constant(mT(self.backend, self.p)).matmul(
                lg.mT(gm) if adjoint else gm)
            lower, upper = dg.lu_factors(self, lu)
            glu = reduce_to_input(
                dg.triangle(self, pt_ga.matmul(lg.mT(upper)), False, -1)
                + dg.triangle(self, lg.mT(lower).matmul(pt_ga), True), lu_spec)
        gb = reduce_to_input(self._graph_primed(gb), b_spec) if self.needs_input_grad[2] \
            else None
        return glu, None, gb

    def _graph_primed(self, t):
        return t if self.left else lg.mT(t)
