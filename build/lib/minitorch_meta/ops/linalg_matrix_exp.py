"""``linalg.matrix_exp``: the exponential of each square matrix, ``sum_k A^k / k!``.

Forward is the backend's ``matrix_exp`` kernel (scaling and squaring, Padé [13/13]).
Backward, as PyTorch's: the gradient of ``exp`` at ``A`` along ``G`` is the top-right block
of the exponential of the block matrix ``[[Aᵀ, G], [0, Aᵀ]]`` (the Fréchet derivative of
``exp`` at ``Aᵀ`` in the direction ``G``, which is the adjoint of the one at ``A``), so it
costs one matrix exponential of twice the size and is exact to the same accuracy. The
graph formula is the same block exponential with tensor ops: a ``matrix_exp`` again, so it
can be differentiated to any order.
"""

from __future__ import annotations

from ..errors import ShapeRuntimeError
from . import decomposition_graph as dg
from . import linalg_checks as checks
from .function import Function
from .matrix_arrays import array_dtype, mT


class LinalgMatrixExp(Function):
    """``exp(A)`` of each square matrix (float16, float32 or float64; the dtype kept).

    Shape:
        ``(*, n, n)`` -> ``(*, n, n)``.

    Raises:
        RuntimeError for fewer than 2 dims, non-square matrices or a non-float dtype, with
        PyTorch's messages.
    """

    op_name, backward_name = "linalg.matrix_exp", "LinalgMatrixExpBackward0"
    saved_for_backward = (0,)

    def infer(self, a):
        op = self.op_name
        shape = tuple(a._data.shape)
        if len(shape) < 2:
            raise ShapeRuntimeError(op, "The input tensor A must have at least 2 dimensions.")
        if shape[-1] != shape[-2]:
            raise ShapeRuntimeError(op, f"A must be batches of square matrices, but they are "
                                        f"{shape[-2]} by {shape[-1]} matrices")
        if not a._dtype.is_floating_point:  # PyTorch takes float16 here (its matmuls do)
            raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. "
                               f"Got {checks.type_name(a._dtype)}")
        return shape, a._dtype

    def forward(self, backend, a):
        if self.recording:
            self.a = a
        return backend.matrix_exp(a)

    def backward(self, backend, g):
        n = g.shape[-1]
        a_t = mT(backend, self.a)
        # [[Aᵀ, G], [0, Aᵀ]]: its exponential's top-right block is the gradient
        block = backend.full(g.shape[:-2] + (2 * n, 2 * n), 0, array_dtype(g))
        top, bottom = slice(0, n), slice(n, 2 * n)
        backend.setitem(block, (Ellipsis, top, top), a_t)
        backend.setitem(block, (Ellipsis, bottom, bottom), a_t)
        backend.setitem(block, (Ellipsis, top, bottom), g)
        return (backend.getitem(backend.matrix_exp(block), (Ellipsis, top, bottom)),)

    def backward_graph(self, grad):
        return (dg.matrix_exp_backward(self, self.graph_input(0, self.a), grad),)
