"""``cosine_similarity``: ``<x1, x2> / (max(|x1|, eps) * max(|x2|, eps))`` along a dim.

PyTorch 2.13 divides each input by its clamped norm first and then sums the product (so
the result stays in [-1, 1] and nothing overflows), and it clamps the norms under
``no_grad``: the gradient flows through each norm as if it had not been clamped. That last
point cannot be composed from our ops (a clamp stops the gradient where it acts), so this is
one ``Function`` whose backward repeats PyTorch's chain step by step.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .elementwise import _reduce
from .function import Function
from .graph_backward import reduce_to_input


class CosineSimilarity(Function):
    """Cosine similarity of ``x1`` and ``x2`` along ``dim``, after broadcasting them.

    Shape:
        ``x1`` and ``x2`` broadcast to a shape ``S``; the output is ``S`` without ``dim``.
        Integer and bool inputs are converted to the promoted floating dtype.

    Raises:
        RuntimeError: the promoted dtype is not floating-point (PyTorch's message).
        ShapeError: the shapes do not broadcast; IndexError: ``dim`` is out of range.
    """

    op_name, backward_name = "cosine_similarity", "SumBackward1"
    saved_for_backward = (0, 1)
    dim, eps = 1, 1e-8

    def infer(self, x1, x2):
        dtype = dtypes.promote_tensors(x1._dtype, not x1._data.shape, x2._dtype,
                                       not x2._data.shape)
        if not dtype.is_floating_point:
            raise RuntimeError(f"expected common dtype to be floating point, yet common dtype "
                               f"is {dtype}")
        shape = shapes.broadcast(self.op_name, x1._data.shape, x2._data.shape)
        self.axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
        self.dtype, self.shape = dtype, shape
        return shape[:self.axis] + shape[self.axis + 1:], dtype

    def forward(self, backend, x1, x2):
        if self.recording:
            self.inputs = (x1, x2)  # as they came: what the graph formula joins to
        x1, x2 = (self.broadcast(backend, x) for x in (x1, x2))
        eps = x1.dtype.type(self.eps)
        n1, n2 = self.norm(backend, x1), self.norm(backend, x2)
        c1, c2 = backend.binary("maximum", n1, eps), backend.binary("maximum", n2, eps)
        u1, u2 = backend.binary("div", x1, c1), backend.binary("div", x2, c2)
        if self.recording:
            self.saved = (x1, x2, n1, n2, c1, c2, u1, u2)
        out = backend.sum(backend.binary("mul", u1, u2), self.axis if self.shape else None,
                          False)
        # NumPy reduces to a scalar, not a 0-d array, when no dimension is left
        return backend.asarray(out, None) if out.ndim == 0 else out

    def broadcast(self, backend, x):
        """``x`` in the compute dtype and expanded to the common shape, as PyTorch expands."""
        if x.dtype != self.dtype.numpy:
            x = backend.astype(x, self.dtype)
        if x.shape != self.shape:
            x = backend.binary("add", backend.full(self.shape, 0, self.dtype), x)
        return x

    def norm(self, backend, x):
        axis = self.axis if self.shape else None
        return backend.unary("sqrt", backend.sum(backend.binary("mul", x, x), axis, True))

    def backward(self, backend, gy):
        x1, x2, n1, n2, c1, c2, u1, u2 = self.saved
        if self.shape:
            gy = backend.reshape(gy, self.shape[:self.axis] + (1,) + self.shape[self.axis + 1:])
        grads = []
        for k, (x, n, c, other) in enumerate(((x1, n1, c1, u2), (x2, n2, c2, u1))):
            if not self.needs_input_grad[k]:
                grads.append(None)
                continue
            g_unit = backend.binary("mul", gy, other)  # d out / d (x / c)
            g_x = backend.binary("div", g_unit, c)
            # d out / d c, then through the norm as if unclamped: x / |x| (0 where |x| = 0)
            g_c = backend.unary("neg", self.sum(backend, backend.binary(
                "div", backend.binary("mul", g_unit, x), backend.binary("mul", c, c))))
            zero = n.dtype.type(0)
            per_norm = backend.where(backend.binary("eq", n, zero), zero,
                                     backend.binary("div", g_c, n))
            g_x = backend.binary("add", g_x, backend.binary("mul", x, per_norm))
            grads.append(_reduce(backend, g_x, self.input_specs[k]))
        return tuple(grads)

    def sum(self, backend, a):
        return backend.sum(a, self.axis if self.shape else None, True)

    def backward_graph(self, grad):
        # ``backward`` with recorded ops. Each clamped norm is its norm plus the constant the
        # clamp added: its value, with the norm's gradient (PyTorch clamps under no_grad).
        _, _, n1, n2, c1, c2, _, _ = self.saved
        backend, axis = self.backend, (self.axis if self.shape else None)
        keep = {} if axis is None else {"dim": axis, "keepdim": True}
        if self.shape:
            grad = grad.reshape(self.shape[:self.axis] + (1,) + self.shape[self.axis + 1:])
        xs, norms, clamped = [], [], []
        for k, (n, c) in enumerate(((n1, c1), (n2, c2))):
            x = self.graph_input(k, self.inputs[k]).to(self.dtype).expand(self.shape)
            norm = x.norm(**keep)  # its gradient is 0 at a zero vector, as PyTorch's
            xs.append(x)
            norms.append((norm, self.constant(backend.binary("ne", n, n.dtype.type(0)))))
            clamped.append(norm + self.constant(backend.binary("sub", c, n)))
        grads = []
        for k in range(2):
            if not self.needs_input_grad[k]:
                grads.append(None)
                continue
            x, (n, nonzero), c = xs[k], norms[k], clamped[k]
            g_unit = grad * (xs[1 - k] / clamped[1 - k])
            total = (g_unit * x / (c * c))
            g_c = -(total.sum(**keep) if axis is not None else total.sum())
            # 0 where the norm is 0 (the quotient sees 1 there, so no 0 / 0 reaches it)
            per_norm = (g_c / n.where(nonzero, 1)).where(nonzero, 0)
            grads.append(reduce_to_input(g_unit / c + x * per_norm, self.input_specs[k]))
        return tuple(grads)
