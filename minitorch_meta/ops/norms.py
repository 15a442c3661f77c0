"""Vector norms: ``linalg.vector_norm`` (and ``norm``, which PyTorch routes to it).

One op for every order ``ord``, with its own backward rather than a composition of
``abs``, ``pow``, ``sum`` and ``sqrt``: the composition's gradient at an all-zero input is
``0 / 0 = nan``, where PyTorch defines it as 0, and the inf norm shares its gradient
between tied maxima as ``amax`` does.
"""

from __future__ import annotations

import math
from numbers import Real

from .. import dtypes
from . import shapes
from .function import Function
from .layer_norm import to_opmath
from .reduction import drop_reduced_dims, empty_reduction

INF = math.inf


class LinalgVectorNorm(Function):
    """``(sum |x|^ord) ^ (1/ord)`` over ``dim`` (every dim when it is None or empty).

    ``ord`` is any real number: ``inf`` is ``max |x|``, ``-inf`` is ``min |x|`` and ``0``
    counts the nonzero elements (and has no gradient, as in PyTorch).

    Shape:
        the input's shape without the reduced dims (kept as 1 with ``keepdim``).

    Raises:
        RuntimeError for an integer input, or an order with no identity (``inf``, or below
        0) over an empty slice; IndexError/RuntimeError for a dim out of range or repeated.
    """

    op_name, backward_name = "linalg.vector_norm", "LinalgVectorNormBackward0"
    saved_for_backward = (0, "output")
    ord, dim, keepdim = 2.0, None, False

    def infer(self, x):
        if not x._dtype.is_floating_point:
            raise RuntimeError(f"linalg.vector_norm: Expected a floating point tensor as input. "
                               f"Got {x._dtype}; convert it first, e.g. with .float()")
        shape = x._data.shape
        if self.ord < 0 or self.ord == INF:  # before the dims' checks, as PyTorch does
            self._require_elements(shape)
        self.axes = shapes.reduction_dims(self.op_name, self.dim, len(shape))
        self.dtype = x._dtype
        return shapes.reduce_shape(self.op_name, shape, self.axes, self.keepdim), x._dtype

    def _require_elements(self, shape):
        """max, min and negative powers have no value over no elements (no identity)."""
        empty = empty_reduction(self.op_name, shape, self.dim)
        if empty is None:
            return
        where = ("an empty tensor because" if empty == "all"
                 else f"the dimension {empty} because this dimension is empty and")
        raise RuntimeError(f"linalg.vector_norm cannot compute the {self.ord:g} norm on {where} "
                           f"the operation does not have an identity (input shape "
                           f"{shapes.fmt(shape)})")

    def forward(self, backend, x):
        # float16 is summed in float32, as PyTorch's CPU kernels do (|x|^3 overflows float16
        # past 40); x and the norm are kept so, and the gradient is cast back
        x = to_opmath(backend, x)
        kept = self._norm(backend, x)  # reduced dims kept as 1: backward broadcasts it
        if self.recording:
            self.x, self.kept = x, kept
        return backend.astype(drop_reduced_dims(backend, kept, self.axes, self.keepdim),
                              self.dtype)

    def _norm(self, backend, x):
        p, axes = self.ord, self.axes
        if p == 2:  # the default, without abs or pow
            return backend.unary("sqrt", backend.sum(backend.binary("mul", x, x), axes, True))
        if p == 0:  # the count of nonzero elements
            nonzero = backend.binary("ne", x, x.dtype.type(0))
            return backend.astype(backend.sum(nonzero, axes, True), _dtype_of(x))
        a = backend.unary("abs", x)
        if p == 1:
            return backend.sum(a, axes, True)
        if p == INF:
            return backend.max(a, axes, True)
        if p == -INF:
            return backend.min(a, axes, True)
        powered = backend.sum(backend.binary("pow", a, x.dtype.type(p)), axes, True)
        return backend.binary("pow", powered, x.dtype.type(1 / p))

    def backward(self, backend, gy):
        if self.ord == 0:
            return (None,)  # a count is piecewise constant: PyTorch gives no gradient
        gx, = self._array_gradient(backend, to_opmath(backend, gy))
        return (backend.astype(gx, self.dtype),)

    def _array_gradient(self, backend, gy):
        p, x, norm = self.ord, self.x, self.kept
        gy = backend.reshape(gy, norm.shape)
        zero = gy.dtype.type(0)
        if p == 1:
            return (backend.binary("mul", _sgn(backend, x), gy),)
        if p == 2:  # x / norm, defined as 0 where the norm is 0
            scale = backend.where(backend.binary("eq", norm, zero), zero,
                                  backend.binary("div", gy, norm))
            return (backend.binary("mul", x, scale),)
        if p in (INF, -INF):
            return (self._extreme_grad(backend, x, norm, gy),)
        sign, a = backend.unary("sign", x), backend.unary("abs", x)
        if p < 1:  # |x|^(p-1) is infinite at 0, where PyTorch's gradient is 0
            slope = backend.where(backend.binary("eq", x, zero), zero,
                                  backend.binary("pow", a, gy.dtype.type(p - 1)))
            scale = backend.binary("mul", gy,
                                   backend.binary("pow", norm, gy.dtype.type(1 - p)))
        else:  # p > 1: |x|^(p-1) is 0 at 0; the 0 / 0 of an all-zero slice is taken as 0
            slope = backend.binary("pow", a, gy.dtype.type(p - 1))
            scale = backend.where(backend.binary("eq", norm, zero), zero, backend.binary(
                "div", gy, backend.binary("pow", norm, gy.dtype.type(p - 1))))
        return (backend.binary("mul", backend.binary("mul", sign, slope), scale),)

    def backward_graph(self, grad):
        """``backward`` with tensor ops (``create_graph=True``); signs, ties and the masks of
        zero norms are piecewise constant, so they enter as constants."""
        if self.ord == 0:
            return (None,)
        gx, = self._graph_gradient(grad.to(_dtype_of(self.kept)))
        return (gx.to(self.dtype),)

    def _graph_gradient(self, grad):
        p, backend, kept = self.ord, self.backend, self.kept
        grad = grad.reshape(kept.shape)
        if p in (INF, -INF):
            hits = backend.binary("eq", backend.unary("abs", self.x), kept)
            count = backend.astype(backend.sum(hits, self.axes, True), _dtype_of(kept))
            share = grad / self.constant(count) * self.constant(_sgn(backend, self.x))
            return (share.where(self.constant(hits), 0),)
        x = self.graph_input(0, self.x)
        if p == 1:
            return (grad * self.constant(_sgn(backend, self.x)),)
        norm = self.graph_output(backend.astype(
            drop_reduced_dims(backend, kept, self.axes, self.keepdim), self.dtype))
        norm = norm.to(_dtype_of(kept)).reshape(kept.shape)
        zero = kept.dtype.type(0)
        if p == 2:  # x / norm, defined as 0 where the norm is 0
            return (x * _where_zero(self, backend.binary("eq", kept, zero), grad, norm),)
        sign, a = self.constant(backend.unary("sign", self.x)), x.abs()
        if p < 1:  # |x|^(p-1) is infinite at 0, where PyTorch's gradient is 0
            slope = _where_zero(self, backend.binary("eq", self.x, zero), 1, a ** (1 - p))
            return (sign * slope * (grad * norm ** (1 - p)),)
        scale = _where_zero(self, backend.binary("eq", kept, zero), grad, norm ** (p - 1))
        return (sign * a ** (p - 1) * scale,)

    def _extreme_grad(self, backend, x, norm, gy):
        """The inf (-inf) norm is the max (min) of |x|: its gradient goes to the elements
        that reach it, shared evenly between ties, with their sign. A slice holding a NaN
        has a NaN norm that no element equals: its gradient is 0, as in PyTorch."""
        hits = backend.binary("eq", backend.unary("abs", x), norm)
        count = backend.astype(backend.sum(hits, self.axes, True), _dtype_of(gy))
        share = backend.binary("mul", backend.unary("sign", x), backend.binary("div", gy, count))
        return backend.where(hits, share, gy.dtype.type(0))


