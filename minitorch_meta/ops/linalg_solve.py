"""``linalg.inv_ex``, ``linalg.solve`` and ``linalg.solve_triangular``: ``A⁻¹`` and ``A⁻¹ B``.

All three run on the backend's LU kernels (``inv``, ``solve``). A triangular system is
solved as a general one on the triangle of ``A`` it reads (the backends have no batched
triangular solver); the result is the same, the cost that of an LU. ``left=False``
(``X A = B``) is the left system of the transposes, ``Aᵀ Xᵀ = Bᵀ``.

Backward, with ``X = A⁻¹ B``: ``gB = A⁻ᵀ gX`` and ``gA = -gB Xᵀ`` (for the inverse,
``gA = -Xᵀ gX Xᵀ``); a triangular ``A`` keeps the part of ``gA`` on its triangle. The graph
formulas (``backward_graph``) are the same products with ``gB`` solved by ``solve`` itself
and ``X`` the op's own output, so they can be differentiated to any order.
"""

from __future__ import annotations

from .. import dtypes
from ..errors import LinAlgError
from . import linalg_checks as checks
from . import linalg_graph as lg
from .function import Function
from .graph_backward import reduce_to_input
from .matrix_arrays import mT, sum_to_batch, triangle, with_unit_diagonal


class LinalgInvEx(Function):
    """The inverse of each square matrix, and ``info`` (0, or where the LU broke down).

    Shape:
        ``(*, n, n)`` -> the inverse ``(*, n, n)`` and ``info`` int32 ``(*)``.

    Raises:
        RuntimeError for a non-square or non-float input; ``LinAlgError`` for a singular
        one with ``check_errors``.
    """

    op_name, backward_name = "linalg.inv_ex", "LinalgInvExBackward0"
    multiple_outputs, saved_for_backward = True, ("output",)
    check_errors = False

    def infer(self, a):
        shape = checks.square_shape(self.op_name, a)
        return [(shape, a._dtype), (shape[:-2], dtypes.int32)]

    def forward(self, backend, a):
        inverse, info = backend.inv(a)
        if self.check_errors:
            checks.raise_for_info(backend, self.op_name, info, checks.SINGULAR)
        if self.recording:
            self.inverse = inverse
        return inverse, info

    def backward(self, backend, g):
        x_t = mT(backend, self.inverse)
        return (backend.unary("neg", backend.matmul(backend.matmul(x_t, g), x_t)),)

    def backward_graph(self, grad):
        x_t = lg.mT(self.graph_output(self.inverse))
        return (-(x_t.matmul(grad).matmul(x_t)),)


class _LeftSolve(Function):
    """The shared part of ``solve`` and ``solve_triangular``: ``A' X' = B'`` with ``A'``
    the matrix that is solved with (``matrix``) and the primes transposes when
    ``left=False``. ``vector``: ``B`` is a batch of vectors, a one-column ``B``."""

    saved_for_backward = (0, "output")
    left, vector = True, False

    def matrix(self, backend, a):
        return a

    def project(self, backend, ga):
        """The gradient of ``A`` from the gradient of the matrix solved with."""
        return ga

    def graph_matrix(self, a):
        """``matrix`` with tensor ops: the matrix solved with, from input tensor ``a``."""
        return a

    def graph_project(self, ga):
        """``project`` with tensor ops."""
        return ga

    def _primed(self, backend, b):
        if self.vector:
            return backend.reshape(b, b.shape + (1,))
        return b if self.left else mT(backend, b)

    def _unprimed(self, backend, x, shape):
        if self.vector:
            return backend.reshape(x, shape)
        return x if self.left else mT(backend, x)

    def forward(self, backend, a, b):
        m = self.matrix(backend, a)
        x, info = backend.solve(m if self.left else mT(backend, m), self._primed(backend, b))
        self.check(backend, info)
        if self.recording:
            self.a, self.x = m, x
        return self._unprimed(backend, x, self.out_shape)

    def check(self, backend, info):
        """Raise for a singular matrix (``solve_triangular`` returns inf/NaN as PyTorch)."""

    def backward(self, backend, g):
        (a_shape, _), (b_shape, _) = self.input_specs
        m = self.a
        # A'ᵀ gB' = gX', with A'ᵀ = A when left=True and Aᵀ otherwise.
        gb, _ = backend.solve(mT(backend, m) if self.left else m, self._primed(backend, g))
        ga = backend.unary("neg", backend.matmul(gb, mT(backend, self.x)))
        ga = self.project(backend, ga if self.left else mT(backend, ga))
        gb = self._unprimed(backend, gb, self.out_shape)
        return sum_to_batch(backend, ga, a_shape), sum_to_batch(backend, gb, b_shape)

    def backward_graph(self, grad):
        a_spec, b_spec = self.input_specs
        # Input 0 joined with what forward saved of it, the matrix solved with (for
        # ``solve_triangular`` its triangle): ``graph_matrix`` projects it again, which
        # leaves those values as they are and records the projection for a leaf ``A``.
        m = self.graph_matrix(self.graph_input(0, self.a))
        x = self.graph_output(self._unprimed(self.backend, self.x, self.out_shape))
        # A'ᵀ gB' = gX', with A'ᵀ = Aᵀ when left=True and A otherwise (as ``backward``)
        gb = lg.solve(lg.mT(m) if self.left else m, self._graph_primed(grad))
        ga = None
        if self.needs_input_grad[0]:
            ga = -(gb.matmul(lg.mT(self._graph_primed(x))))
            ga = reduce_to_input(self.graph_project(ga if self.left else lg.mT(ga)), a_spec)
        gb = reduce_to_input(self._graph_unprimed(gb), b_spec) if self.needs_input_grad[1] \
            else None
        return ga, gb

    def _graph_primed(self, t):
        if self.vector:
            return t.unsqueeze(-1)
        return t if self.left else lg.mT(t)

    def _graph_unprimed(self, t):
        if self.vector:
            return t.reshape(self.out_shape)
        return t if self.left else lg.mT(t)


