"""``torch.cholesky_solve`` and ``torch.cholesky_inverse``: ``A⁻¹ B`` and ``A⁻¹`` for
``A = L Lᵀ`` (``Uᵀ U`` with ``upper``) given its Cholesky factor.

Only the factor's triangle is read, as LAPACK's ``potrs``/``potri`` read it; each
triangular system is solved with the backend's LU ``solve`` on that triangle (as
``linalg.solve_triangular`` does).

Backward is PyTorch's, which differentiates ``(L Lᵀ)⁻¹`` as a function of the whole ``L``
(so the gradient has entries outside the triangle too). With ``X = A⁻¹ B``:
``gB = A⁻¹ gX``, ``S = gB Xᵀ + X gBᵀ`` and ``gL = -S L`` (``-U S`` with ``upper``). For the
inverse ``Y = A⁻¹``: ``S = Y (gY + gYᵀ) Y`` and the same ``gL``. The graph formulas are the
same products of tensors, with ``gB`` from ``cholesky_solve`` itself and ``X``/``Y`` the ops'
own outputs, so they can be differentiated to any order (as PyTorch's).
"""

from __future__ import annotations

from .. import dtypes
from ..errors import ShapeRuntimeError
from . import linalg_checks as checks
from . import linalg_graph as lg
from .function import Function
from .graph_backward import reduce_to_input
from .matrix_arrays import add, diagonal, identity, mT, sum_to_batch, triangle


def _check_factor(op: str, factor) -> tuple:
    shape = tuple(factor._data.shape)
    if shape[-1] != shape[-2]:
        raise ShapeRuntimeError(op, f"A must be batches of square matrices, but they are "
                                    f"{shape[-2]} by {shape[-1]} matrices")
    return shape


def _apply_inverse(backend, factor, b, upper: bool):
    """``A⁻¹ b`` for ``A`` the product of ``factor``'s triangle and its transpose."""
    t = triangle(backend, factor, upper)
    first, second = (mT(backend, t), t) if upper else (t, mT(backend, t))
    y, _ = backend.solve(first, b)
    x, _ = backend.solve(second, y)
    return x


def _factor_gradient(backend, factor, s, upper: bool):
    """``-S L`` (``-U S`` with ``upper``): the gradient of the whole factor."""
    product = backend.matmul(factor, s) if upper else backend.matmul(s, factor)
    return backend.unary("neg", product)


def _graph_factor_gradient(factor, s, upper: bool):
    """``_factor_gradient`` with tensor ops."""
    return -(factor.matmul(s) if upper else s.matmul(factor))


class CholeskySolve(Function):
    """``A⁻¹ B`` for ``A`` given by its Cholesky factor; batch dims broadcast.

    Shape:
        ``B`` ``(*, n, k)``, factor ``(*, n, n)`` -> ``(*, n, k)`` (batch broadcast).

    Raises:
        RuntimeError for fewer than 2 dims, differing dtypes, a non-square factor or sizes
        that do not fit (PyTorch's messages).
    """

    op_name, backward_name = "cholesky_solve", "CholeskySolveBackward0"
    saved_for_backward = (1, "output")
    upper = False

    def infer(self, b, factor):
        op = self.op_name
        b_shape, f_shape = tuple(b._data.shape), tuple(factor._data.shape)
        if len(b_shape) < 2:
            raise RuntimeError(f"b should have at least 2 dimensions, but has {len(b_shape)} "
                               "dimensions instead")
        if len(f_shape) < 2:
            raise RuntimeError(f"u should have at least 2 dimensions, but has {len(f_shape)} "
                               "dimensions instead")
        if b._dtype is not factor._dtype:
            raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                               f"{checks.type_name(b._dtype)} and A of type "
                               f"{checks.type_name(factor._dtype)} instead.")
        _check_factor(op, factor)
        if f_shape[-1] != b_shape[-2]:
            raise ShapeRuntimeError(
                op, f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                    f"{f_shape[-2]} by {f_shape[-1]} but each b matrix is {b_shape[-2]} by "
                    f"{b_shape[-1]}")
        if b._dtype not in (dtypes.float32, dtypes.float64):
            raise NotImplementedError(f"\"cholesky_solve\" not implemented for "
                                      f"'{checks.type_name(b._dtype)}'; use float32 or float64")
        batch = checks.batch_broadcast(op, b_shape[:-2], f_shape[:-2])
        return (*batch, *b_shape[-2:]), b._dtype

    def forward(self, backend, b, factor):
        x = _apply_inverse(backend, factor, b, self.upper)
        if self.recording:
            self.factor, self.x = factor, x
        return x

    def backward(self, backend, g):
        factor, x = self.factor, self.x
        gb = _apply_inverse(backend, factor, g, self.upper)
        s = backend.matmul(gb, mT(backend, x))
        s = add(backend, s, mT(backend, s))
        gf = _factor_gradient(backend, factor, s, self.upper)
        (b_shape, _), (f_shape, _) = self.input_specs
        return sum_to_batch(backend, gb, b_shape), sum_to_batch(backend, gf, f_shape)

    def backward_graph(self, grad):
        factor = self.graph_input(1, self.factor)
        gb = CholeskySolve(upper=self.upper)(grad, factor)
        gf = None
        if self.needs_input_grad[1]:
            s = gb.matmul(lg.mT(self.graph_output(self.x)))
            gf = reduce_to_input(_graph_factor_gradient(factor, s + lg.mT(s), self.upper),
                                 self.input_specs[1])
        gb = reduce_to_input(gb, self.input_specs[0]) if self.needs_input_grad[0] else None
        return gb, gf


class CholeskyInverse(Function):
    """``A⁻¹`` for ``A`` given by its Cholesky factor (symmetric).

    Shape:
        ``(*, n, n)`` -> ``(*, n, n)``.

    Raises:
        RuntimeError for fewer than 2 dims or a non-square factor; ``LinAlgError`` when
        the factor has a zero on its diagonal (``A`` is singular).
    """

    op_name, backward_name = "cholesky_inverse", "CholeskyInverseBackward0"
    saved_for_backward = (0, "output")
    upper = False

    def infer(self, factor):
        shape = checks.square_shape(self.op_name, factor)
        return shape, factor._dtype

    def forward(self, backend, factor):
        n = factor.shape[-1]
        if factor.size:
            checks.raise_for_info(backend, self.op_name, _first_zero_pivot(backend, factor),
                                  checks.SINGULAR)
        y = _apply_inverse(backend, factor, identity(backend, n, factor.dtype), self.upper)
        if self.recording:
            self.factor, self.y = factor, y
        return y

    def backward(self, backend, g):
        y = self.y
        s = backend.matmul(y, backend.matmul(add(backend, g, mT(backend, g)), y))
        return (_factor_gradient(backend, self.factor, s, self.upper),)

    def backward_graph(self, grad):
        y = self.graph_output(self.y)
        s = y.matmul((grad + lg.mT(grad)).matmul(y))
        return (_graph_factor_gradient(self.graph_input(0, self.factor), s, self.upper),)


def _first_zero_pivot(backend, factor):
    """``potri``'s ``info``: the 1-based position of the first zero on each factor's
    diagonal, 0 where there is none (int32, the batch's shape)."""
    zero = backend.binary("eq", diagonal(backend, factor), 0)
    first = backend.argmax(zero, -1, False)
    found = backend.max(zero, -1, False)
    position = backend.binary("add", backend.astype(first, dtypes.int32), 1)
    return backend.where(found, position, backend.full((), 0, dtypes.int32))
