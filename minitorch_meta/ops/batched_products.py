"""Batched and rank-one matrix products: ``bmm``, ``baddbmm``, ``addbmm``, ``addmv``,
``addr`` and ``vdot``.

Each product is one backend GEMM over the whole batch: ``matmul`` of 3-D arrays is a
batched GEMM, and ``addbmm``'s sum over the batch is folded into the GEMM's inner
dimension, ``(n, B*k) @ (B*k, m)``, so no Python loop runs over the batch. The ``add*``
ops share ``ScaledSum``: ``beta * input + alpha * product``, with PyTorch's rule that
``beta = 0`` ignores ``input`` (NaN and inf in it do not reach the result).
"""

from __future__ import annotations

from . import shapes
from .complex_support import conj, conj_tensor
from .function import Function
from .linalg import Dot


def require_same_dtypes(op: str, named) -> None:
    """TypeError unless every ``(name, tensor)`` pair has the first one's dtype."""
    (first_name, first), *others = named
    for name, tensor in others:
        shapes.require_same_dtype(op, first_name, first._dtype, name, tensor._dtype)


def bmm_shape(op: str, a, b) -> tuple:
    """``(B, n, k) @ (B, k, m) -> (B, n, m)``; no broadcasting of the batch (PyTorch's)."""
    for name, shape in (("batch1", a), ("batch2", b)):
        if len(shape) != 3:
            raise shapes.ShapeRuntimeError(op, f"{name} must be a 3D tensor (batch, rows, "
                                               f"columns), but got a {len(shape)}-D tensor "
                                               f"of shape {shapes.fmt(shape)}")
    if b[0] != a[0] or b[1] != a[2]:
        raise shapes.ShapeRuntimeError(op, f"expected size for first two dimensions of batch2 "
                                           f"tensor to be: [{a[0]}, {a[2]}] but got: [{b[0]}, "
                                           f"{b[1]}] (batch1 {shapes.fmt(a)}, batch2 "
                                           f"{shapes.fmt(b)}; the batches do not broadcast)")
    return (a[0], a[1], b[2])


def _swap_last(backend, a):
    """Each matrix of a batch transposed (a view)."""
    return backend.transpose(a, (0, 2, 1))


def _bmm_grads(backend, gy, a, b, needs):
    """The gradients of ``a @ b`` (batched) for the operands in ``needs``."""
    ga = backend.matmul(gy, _swap_last(backend, b)) if needs[0] else None
    gb = backend.matmul(_swap_last(backend, a), gy) if needs[1] else None
    return ga, gb


class Bmm(Function):
    """Batched matrix product, one GEMM over the batch.

    Shape:
        ``(B, n, k) @ (B, k, m) -> (B, n, m)`` (the batch sizes must be equal).

    Raises:
        ShapeRuntimeError (a RuntimeError, as PyTorch's) for operands that are not 3-D or
        sizes that do not match; TypeError for two dtypes.
    """

    op_name, backward_name = "bmm", "BmmBackward0"
    saved_for_backward = ((0, 1), (1, 0))  # each operand is the other's gradient factor
    complex_aware = True  # the gradients take the conjugate transposes

    def infer(self, a, b):
        require_same_dtypes(self.op_name, (("batch1", a), ("batch2", b)))
        shapes.refuse_bool_product("bmm", a._dtype)
        return bmm_shape(self.op_name, a._data.shape, b._data.shape), a._dtype

    def forward(self, backend, a, b):
        if self.recording:
            self.a, self.b = a, b
        return backend.matmul(a, b)

    def backward(self, backend, gy):
        return _bmm_grads(backend, gy, conj(backend, self.a), conj(backend, self.b),
                          self.needs_input_grad)

    def backward_graph(self, grad):
        return _bmm_grads_graph(self, grad, 0, self.needs_input_grad)


def _bmm_grads_graph(node, grad, first: int, needs):
    """``_bmm_grads`` with tensor ops; the operands are inputs ``first`` and ``first + 1``
    of ``node``. ``grad`` may lack the batch dim (``addbmm``): ``matmul`` broadcasts it."""
    # (the conjugates: only Bmm takes complex operands; a real one is its own)
    ga = grad.matmul(conj_tensor(node.graph_input(first + 1, node.b)).transpose(1, 2)) \
        if needs[0] else None
    gb = conj_tensor(node.graph_input(first, node.a)).transpose(1, 2).matmul(grad) \
        if needs[1] else None
    return ga, gb