def _where_zero(node, zero, numerator, denominator):
    """``numerator / denominator`` as tensors, and 0 where the array mask ``zero`` holds
    (the denominator is 0 there: it is replaced by 1 first, so that no 0 / 0 reaches the
    second derivative)."""
    mask = node.constant(zero)
    return (numerator / denominator.masked_fill(mask, 1)).masked_fill(mask, 0)


def _sgn(backend, x):
    """PyTorch's sign: -1, 0 or 1, and 0 for NaN (NumPy's sign gives NaN there)."""
    return backend.where(backend.binary("ne", x, x), x.dtype.type(0), backend.unary("sign", x))


def _dtype_of(array):
    return dtypes.from_numpy(array.dtype)


def vector_norm_order(ord) -> float:
    """``ord`` as a float (a 0-d tensor without grad too, as PyTorch reads it), refusing what
    PyTorch refuses (strings, None)."""
    if hasattr(ord, "_data") and ord.dim() == 0 and not ord.requires_grad:
        ord = ord.item()
    if not isinstance(ord, Real):
        raise TypeError(f"linalg.vector_norm(): argument 'ord' must be a number (such as 2, 1 "
                        f"or float('inf')), not {type(ord).__name__} ({ord!r})")
    return float(ord)


def norm_order(p) -> float:
    """``torch.norm``'s ``p`` as a vector-norm order: ``'fro'`` (the default) and None are
    the 2-norm of the elements, as in PyTorch (``torch.norm`` sends the other strings, and
    ``'fro'`` over more than two dims, to ``linalg.matrix_norm``)."""
    if p is None or p == "fro":
        return 2.0
    return vector_norm_order(p)
