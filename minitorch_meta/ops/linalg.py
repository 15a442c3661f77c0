"""Matrix products in the row-vector convention: ``mm``, ``mv``, ``dot``, ``matmul`` and
``addmm``.

``linear(x, W, b)`` is ``addmm(b, x, W.t())``: a batch is a matrix whose rows are samples.
"""

from __future__ import annotations

from . import shapes
from .complex_support import conj, conj_tensor
from .function import Function


def _check_dtypes(op, a, b):
    shapes.require_same_dtype(op, "self", a._dtype, "mat2", b._dtype)
    shapes.refuse_bool_product("addmm_impl_cpu_", a._dtype)


def _matmul_kernel(ranks: tuple) -> str:
    """The kernel PyTorch's ``matmul`` reaches for these operand ranks (named in its errors)."""
    if ranks == (1, 1):
        return "dot"
    if ranks[1] >= 3:
        return "bmm"
    return "addmv_impl_cpu" if ranks == (2, 1) else "addmm_impl_cpu_"


class Mm(Function):
    """Matrix product of two matrices.

    Shape:
        ``(n, k) @ (k, m) -> (n, m)``.
    """

    op_name, backward_name = "mm", "MmBackward0"
    saved_for_backward = ((0, 1), (1, 0))  # each operand is the other's gradient factor
    complex_aware = True  # the gradients take the conjugate transposes

    def infer(self, a, b):
        _check_dtypes("mm", a, b)
        return shapes.mm_shape("mm", a._data.shape, b._data.shape), a._dtype

    def forward(self, backend, a, b):
        self.a, self.b = a, b
        return backend.matmul(a, b)

    def backward(self, backend, gy):
        need_a, need_b = self.needs_input_grad
        ga = backend.matmul(gy, backend.transpose(conj(backend, self.b), (1, 0))) if need_a \
            else None
        gb = backend.matmul(backend.transpose(conj(backend, self.a), (1, 0)), gy) if need_b \
            else None
        return ga, gb

    def backward_graph(self, grad):
        need_a, need_b = self.needs_input_grad
        return (grad.mm(conj_tensor(self.graph_input(1, self.b)).t()) if need_a else None,
                conj_tensor(self.graph_input(0, self.a)).t().mm(grad) if need_b else None)


class Mv(Function):
    """Matrix-vector product.

    Shape:
        ``(n, k) @ (k,) -> (n,)``.
    """

    op_name, backward_name = "mv", "MvBackward0"
    saved_for_backward = ((0, 1), (1, 0))

    def infer(self, a, v):
        shapes.require_same_dtype("mv", "self", a._dtype, "vec", v._dtype)
        shapes.refuse_bool_product("addmv_impl_cpu", a._dtype)
        return shapes.mv_shape("mv", a._data.shape, v._data.shape), a._dtype

    def forward(self, backend, a, v):
        self.a, self.v = a, v
        return backend.matmul(a, v)

    def backward(self, backend, gy):
        ga = gv = None
        if self.needs_input_grad[0]:  # outer product gy v^T
            ga = backend.matmul(backend.reshape(gy, (-1, 1)), backend.reshape(self.v, (1, -1)))
        if self.needs_input_grad[1]:
            gv = backend.matmul(gy, self.a)
        return ga, gv

    def backward_graph(self, grad):
        need_a, need_v = self.needs_input_grad
        return (grad.unsqueeze(1) * self.graph_input(1, self.v) if need_a else None,
                grad.matmul(self.graph_input(0, self.a)) if need_v else None)


class Dot(Function):
    """Inner product of two vectors.

    Shape:
        ``(n,) . (n,) -> ()``.

    Raises:
        ShapeRuntimeError (a RuntimeError, as PyTorch's) unless both are 1-D of one length;
        TypeError for two dtypes.
    """

    op_name, backward_name = "dot", "DotBackward0"
    saved_for_backward = ((0, 1), (1, 0))
    other_name = "tensor"  # PyTorch's name for the second vector, in the dtype error

    def infer(self, a, b):
        op = self.op_name
        shapes.require_same_dtype(op, "self", a._dtype, self.other_name, b._dtype)
        shapes.refuse_bool_product("dot", a._dtype)
        sa, sb = tuple(a._data.shape), tuple(b._data.shape)
        if len(sa) != 1 or len(sb) != 1:
            raise shapes.ShapeRuntimeError(op, f"1D tensors expected, but got {len(sa)}D "
                                               f"and {len(sb)}D tensors")
        if sa != sb:
            raise shapes.ShapeRuntimeError(op, f"inconsistent tensor size: {sa[0]} and "
                                               f"{sb[0]} elements; both vectors must have "
                                               "the same number of elements")
        return (), a._dtype

    def forward(self, backend, a, b):
        self.a, self.b = a, b
        return backend.matmul(a, b)

    def backward(self, backend, gy):  # gy is 0-d: each vector's gradient is gy times the other
        return (backend.binary("mul", gy, self.b) if self.needs_input_grad[0] else None,
                backend.binary("mul", gy, self.a) if self.needs_input_grad[1] else None)

    def backward_graph(self, grad):
        need_a, need_b = self.needs_input_grad
        return (grad * self.graph_input(1, self.b) if need_a else None,
                grad * self.graph_input(0, self.a) if need_b else None)