class ScaledSum(Function):
    """``beta * input + alpha * product(a, b)``; ``input`` broadcasts to the product.

    A subclass names its operands (``names``) and gives the product's shape rule,
    forward and gradients.
    """

    names = ("input", "mat1", "mat2")
    saved_for_backward = ((1, 2), (2, 1))
    beta, alpha = 1, 1
    #: PyTorch's kernel, named in its error for bool operands; None: bool works (``addr``).
    bool_kernel = None

    def infer(self, bias, a, b):
        require_same_dtypes(self.op_name, zip(self.names, (bias, a, b)))
        if self.bool_kernel is not None:
            shapes.refuse_bool_product(self.bool_kernel, a._dtype)
        out = self.product_shape(a._data.shape, b._data.shape)
        if not shapes.broadcasts_to(bias._data.shape, out):
            raise shapes.ShapeRuntimeError(self.op_name, f"{self.names[0]} of shape "
                                                         f"{shapes.fmt(bias._data.shape)} cannot "
                                                         "be broadcast to the product's shape "
                                                         f"{shapes.fmt(out)}")
        return out, a._dtype

    def forward(self, backend, bias, a, b):
        if self.recording:
            self.a, self.b = a, b
        y = self.product(backend, a, b)
        if self.alpha != 1:
            y = backend.binary("mul", y, y.dtype.type(self.alpha))
        if self.beta != 0:
            y += bias if self.beta == 1 else backend.binary("mul", bias,
                                                            bias.dtype.type(self.beta))
        return y  # a fresh GEMM result: adding in place saved a copy

    def backward(self, backend, gy):
        g_bias = None
        if self.needs_input_grad[0]:  # zeros when beta = 0, as PyTorch's
            g_bias = backend.sum_to_shape(gy, tuple(self.input_specs[0][0]))
            if self.beta != 1:
                g_bias = backend.binary("mul", g_bias, g_bias.dtype.type(self.beta))
        if self.alpha != 1:
            gy = backend.binary("mul", gy, gy.dtype.type(self.alpha))
        return (g_bias,) + tuple(self.product_grads(backend, gy, self.needs_input_grad[1:]))

    def backward_graph(self, grad):
        g_bias = None
        if self.needs_input_grad[0]:
            g_bias = grad.sum_to_size(tuple(self.input_specs[0][0]))
            if self.beta != 1:
                g_bias = g_bias * self.beta
        if self.alpha != 1:
            grad = grad * self.alpha
        return (g_bias,) + tuple(self.product_grads_graph(grad, self.needs_input_grad[1:]))

    # -- what a subclass gives -----------------------------------------------------------
    def product_shape(self, a, b) -> tuple:
        raise NotImplementedError

    def product(self, backend, a, b):
        raise NotImplementedError

    def product_grads(self, backend, gy, needs):
        raise NotImplementedError

    def product_grads_graph(self, grad, needs):
        """``product_grads`` with tensor ops (``create_graph=True``)."""
        raise NotImplementedError


class Baddbmm(ScaledSum):
    """``beta * input + alpha * (batch1 @ batch2)``, one batched GEMM.

    Shape:
        ``batch1 (B, n, k)``, ``batch2 (B, k, m)``, ``input`` broadcastable to
        ``(B, n, m)`` -> ``(B, n, m)``.
    """

    op_name, backward_name = "baddbmm", "BaddbmmBackward0"
    names = ("input", "batch1", "batch2")
    bool_kernel = "baddbmm"

    def product_shape(self, a, b) -> tuple:
        return bmm_shape(self.op_name, a, b)

    def product(self, backend, a, b):
        return backend.matmul(a, b)

    def product_grads(self, backend, gy, needs):
        return _bmm_grads(backend, gy, self.a, self.b, needs)

    def product_grads_graph(self, grad, needs):
        return _bmm_grads_graph(self, grad, 1, needs)