class LinalgSolveEx(_LeftSolve):
    """``X`` with ``A X = B`` (``X A = B`` with ``left=False``); ``B`` a batch of matrices
    or, when 1-D or of ``A``'s shape without its last dim, of vectors.

    Shape:
        ``A`` ``(*, n, n)``, ``B`` ``(*, n, k)`` or ``(*, n)`` -> ``B``'s shape with the
        batch dims broadcast, and ``info`` int32 ``(*)`` of ``A``'s batch.

    Raises:
        RuntimeError for shapes or dtypes that do not fit; ``LinAlgError`` when ``A`` is
        singular and ``check_errors``.
    """

    op_name, backward_name = "linalg.solve", "LinalgSolveExBackward0"
    #: ``solve_ex``'s second output: ``info`` int32 of ``A``'s batch (as ``inv_ex``'s)
    multiple_outputs, check_errors, error_name = True, True, "torch.linalg.solve"

    def infer(self, a, b):
        op = self.op_name
        a_shape = checks.square_shape(op, a)
        b_shape = tuple(b._data.shape)
        if not b_shape:
            raise checks.ShapeRuntimeError(op, "The input tensor B must have at least 2 "
                                               "dimensions.")
        checks.check_same_dtype(op, a, b)
        n = a_shape[-1]
        self.vector = len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1
                                            and b_shape == a_shape[:-1])
        matrix = b_shape + (1,) if self.vector else b_shape
        rows = matrix[-2] if self.left else matrix[-1]
        if rows != n:
            raise checks.incompatible(op, a_shape, matrix, self.left)
        batch = checks.batch_broadcast(op, a_shape[:-2], matrix[:-2])
        self.out_shape = batch + (matrix[-2:-1] if self.vector else matrix[-2:])
        return [(self.out_shape, a._dtype), (a_shape[:-2], dtypes.int32)]

    def forward(self, backend, a, b):
        x = super().forward(backend, a, b)
        return x, _info_of_a(backend, self.info, a.shape[:-2])

    def check(self, backend, info):
        self.info = info
        if self.check_errors and any(value != 0 for value in backend.to_numpy(info).reshape(-1)):
            raise LinAlgError(f"{self.error_name}: The solver failed because the input "
                              "matrix is singular.")


class LinalgSolveTriangular(_LeftSolve):
    """``X`` with ``A X = B`` (``X A = B`` with ``left=False``) for triangular ``A``: only
    its ``upper`` (or lower) triangle is read, and its diagonal taken as ones with
    ``unitriangular``. A zero on the diagonal gives inf/NaN, as in PyTorch, not an error.

    Shape:
        ``A`` ``(*, n, n)``, ``B`` ``(*, n, k)`` (``(*, k, n)`` with ``left=False``) ->
        ``B``'s shape with the batch dims broadcast.

    Raises:
        RuntimeError for shapes or dtypes that do not fit.
    """

    op_name, backward_name = "linalg.solve_triangular", "LinalgSolveTriangularBackward0"
    upper, unitriangular = None, False

    def infer(self, a, b):
        op = self.op_name
        a_shape = checks.square_shape(op, a, any_dtype=True)
        b_shape = checks.matrix_shape(op, b, "B", any_dtype=True)
        checks.check_same_dtype(op, a, b)
        if (b_shape[-2] if self.left else b_shape[-1]) != a_shape[-1]:
            raise checks.incompatible(op, a_shape, b_shape, self.left)
        batch = checks.batch_broadcast(op, a_shape[:-2], b_shape[:-2])
        # the dtype is checked last, by PyTorch's kernel dispatch (even for empty matrices)
        checks.check_kernel_dtype("triangular_solve_cpu", a, even_empty=True)
        self.out_shape = batch + b_shape[-2:]
        return self.out_shape, a._dtype

    def matrix(self, backend, a):
        t = triangle(backend, a, self.upper)
        return with_unit_diagonal(backend, t) if self.unitriangular else t

    def project(self, backend, ga):
        return triangle(backend, ga, self.upper, self._offset)

    @property
    def _offset(self) -> int:
        """The diagonal the read triangle starts from: off the diagonal with
        ``unitriangular`` (its ones are no input)."""
        return (1 if self.upper else -1) if self.unitriangular else 0

    def graph_matrix(self, a):
        t = lg.masked_triangle(self, a, self.upper, self._offset)
        return t + lg.eye(self, t) if self.unitriangular else t

    def graph_project(self, ga):
        return lg.masked_triangle(self, ga, self.upper, self._offset)



def _info_of_a(backend, info, a_batch: tuple):
    """``info`` of the broadcast batch cut to ``A``'s batch (the copies agree): PyTorch's
    ``info`` is that of ``A``'s factorisation. An empty broadcast batch factored
    nothing: ``A``'s ``info`` is then 0 (``A`` of batch ``(2,)``, ``B`` of ``(0, 2)``)."""
    if 0 in info.shape:
        return backend.full(a_batch, 0, dtypes.int32)
    extra = info.ndim - len(a_batch)
    index = (0,) * extra + tuple(slice(None) if size == full else slice(0, 1)
                                 for size, full in zip(a_batch, info.shape[extra:]))
    return backend.getitem(info, index)