class Addmm(Function):
    """``beta * bias + alpha * (a @ b)``; the bias broadcasts over rows.

    Shape:
        ``a (n, k)``, ``b (k, m)``, ``bias`` broadcastable to ``(n, m)`` -> ``(n, m)``.
    """

    op_name, backward_name = "addmm", "AddmmBackward0"
    saved_for_backward = ((1, 2), (2, 1))
    beta, alpha = 1, 1

    def infer(self, bias, a, b):
        _check_dtypes("addmm", a, b)
        shapes.require_same_dtype("addmm", "input", bias._dtype, "mat1", a._dtype)
        out = shapes.mm_shape("addmm", a._data.shape, b._data.shape)
        if not shapes.broadcasts_to(bias._data.shape, out):
            raise shapes.ShapeError("addmm", f"bias of shape {shapes.fmt(bias.shape)} cannot be "
                                             f"broadcast to the product's shape {shapes.fmt(out)}")
        return out, a._dtype

    def forward(self, backend, bias, a, b):
        self.a, self.b = a, b
        y = backend.matmul(a, b)
        if self.alpha != 1:
            y = backend.binary("mul", y, y.dtype.type(self.alpha))
        scaled_bias = bias if self.beta == 1 else backend.binary("mul", bias,
                                                                 bias.dtype.type(self.beta))
        y += scaled_bias  # y is a fresh GEMM result: adding in place saves a copy
        return y

    def backward(self, backend, gy):
        g_bias = ga = gb = None
        if self.needs_input_grad[0]:
            g_bias = backend.sum_to_shape(gy, tuple(self.input_specs[0][0]))
            if self.beta != 1:
                g_bias = backend.binary("mul", g_bias, g_bias.dtype.type(self.beta))
        if self.alpha != 1:
            gy = backend.binary("mul", gy, gy.dtype.type(self.alpha))
        if self.needs_input_grad[1]:
            ga = backend.matmul(gy, backend.transpose(self.b, (1, 0)))
        if self.needs_input_grad[2]:
            gb = backend.matmul(backend.transpose(self.a, (1, 0)), gy)
        return g_bias, ga, gb

    def backward_graph(self, grad):
        need_bias, need_a, need_b = self.needs_input_grad
        g_bias = ga = gb = None
        if need_bias:
            g_bias = grad.sum_to_size(tuple(self.input_specs[0][0])) * self.beta
        if self.alpha != 1:
            grad = grad * self.alpha
        if need_a:
            ga = grad.mm(self.graph_input(2, self.b).t())
        if need_b:
            gb = self.graph_input(1, self.a).t().mm(grad)
        return g_bias, ga, gb


class Matmul(Function):
    """NumPy/PyTorch ``@`` for 1-D, 2-D and batched operands.

    Shape:
        see ``shapes.matmul_shape``: ``(..., n, k) @ (..., k, m) -> (..., n, m)``.
    """

    op_name = "matmul"
    saved_for_backward = ((0, 1), (1, 0))
    complex_aware = True  # the gradients take the conjugate transposes

    def infer(self, a, b):
        shapes.require_same_dtype("matmul", "self", a.dtype, "other", b.dtype)
        self.ranks = (len(a.shape), len(b.shape))
        shapes.refuse_bool_product(_matmul_kernel(self.ranks), a.dtype)
        return shapes.matmul_shape(a.shape, b.shape), a.dtype

    @property
    def backward_name(self):
        # The node PyTorch's composite matmul ends with, for each pair of operand ranks.
        return _MATMUL_NAMES.get(self.ranks, "UnsafeViewBackward0")

    def forward(self, backend, a, b):
        self.a, self.b = a, b
        return backend.matmul(a, b)

    def backward(self, backend, gy):
        a, b = conj(backend, self.a), conj(backend, self.b)
        # Promote 1-D operands to matrices so one pair of formulas covers every case.
        a2 = backend.reshape(a, (1, -1)) if a.ndim == 1 else a
        b2 = backend.reshape(b, (-1, 1)) if b.ndim == 1 else b
        batch = shapes.broadcast("matmul", a2.shape[:-2], b2.shape[:-2])
        gy2 = backend.reshape(gy, tuple(batch) + (a2.shape[-2], b2.shape[-1]))
        ga = gb = None
        if self.needs_input_grad[0]:
            ga = backend.matmul(gy2, backend.transpose(b2, _swap_last(b2.ndim)))
            ga = backend.reshape(backend.sum_to_shape(ga, a2.shape), a.shape)
        if self.needs_input_grad[1]:
            gb = backend.matmul(backend.transpose(a2, _swap_last(a2.ndim)), gy2)
            gb = backend.reshape(backend.sum_to_shape(gb, b2.shape), b.shape)
        return ga, gb

    def backward_graph(self, grad):
        a = conj_tensor(self.graph_input(0, self.a))
        b = conj_tensor(self.graph_input(1, self.b))
        # the same promotion of 1-D operands as ``backward``, with recorded ops
        a2 = a.reshape(1, -1) if a.ndim == 1 else a
        b2 = b.reshape(-1, 1) if b.ndim == 1 else b
        batch = shapes.broadcast("matmul", tuple(a2.shape[:-2]), tuple(b2.shape[:-2]))
        grad2 = grad.reshape(tuple(batch) + (a2.shape[-2], b2.shape[-1]))
        ga = gb = None
        if self.needs_input_grad[0]:
            ga = grad2.matmul(b2.transpose(-1, -2)).sum_to_size(a2.shape).reshape(a.shape)
        if self.needs_input_grad[1]:
            gb = a2.transpose(-1, -2).matmul(grad2).sum_to_size(b2.shape).reshape(b.shape)
        return ga, gb


_MATMUL_NAMES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0",
                 (1, 2): "SqueezeBackward4"}


def _swap_last(ndim: int) -> tuple:
    return tuple(range(ndim - 2)) + (ndim - 1, ndim - 2)