class Addbmm(ScaledSum):
    """``beta * input + alpha * sum_b (batch1[b] @ batch2[b])``.

    The sum over the batch is the inner dimension of one GEMM: ``batch1`` laid out as
    ``(n, B*k)`` (a copy) times ``batch2`` seen as ``(B*k, m)`` (a view).

    Shape:
        ``batch1 (B, n, k)``, ``batch2 (B, k, m)``, ``input`` broadcastable to ``(n, m)``
        -> ``(n, m)``.
    """

    op_name, backward_name = "addbmm", "AddbmmBackward0"
    names = ("input", "batch1", "batch2")
    bool_kernel = "addmm_impl_cpu_"

    def product_shape(self, a, b) -> tuple:
        return bmm_shape(self.op_name, a, b)[1:]

    def product(self, backend, a, b):
        batch, n, k = a.shape
        rows = backend.reshape(backend.transpose(a, (1, 0, 2)), (n, batch * k))
        return backend.matmul(rows, backend.reshape(b, (batch * k, b.shape[2])))

    def product_grads(self, backend, gy, needs):
        # gy (n, m) is every batch's output gradient: it broadcasts over the batch
        ga = backend.matmul(gy, _swap_last(backend, self.b)) if needs[0] else None
        gb = backend.matmul(_swap_last(backend, self.a), gy) if needs[1] else None
        return ga, gb

    def product_grads_graph(self, grad, needs):
        return _bmm_grads_graph(self, grad, 1, needs)


class Addmv(ScaledSum):
    """``beta * input + alpha * (mat @ vec)``.

    Shape:
        ``mat (n, k)``, ``vec (k,)``, ``input`` broadcastable to ``(n,)`` -> ``(n,)``.
    """

    op_name, backward_name = "addmv", "AddmvBackward0"
    names = ("input", "mat", "vec")
    bool_kernel = "addmv_impl_cpu"

    def product_shape(self, a, v) -> tuple:
        if len(a) != 2 or len(v) != 1:
            raise shapes.ShapeRuntimeError(self.op_name, f"vector + matrix @ vector expected, "
                                                         f"but got mat of shape {shapes.fmt(a)} "
                                                         f"and vec of shape {shapes.fmt(v)}")
        if a[1] != v[0]:
            raise shapes.ShapeRuntimeError(self.op_name, f"size mismatch: mat {shapes.fmt(a)} "
                                                         f"has {a[1]} columns but vec has "
                                                         f"{v[0]} elements")
        return (a[0],)

    def product(self, backend, a, v):
        return backend.matmul(a, v)

    def product_grads(self, backend, gy, needs):
        ga = gv = None
        if needs[0]:  # the outer product gy v^T
            ga = backend.matmul(backend.reshape(gy, (-1, 1)), backend.reshape(self.b, (1, -1)))
        if needs[1]:
            gv = backend.matmul(gy, self.a)
        return ga, gv

    def product_grads_graph(self, grad, needs):
        ga = grad.unsqueeze(1) * self.graph_input(2, self.b) if needs[0] else None
        gv = grad.matmul(self.graph_input(1, self.a)) if needs[1] else None
        return ga, gv


class Addr(ScaledSum):
    """``beta * input + alpha * outer(vec1, vec2)``.

    Shape:
        ``vec1 (n,)``, ``vec2 (m,)``, ``input`` broadcastable to ``(n, m)`` -> ``(n, m)``.
    """

    op_name, backward_name = "addr", "AddrBackward0"
    names = ("input", "vec1", "vec2")

    def product_shape(self, u, v) -> tuple:
        for name, shape in (("vec1", u), ("vec2", v)):
            if len(shape) != 1:
                raise shapes.ShapeRuntimeError(self.op_name, f"expected 1-D argument {name}, "
                                                             f"but got {len(shape)}-D (shape "
                                                             f"{shapes.fmt(shape)})")
        return (u[0], v[0])

    def product(self, backend, u, v):
        # a rank-one product: a broadcast multiply does it without a GEMM of inner size 1
        return backend.binary("mul", backend.reshape(u, (-1, 1)), backend.reshape(v, (1, -1)))

    def product_grads(self, backend, gy, needs):
        gu = backend.matmul(gy, self.b) if needs[0] else None
        gv = backend.matmul(backend.transpose(gy, (1, 0)), self.a) if needs[1] else None
        return gu, gv

    def product_grads_graph(self, grad, needs):
        gu = grad.matmul(self.graph_input(2, self.b)) if needs[0] else None
        gv = grad.t().matmul(self.graph_input(1, self.a)) if needs[1] else None
        return gu, gv


class Vdot(Dot):
    """The inner product of two real vectors (no complex dtype here, so no conjugate).

    Shape:
        ``(n,) . (n,) -> ()``.

    Raises:
        ShapeRuntimeError (a RuntimeError, as PyTorch's) unless both are 1-D of one length;
        TypeError for two dtypes.
    """

    op_name, backward_name = "vdot", "VdotBackward0"
    other_name = "other"
