"""``linalg.slogdet`` and ``linalg.det``: the determinant, as ``(sign, log|det|)`` or itself.

Both run on the ``slogdet`` kernel (an LU factorisation). ``slogdet``'s two results are
differentiable (PyTorch gives ``sign`` a node too, with a zero gradient for real input), so
the op returns them packed in one flat array (``matrix_arrays.pack``).

Backward. ``d log|det A| / dA = A⁻ᵀ``. ``d det A / dA`` is the cofactor matrix, which is
``det(A) A⁻ᵀ`` when ``A`` is invertible but stays defined when it is not; it is computed
from the SVD ``A = U S Vᵀ`` as ``det(U) det(V) U diag(prod_{j≠i} s_j) Vᵀ``, so a singular
matrix gets its true gradient (PyTorch's ``det`` is also differentiable there).

Graph formulas (gradients of gradients): ``g A⁻ᵀ`` for ``slogdet`` and ``g det(A) A⁻ᵀ`` for
``det``, with ``A⁻¹`` from ``inv_ex`` (itself differentiable to any order). For ``det`` that
holds only where ``A`` is invertible: at a numerically singular matrix (rank below ``n`` by
``matrix_rank``'s default tolerance) the gradient is still the cofactor matrix, but a
second differentiation raises (PyTorch goes through an SVD there; see docs/differences.md).
"""

from __future__ import annotations

from ..type_info import finfo
from . import linalg_checks as checks
from . import linalg_graph as lg
from .function import Function
from .matrix_arrays import array_dtype, layout, mT, mul, pack, scalar, scale_columns, unpack


class LinalgSlogdet(Function):
    """``(sign, logabsdet)`` of each square matrix, packed into one flat array.

    Shape:
        ``(*, n, n)`` -> flat ``(2 * prod(*),)``: the signs ``(*)`` then the logs ``(*)``.
    """

    op_name, backward_name = "linalg.slogdet", "LinalgSlogdetBackward0"
    saved_for_backward = (0,)

    def infer(self, a):
        batch = checks.square_shape(self.op_name, a)[:-2]
        self.parts = layout([batch, batch])
        return (self.parts[-1][1],), a._dtype

    def forward(self, backend, a):
        sign, logabsdet = backend.slogdet(a)
        if self.recording:
            self.a = a
        return pack(backend, (sign, logabsdet), self.parts, array_dtype(a))

    def backward(self, backend, g):
        _, g_log = unpack(backend, g, self.parts)
        inverse, _ = backend.inv(self.a)
        return (mul(backend, backend.reshape(g_log, g_log.shape + (1, 1)), mT(backend, inverse)),)

    def backward_graph(self, grad):
        start, end, shape = self.parts[1]
        g_log = grad[start:end].reshape(shape)
        inverse = lg.inverse(self.graph_input(0, self.a))
        return (g_log.unsqueeze(-1).unsqueeze(-1) * lg.mT(inverse),)


class LinalgDet(Function):
    """The determinant of each square matrix.

    Shape:
        ``(*, n, n)`` -> ``(*)``.
    """

    op_name, backward_name = "linalg.det", "LinalgDetBackward0"
    saved_for_backward = (0,)

    def infer(self, a):
        return checks.square_shape(self.op_name, a)[:-2], a._dtype

    def forward(self, backend, a):
        sign, logabsdet = backend.slogdet(a)
        if self.recording:
            self.a = a
        return mul(backend, sign, backend.unary("exp", logabsdet))

    def backward(self, backend, g):
        g = backend.reshape(g, g.shape + (1, 1))
        return (mul(backend, g, cofactor(backend, self.a)),)

    def backward_graph(self, grad):
        backend = self.backend
        if self.a.shape[-1] == 1:  # det is the entry itself: its gradient is constant
            return (grad.unsqueeze(-1).unsqueeze(-1),)
        if _any_singular(backend, self.a):
            (array,) = self.backward(backend, grad._data)
            return (lg.refused_twice(self, array, grad, _SINGULAR_TWICE),)
        a = self.graph_input(0, self.a)
        scale = grad * LinalgDet()(a)
        return (scale.unsqueeze(-1).unsqueeze(-1) * lg.mT(lg.inverse(a)),)


_SINGULAR_TWICE = (
    "linalg.det: the second derivative of the determinant at a singular matrix is not "
    "implemented in minitorch_meta (its first derivative, the cofactor matrix, is right). "
    "Differentiate det twice only at invertible matrices, or use slogdet's logabsdet")


def _any_singular(backend, a) -> bool:
    """Whether some matrix of the batch ``a`` is numerically singular: its smallest
    singular value at most ``eps * max(m, n)`` times its largest (``matrix_rank``'s default
    tolerance), where ``A⁻¹`` is not to be trusted."""
    if a.size == 0:
        return False
    _, s, _ = backend.svd(a, False, False)
    tolerance = finfo(array_dtype(a)).eps * a.shape[-1]
    smallest = backend.getitem(s, (Ellipsis, -1))
    largest = backend.getitem(s, (Ellipsis, 0))
    below = backend.binary("le", smallest, backend.binary("mul", largest, scalar(a, tolerance)))
    return bool(backend.to_numpy(below).any())


def cofactor(backend, a):
    """The cofactor matrix of each square matrix (``det(A) A⁻ᵀ`` where invertible)."""
    n = a.shape[-1]
    if n == 0:
        return a
    u, s, vh = backend.svd(a, False, True)
    sign_u, _ = backend.slogdet(u)
    sign_v, _ = backend.slogdet(vh)
    product = scale_columns(backend, u, others_product(backend, s))
    signs = mul(backend, sign_u, sign_v)
    return mul(backend, backend.reshape(signs, signs.shape + (1, 1)),
               backend.matmul(product, vh))


def others_product(backend, s):
    """``prod_{j≠i} s_j`` for each ``i`` along the last dim, without dividing (a zero
    ``s_i`` is allowed): the product of those before ``i`` times that of those after."""
    n = s.shape[-1]
    before = backend.full(s.shape, 1, array_dtype(s))
    after = backend.full(s.shape, 1, array_dtype(s))
    if n > 1:
        head = backend.cumprod(backend.getitem(s, (Ellipsis, slice(0, n - 1))), -1)
        backend.setitem(before, (Ellipsis, slice(1, n)), head)
        reverse = (Ellipsis, slice(None, None, -1))
        tail = backend.cumprod(backend.getitem(s, reverse), -1)  # s_{n-1}, s_{n-1} s_{n-2}, ...
        backend.setitem(after, (Ellipsis, slice(0, n - 1)),
                        backend.getitem(tail, (Ellipsis, slice(n - 2, None, -1))))
    return mul(backend, before, after)
